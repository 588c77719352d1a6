// Package testkit is what the black-box test packages share: a TestMain
// that builds the real binaries once (and, when asked, starts a throwaway
// PostgreSQL), and the extra testscript commands of the script suites.
// It is imported by tests only.
package testkit

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite" // the "sqlite" driver of dbq

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

const module = "github.com/blackboard-hub/bb/cmd/"

// Options says what Main prepares.
type Options struct {
	// Commands are the programs of cmd/ to build: "bb", "vybe",
	// "agent-mail".
	Commands []string
	// BinDir receives the directory that holds them.
	BinDir *string
	// Postgres starts a throwaway PostgreSQL cluster for the tests that
	// want one (tests skip with the reason when it is not installed).
	Postgres bool
	// Built, when set, is told the directory before the tests run.
	Built func(binDir string)
	// After, when set, runs once the tests are done.
	After func()
}

// Main builds the binaries (or finds them up to date), runs the package's
// tests and exits with the tests' status.
func Main(m *testing.M, o Options) {
	os.Exit(run(m, o))
}

func run(m *testing.M, o Options) int {
	if o.After != nil {
		defer o.After()
	}
	dir, err := binaries(o.Commands)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if o.BinDir != nil {
		*o.BinDir = dir
	}
	if o.Built != nil {
		o.Built(dir)
	}
	if o.Postgres {
		return pgtest.Run(m)
	}
	return m.Run()
}

// binaries builds the commands into one directory shared by every test
// package of this checkout (named after the module's directory), under a
// lock: the packages of one go test ./... run then link each binary once
// between them instead of once each (about 9 s of CPU per package), and on
// a cold build cache they wait for the first build instead of compiling
// the same packages side by side. go build leaves a binary that is up to
// date as it is, and replaces one the sources have changed since.
func binaries(commands []string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root := moduleRoot(wd)
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), "bb-test-bin-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if len(commands) == 0 {
		return dir, nil
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", fmt.Errorf("locking %s: %w", dir, err)
	}
	defer unlock()
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	for _, name := range commands {
		args = append(args, module+name)
	}
	// Built as the README builds bb: without cgo (Go's own DNS
	// resolver and user lookup; a hook process starts 9% cheaper).
	build := exec.Command("go", args...)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", strings.Join(commands, ", "), err, out)
	}
	return dir, nil
}

// moduleRoot is the directory of the go.mod above dir (dir itself when
// there is none).
func moduleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// Cmd is an extra testscript command.
type Cmd = func(ts *testscript.TestScript, neg bool, args []string)

// Exits is `exits <code> <prog> [args...]`: run prog and require exactly
// that exit status.
func Exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits <code> <prog> [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exec %s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// Jget is `jget <path> <want>`: the last stdout is JSON and the value at
// path (dot-separated keys and array indexes; a final "@len" gives a
// length) equals want — strings raw, anything else as compact JSON, a
// missing value as null.
func Jget(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jget <path> <want>")
	}
	got, err := JSONAt(ts.ReadFile("stdout"), args[0])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if (got == args[1]) == neg {
		if neg {
			ts.Fatalf("%s = %s, want anything else", args[0], got)
		}
		ts.Fatalf("%s = %s, want %s", args[0], got, args[1])
	}
}

// Jset is `jset <VAR> <path>`: save the value at path of the last stdout's
// JSON (as jget renders it) in an environment variable.
func Jset(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: jset <VAR> <path> [<first n characters>]")
	}
	got, err := JSONAt(ts.ReadFile("stdout"), args[1])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if got == "null" {
		ts.Fatalf("%s: no value", args[1])
	}
	if len(args) == 3 {
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 1 {
			ts.Fatalf("jset: bad length %q", args[2])
		}
		got = got[:min(n, len(got))]
	}
	ts.Setenv(args[0], got)
}

// JSONAt renders the value at path of the JSON document doc as Jget
// compares it.
func JSONAt(doc, path string) (string, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("stdout is not JSON: %v", err)
	}
	length := false
	if p, ok := strings.CutSuffix(path, "@len"); ok {
		path, length = strings.TrimSuffix(p, "."), true
	}
	if path != "." && path != "" {
		for _, key := range strings.Split(path, ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[key]
			case []any:
				i, err := strconv.Atoi(key)
				if err != nil || i < 0 || i >= len(x) {
					v = nil
				} else {
					v = x[i]
				}
			default:
				v = nil
			}
		}
	}
	if length {
		switch x := v.(type) {
		case map[string]any:
			return strconv.Itoa(len(x)), nil
		case []any:
			return strconv.Itoa(len(x)), nil
		case nil:
			return "0", nil
		}
		return "", fmt.Errorf("%s is not a list or an object", path)
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// DBQ returns `dbq [-db file] <sql> <want>`: a one-value query on an SQLite
// database, read-only — the -db file, else defaultDB's. NULL reads "NULL".
func DBQ(defaultDB func(ts *testscript.TestScript) string) Cmd {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		fs := flag.NewFlagSet("dbq", flag.ContinueOnError)
		db := fs.String("db", "", "database file")
		if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
			ts.Fatalf("usage: dbq [-db file] <sql> <want>")
		}
		p := defaultDB(ts)
		if *db != "" {
			p = ts.MkAbs(*db)
		}
		conn, err := sql.Open("sqlite", "file:"+p+"?mode=ro")
		ts.Check(err)
		defer conn.Close()
		var got sql.NullString
		if err := conn.QueryRow(fs.Arg(0)).Scan(&got); err != nil {
			ts.Fatalf("dbq %q: %v", fs.Arg(0), err)
		}
		val := got.String
		if !got.Valid {
			val = "NULL"
		}
		if (val == fs.Arg(1)) == neg {
			ts.Fatalf("dbq %q = %s, want %s%s", fs.Arg(0), val, map[bool]string{true: "not ", false: ""}[neg], fs.Arg(1))
		}
	}
}

// DBExec is the script command `dbexec <file> <sql>`: one statement on a
// SQLite file, written (e.g. stamping a file with a newer schema version).
func DBExec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: dbexec <file> <sql>")
	}
	conn, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0]))
	ts.Check(err)
	defer conn.Close()
	if _, err := conn.Exec(args[1]); err != nil {
		ts.Fatalf("dbexec %q: %v", args[1], err)
	}
}

// BoardDB is the board database of a script's work directory.
func BoardDB(ts *testscript.TestScript) string {
	return filepath.Join(ts.Getenv("WORK"), ".bb", "blackboard.db")
}

// Run runs cmd and returns its stdout, stderr and exit status; a command
// that cannot start fails tb.
func Run(tb testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	tb.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("run %s: %v", cmd.Path, err)
	}
	return out.String(), errb.String(), code
}
