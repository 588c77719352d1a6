package pgscript

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// binDir holds the binaries built once for this package.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "bb-pgscript-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("go", "build", "-o", dir, "github.com/blackboard-hub/bb/cmd/...")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the binaries:", err)
		return 1
	}
	binDir = dir
	return pgtest.Run(m)
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
