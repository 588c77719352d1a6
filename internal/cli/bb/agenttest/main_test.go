// Package agenttest holds the black-box tests of `bb agent` and `bb events`:
// the real bb binary, built once, run in temporary directories.
package agenttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	// A throwaway PostgreSQL cluster for TestScriptsPostgres (skipped, with
	// the reason, when PostgreSQL is not installed).
	testkit.Main(m, testkit.Options{Commands: []string{"bb"}, BinDir: &binDir, Postgres: true})
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
			"jsonget":  testkit.Jset,
			"exitcode": testkit.Exits,
			"jset":     testkit.Jset,
			"jget":     testkit.Jget,
			"exits":    testkit.Exits,
		},
	}
}
