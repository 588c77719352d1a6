package boardtest

import (
	"bytes"
	"context"
	"database/sql"
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
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/hub"
)

// TestBoardScripts runs testdata/script/board/*.txtar against the built bb.
//
// Extra script commands:
//
//	exits <code> <prog> [args...]   run prog and require exactly that exit status
//	jget <path> <want>              the last stdout is JSON; the value at path
//	                                (dot-separated keys / array indexes, a final
//	                                "@len" for a length) equals want (strings raw,
//	                                anything else as compact JSON)
//	jenv <name> <path> [n]          set $name to the value at path of the last
//	                                JSON stdout (as jget renders it; its first
//	                                n characters with n, its last -n with n < 0)
//	dbq [-db file] <sql> <want>     one-value query on the board database
//	                                (default $WORK/.bb/blackboard.db)
//	seed [-db f] [-from a] [-to b] [-reply-to n] [-tag t] [-priority p] [-ago d] <n>
//	                                insert n messages through the store
func TestBoardScripts(t *testing.T) { runScripts(t, "board") }

// TestProductScripts runs testdata/script/product/*.txtar: one board used
// through every surface (bb, bb agent, agent-mail, vybe) at once.
func TestProductScripts(t *testing.T) { runScripts(t, "product") }

func runScripts(t *testing.T, dir string) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "..", "..", "testdata", "script", dir),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", binDir+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
			"jget":  cmdJget,
			"jenv":  cmdJenv,
			"dbq":   cmdDBQ,
			"seed":  cmdSeed,
		},
	})
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
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

func cmdJget(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jget <path> <want>")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	got, err := jsonAt(v, args[0])
	if err != nil {
		if neg {
			return
		}
		ts.Fatalf("%s: %v", args[0], err)
	}
	if (got == args[1]) == neg {
		if neg {
			ts.Fatalf("%s = %s, want anything else", args[0], got)
		}
		ts.Fatalf("%s = %s, want %s", args[0], got, args[1])
	}
}

func cmdJenv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: jenv <name> <path> [n]")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	got, err := jsonAt(v, args[1])
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if len(args) == 3 {
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		if n < 0 {
			got = got[max(0, len(got)+n):]
		} else {
			got = got[:min(n, len(got))]
		}
	}
	ts.Setenv(args[0], got)
}

// jsonAt renders the value at a dotted path of v.
func jsonAt(v any, path string) (string, error) {
	if path != "." && path != "" {
		for _, key := range strings.Split(path, ".") {
			switch x := v.(type) {
			case map[string]any:
				if key == "@len" {
					return strconv.Itoa(len(x)), nil
				}
				val, ok := x[key]
				if !ok {
					return "", fmt.Errorf("no key %q", key)
				}
				v = val
			case []any:
				if key == "@len" {
					return strconv.Itoa(len(x)), nil
				}
				i, err := strconv.Atoi(key)
				if err != nil || i < 0 || i >= len(x) {
					return "", fmt.Errorf("no index %q in an array of %d", key, len(x))
				}
				v = x[i]
			default:
				return "", fmt.Errorf("cannot index %T with %q", v, key)
			}
		}
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

func boardDB(ts *testscript.TestScript, db string) string {
	if db != "" {
		return ts.MkAbs(db)
	}
	return filepath.Join(ts.Getenv("WORK"), ".bb", "blackboard.db")
}

func cmdDBQ(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("dbq", flag.ContinueOnError)
	db := fs.String("db", "", "database file")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		ts.Fatalf("usage: dbq [-db file] <sql> <want>")
	}
	conn, err := sql.Open("sqlite", "file:"+boardDB(ts, *db)+"?mode=ro")
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

func cmdSeed(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	db := fs.String("db", "", "database file")
	from := fs.String("from", "seed", "sender")
	replyTo := fs.Int64("reply-to", 0, "parent seq")
	tag := fs.String("tag", "", "tag")
	prio := fs.String("priority", "normal", "priority")
	ago := fs.Duration("ago", 0, "age of the first message (each next is 1s later)")
	to := fs.String("to", "", "recipient of a direct message (default: a broadcast)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 || neg {
		ts.Fatalf("usage: seed [-db f] [-from a] [-to b] [-reply-to n] [-tag t] [-priority p] [-ago d] <n>")
	}
	n, err := strconv.Atoi(fs.Arg(0))
	ts.Check(err)
	clock, err := hub.ClockFromEnv(ts.Getenv("BB_NOW"))
	ts.Check(err)
	o := SeedOptions{From: *from, To: *to, ReplyTo: *replyTo, Priority: hub.Priority(*prio), Start: clock.Now().Add(-*ago), Step: time.Second}
	if *tag != "" {
		o.Tags = []string{*tag}
	}
	ts.Check(seedBoard(context.Background(), boardDB(ts, *db), n, o))
}

// TestGuardScripts runs testdata/script/guard/*.txtar: bb guard with a real
// git (skipped where git is missing).
func TestGuardScripts(t *testing.T) { runScripts(t, "guard") }
