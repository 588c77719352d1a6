package agentmail_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/testkit"
)

// TestScripts runs testdata/script/agentmail/*.txtar against the built
// agent-mail. Extra command:
//
//	exits <code> <prog> [args...]   run prog and require exactly that exit status
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "..", "testdata", "script", "agentmail"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", filepath.Dir(amBin)+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("TZ", "UTC")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": testkit.Exits,
		},
	})
}
