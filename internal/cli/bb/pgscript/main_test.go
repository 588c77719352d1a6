package pgscript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
	"github.com/blackboard-hub/bb/internal/testkit"
)

// binDir holds the binaries built once for this package.
var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb", "vybe", "agent-mail"}, BinDir: &binDir, Postgres: true})
}

func bin(name string) string { return filepath.Join(binDir, name) }

// TestScripts runs testdata/script/postgres/*.txtar. Each script gets two
// empty databases, $PGURL and $PGURL2, and bb on $PATH.
func TestScripts(t *testing.T) {
	pgtest.Require(t)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("..", "..", "..", "..", "testdata", "script", "postgres"),
		Setup: func(e *testscript.Env) error {
			for _, v := range []string{"PGURL", "PGURL2"} {
				u, drop, err := pgtest.NewDatabase(filepath.Base(e.WorkDir) + v)
				if err != nil {
					return err
				}
				e.Defer(func() {
					if err := drop(); err != nil {
						e.T().Log(err)
					}
				})
				e.Setenv(v, u)
			}
			e.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			e.Setenv("BB_NOW", "2026-11-21T22:00:00Z")
			e.Setenv("HOME", e.WorkDir)
			return nil
		},
	})
}
