package boardtest

import (
	"context"
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
	"github.com/blackboard-hub/bb/internal/testkit"
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
		Condition:           needTool,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", binDir+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": testkit.Exits,
			"jget":  testkit.Jget,
			"jenv":  cmdJenv,
			"dbq":   testkit.DBQ(testkit.BoardDB),
			"seed":  cmdSeed,
		},
	})
}

// needTool answers the condition need:<program>: whether the program is on
// PATH. Under CI=true a missing program is an error, not a skip (.ci/run
// installs it).
func needTool(cond string) (bool, error) {
	prog, ok := strings.CutPrefix(cond, "need:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath(prog); err != nil {
		if os.Getenv("CI") == "true" {
			return false, fmt.Errorf("%s is not installed, and CI=true: .ci/run installs it", prog)
		}
		return false, nil
	}
	return true, nil
}

func boardDB(ts *testscript.TestScript, db string) string {
	if db != "" {
		return ts.MkAbs(db)
	}
	return filepath.Join(ts.Getenv("WORK"), ".bb", "blackboard.db")
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

// cmdJenv is `jenv <name> <path> [n]`: set $name to the value at path of
// the last JSON stdout (its first n characters, or its last -n with n < 0).
func cmdJenv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: jenv <name> <path> [n]")
	}
	got, err := testkit.JSONAt(ts.ReadFile("stdout"), args[1])
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
