package mcp

import (
	"os"
	"path/filepath"
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
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", filepath.Dir(bbBin)+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("BBEXE", bbBin)
			return os.MkdirAll(filepath.Join(e.WorkDir, "home"), 0o755)
		},
	})
}
