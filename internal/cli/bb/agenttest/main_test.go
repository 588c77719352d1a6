// Package agenttest holds the black-box tests of `bb agent` and `bb events`:
// the real bb binary, built once, run in temporary directories.
package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "bb-agenttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "bb"), "github.com/blackboard-hub/bb/cmd/bb").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building bb: %v\n%s", err, out)
		return 1
	}
	binDir = dir
	// A throwaway PostgreSQL cluster for TestScriptsPostgres (skipped, with
	// the reason, when PostgreSQL is not installed).
	return pgtest.Run(m)
}

func bbPath() string { return filepath.Join(binDir, "bb") }

func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(nil))
}

// TestScriptsPostgres runs the same scripts with every bb call on a fresh
// PostgreSQL database (BB_DATABASE_URL): one core, one contract, both stores.
func TestScriptsPostgres(t *testing.T) {
	pgtest.Require(t)
	testscript.Run(t, scriptParams(func(env *testscript.Env) error {
		u, drop, err := pgtest.NewDatabase(filepath.Base(env.WorkDir) + "agent")
		if err != nil {
			return err
		}
		env.Defer(func() {
			if err := drop(); err != nil {
				env.T().Log(err)
			}
		})
		env.Setenv("BB_DATABASE_URL", u)
		return nil
	}))
}

func scriptParams(extra func(*testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir: filepath.Join("..", "..", "..", "..", "testdata", "script", "agent"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			if extra != nil {
				return extra(env)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonget":  cmdJSONGet,
			"exitcode": cmdExitCode,
		},
	}
}

// cmdExitCode is `exitcode N prog args...`: runs prog and requires exit
// status N (its stdout and stderr are then checked as usual).
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog args...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("bad exit status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdJSONGet is `jsonget VAR path` : sets $VAR to the value at path
// (dot-separated keys and list indexes) in the last command's stdout.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonget VAR path")
	}
	v, err := jsonPath([]byte(ts.ReadFile("stdout")), args[1])
	if err != nil {
		ts.Fatalf("jsonget %s: %v", args[1], err)
	}
	ts.Setenv(args[0], v)
}

func jsonPath(b []byte, path string) (string, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", fmt.Errorf("stdout is not JSON: %v", err)
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return "", fmt.Errorf("no key %q", k)
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("bad index %q (len %d)", k, len(x))
			}
			v = x[i]
		default:
			return "", fmt.Errorf("cannot index %T with %q", v, k)
		}
	}
	switch x := v.(type) {
	case string:
		return x, nil
	default:
		b, _ := json.Marshal(x)
		return string(b), nil
	}
}
