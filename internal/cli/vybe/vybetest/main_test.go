// Package vybetest runs the real vybe and bb binaries: the vybe contract
// (testdata/script/vybe), bb's native tasks (testdata/script/task), the
// seed's integration checks, concurrency with many processes and the speed
// benchmarks.
package vybetest

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"

	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

// TestMain builds vybe and bb, with a throwaway PostgreSQL for
// TestTasksOnPostgres (which skips without one).
func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"vybe", "bb"}, BinDir: &binDir, Postgres: true})
}

func vybePath() string { return filepath.Join(binDir, "vybe") }
func bbPath() string   { return filepath.Join(binDir, "bb") }

// result is one finished process.
type result struct {
	Stdout, Stderr string
	Code           int
}

// env is a sandbox: its own HOME and database.
type sandbox struct {
	t    testing.TB
	Dir  string
	Home string
	DB   string
	Env  []string
}

func newSandbox(t testing.TB) *sandbox {
	dir := t.TempDir()
	s := &sandbox{t: t, Dir: dir, Home: filepath.Join(dir, "home"), DB: filepath.Join(dir, "vybe.db")}
	s.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Home, "VYBE_DB_PATH=" + s.DB}
	return s
}

func (s *sandbox) run(stdin string, prog string, args ...string) result {
	s.t.Helper()
	c := exec.Command(prog, args...)
	c.Dir = s.Dir
	c.Env = s.Env
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.Code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run %s %v: %v", prog, args, err)
	}
	return r
}

func (s *sandbox) vybe(args ...string) result { s.t.Helper(); return s.run("", vybePath(), args...) }

// ok runs vybe and returns the data of a success envelope.
func (s *sandbox) ok(args ...string) map[string]any {
	s.t.Helper()
	r := s.vybe(args...)
	env := decode(s.t, r.Stdout)
	if r.Code != 0 || env["success"] != true {
		s.t.Fatalf("vybe %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	if d, ok := env["data"].(map[string]any); ok {
		return d
	}
	return map[string]any{"_": env["data"]}
}

// fails runs vybe and returns the error string of a failure envelope.
func (s *sandbox) fails(args ...string) string {
	s.t.Helper()
	r := s.vybe(args...)
	env := decode(s.t, r.Stdout)
	if r.Code != 1 || env["success"] != false {
		s.t.Fatalf("vybe %v: want failure, got exit %d\nstdout: %s", args, r.Code, r.Stdout)
	}
	return env["error"].(string)
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, s)
	}
	return m
}

func (s *sandbox) query(q string, args ...any) string {
	s.t.Helper()
	db, err := sql.Open("sqlite", s.DB)
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	var v any
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		s.t.Fatalf("%s: %v", q, err)
	}
	return fmt.Sprint(v)
}

// path walks a decoded JSON value by dot-separated keys/indexes.
func path(v any, p string) any {
	if p == "" {
		return v
	}
	for _, k := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestScripts runs the vybe and bb task scripts.
//
// Extra script commands:
//
//	exits <code> <prog> [args...]  run prog, require that exit status
//	jget <path> <want>             value at path of the last stdout's JSON
//	                               ("@len" last segment = length); strings raw
//	jset <VAR> <path>              save that value in an environment variable
//	dbq <sql> <want>               one-value query on $VYBE_DB_PATH (or .bb db)
func TestScripts(t *testing.T) {
	for _, area := range []string{"vybe", "task"} {
		t.Run(area, func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Dir:                 filepath.Join("..", "..", "..", "..", "testdata", "script", area),
				RequireExplicitExec: true,
				RequireUniqueNames:  true,
				Setup: func(e *testscript.Env) error {
					e.Setenv("PATH", binDir+string(os.PathListSeparator)+e.Getenv("PATH"))
					e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
					e.Setenv("VYBE_DB_PATH", filepath.Join(e.WorkDir, "vybe.db"))
					return nil
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"exits": testkit.Exits, "jget": testkit.Jget, "jset": testkit.Jset, "dbq": testkit.DBQ(vybeDB),
				},
			})
		})
	}
}

// vybeDB is the database dbq reads: the board's when the script made one,
// else $VYBE_DB_PATH.
func vybeDB(ts *testscript.TestScript) string {
	if p := testkit.BoardDB(ts); fileExists(p) {
		return p
	}
	return ts.Getenv("VYBE_DB_PATH")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
