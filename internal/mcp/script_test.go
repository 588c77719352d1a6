package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMCPScripts runs testdata/script/mcp/*.txtar (bb install and bb mcp
// from the command line) against the built bb. $BBEXE is the binary's
// absolute path, as written into client configurations; HOME is
// $WORK/home.
func TestMCPScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script", "mcp"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		// BB_UPDATE_SCRIPTS=1 rewrites the expected files of a failing
		// cmp from the output (review the diff before committing).
		UpdateScripts: os.Getenv("BB_UPDATE_SCRIPTS") != "",
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", filepath.Dir(bbBin)+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("BBEXE", bbBin)
			return os.MkdirAll(filepath.Join(e.WorkDir, "home"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// cmpwork file want: file equals want with $WORK, and only
			// $WORK, replaced (hook entries hold ${session_id}-style
			// placeholders and shell text that cmpenv would expand).
			"cmpwork": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: cmpwork file want")
				}
				got := ts.ReadFile(args[0])
				want := strings.ReplaceAll(ts.ReadFile(args[1]), "$WORK", ts.Getenv("WORK"))
				if got != want {
					ts.Logf("%s:\n%s\nwant (%s):\n%s", args[0], got, args[1], want)
					ts.Fatalf("%s and %s differ", args[0], args[1])
				}
			},
			// hardlink src dst: a second name for a binary. A copy would be
			// written through a file descriptor that a process forked at
			// that moment by a parallel script inherits, and executing the
			// copy then fails with "text file busy".
			"hardlink": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: hardlink src dst")
				}
				ts.Check(os.Link(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
			},
		},
	})
}
