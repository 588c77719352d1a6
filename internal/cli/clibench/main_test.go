// Package clibench measures what one command costs as a whole process
// (start, open, work, exit) against the floor: a minimal Go program that
// opens the same SQLite file with the same driver and settings, inserts one
// row and exits (testdata/floor). It holds benchmarks and the test of the
// floor itself; nothing here is linked into a binary.
package clibench

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" driver, to prepare the floor's table

	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb", "agent-mail", "vybe"}, BinDir: &binDir})
}

// buildFloor compiles testdata/floor into the binaries' folder.
func buildFloor(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(binDir, "floor")
	if b, err := exec.Command("go", "build", "-o", out, "./testdata/floor").CombinedOutput(); err != nil {
		tb.Fatalf("building the floor: %v\n%s", err, b)
	}
	return out
}

// board is a git project with an initialised board, the floor's table,
// two registered agents and a Claude Code session that holds src/a.go.
type board struct {
	dir, db string
	env     []string
}

func newBoard(tb testing.TB) *board {
	tb.Helper()
	dir := tb.TempDir()
	b := &board{dir: dir, db: filepath.Join(dir, ".bb", "blackboard.db")}
	b.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"AGENT_MAIL_DB=" + b.db, "VYBE_DB_PATH=" + b.db,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package x\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	b.run(tb, nil, "git", "init", "-q")
	b.run(tb, nil, "git", "add", ".")
	b.run(tb, nil, "git", "commit", "-qm", "init")
	b.run(tb, nil, b.bin("bb"), "init")
	b.run(tb, nil, b.bin("bb"), "agent", "register", "--name", "bench-alice", "--role", "worker")
	b.run(tb, nil, b.bin("bb"), "agent", "register", "--name", "bench-bob", "--role", "worker")
	db, err := sql.Open("sqlite", "file:"+b.db)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE bench_floor (n INTEGER PRIMARY KEY, at INTEGER NOT NULL)`); err != nil {
		tb.Fatal(err)
	}
	return b
}

func (b *board) bin(name string) string { return filepath.Join(binDir, name) }

// run runs a program in the project and returns its stdout (fails on a
// non-zero exit).
func (b *board) run(tb testing.TB, stdin []byte, name string, args ...string) string {
	tb.Helper()
	c := exec.Command(name, args...)
	c.Dir, c.Env, c.Stdin = b.dir, b.env, bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s%s", filepath.Base(name), args, err, out.String(), errb.String())
	}
	return out.String()
}

// TestFloorInsertsOneRow: the yardstick does what it claims, one row per
// run into the board's file, and fails loudly on a file that is not a board.
func TestFloorInsertsOneRow(t *testing.T) {
	floor := buildFloor(t)
	b := newBoard(t)
	for range 2 {
		b.run(t, nil, floor, b.db)
	}
	db, err := sql.Open("sqlite", "file:"+b.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM bench_floor`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("bench_floor holds %d rows after 2 runs, want 2", n)
	}
	if err := exec.Command(floor, filepath.Join(t.TempDir(), "none.db")).Run(); err == nil {
		t.Fatal(fmt.Errorf("floor on a file without the table exited 0"))
	}
}
