package hardentest

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// Each environment failure answers in one line that names the cause and the
// fix, never SQLite's own text ("database disk image is malformed (11)").

func dbPath(dir string) string { return filepath.Join(dir, ".bb", "blackboard.db") }

// failsWith runs bb args in dir and requires exit 1 with one error line
// holding want, and the same in --json (the envelope with code).
func failsWith(t *testing.T, dir, code, want string, args ...string) {
	t.Helper()
	r := runIn(t, dir, nil, "bb", args...)
	line := strings.TrimSuffix(r.stderr, "\n")
	if r.code != 1 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "Error ["+code+"]: ") || !strings.Contains(line, want) {
		t.Fatalf("bb %v: exit %d\nstderr %q\nwant one line with [%s] %q", args, r.code, r.stderr, code, want)
	}
	for _, raw := range []string{"(11)", "(26)", "(14)", "(1544)", "(4874)", "malformed", "unable to open", "database operation failed"} {
		if strings.Contains(line, raw) {
			t.Fatalf("bb %v: raw SQLite text %q in %q", args, raw, line)
		}
	}
	r = runIn(t, dir, nil, "bb", append([]string{"--json"}, args...)...)
	if r.code != 1 || jsonField(t, r.stdout, "error.code") != code {
		t.Fatalf("bb --json %v: exit %d %s", args, r.code, r.stdout)
	}
}

func TestZeroLengthDatabaseIsNotANewBoard(t *testing.T) {
	dir := newBoard(t)
	must(t, dir, nil, "bb", "--as", "alice", "post", "kept")
	for _, f := range []string{"", "-wal", "-shm"} {
		os.Remove(dbPath(dir) + f)
	}
	if err := os.WriteFile(dbPath(dir), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Emptied a while ago: an empty file modified in the last seconds may
	// be a database another process is creating, which is waited for.
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(dbPath(dir), old, old); err != nil {
		t.Fatal(err)
	}
	failsWith(t, dir, "IO_READ_FAILED", "is empty (0 bytes)", "log")
	failsWith(t, dir, "IO_READ_FAILED", "run 'bb init' to start a new, empty board", "--as", "alice", "post", "x")
	// One rule on every surface: agent-mail and vybe, which create a
	// missing database, refuse an empty one too.
	r := runIn(t, dir, []string{"AGENT_MAIL_DB=" + dbPath(dir)}, "agent-mail", "read", "proj:bob")
	if r.code != 1 || !strings.Contains(r.stderr, "is empty (0 bytes)") || !strings.HasPrefix(r.stderr, `{"error": `) {
		t.Errorf("agent-mail on an empty file: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runIn(t, dir, vybeEnv(dir), "vybe", "--agent", "amber", "--request-id", "z1", "task", "create", "--title", "t")
	if r.code != 1 || !strings.Contains(r.stdout, "is empty (0 bytes)") || jsonField(t, r.stdout, "success") != "false" {
		t.Errorf("vybe on an empty file: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if fi, _ := os.Stat(dbPath(dir)); fi.Size() != 0 {
		t.Fatalf("the empty file was initialised by a command other than bb init (%d bytes)", fi.Size())
	}
	// bb init, run on purpose, starts a new board in it.
	must(t, dir, nil, "bb", "init")
	if r := must(t, dir, nil, "bb", "log"); !strings.Contains(r.stdout, "No messages") {
		t.Fatalf("after bb init: %s", r.stdout)
	}
}

func TestDirectoryWhereTheDatabaseShouldBe(t *testing.T) {
	dir := newBoard(t)
	for _, f := range []string{"", "-wal", "-shm"} {
		os.Remove(dbPath(dir) + f)
	}
	if err := os.Mkdir(dbPath(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	failsWith(t, dir, "IO_READ_FAILED", "is a directory, not the database file: move it aside", "log")
	failsWith(t, dir, "IO_READ_FAILED", "is a directory", "init")
}

func TestNotADatabaseFile(t *testing.T) {
	dir := newBoard(t)
	for _, f := range []string{"-wal", "-shm"} {
		os.Remove(dbPath(dir) + f)
	}
	if err := os.WriteFile(dbPath(dir), []byte(strings.Repeat("this is a text file, not SQLite\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	failsWith(t, dir, "IO_READ_FAILED", "is not a Blackboard database (not an SQLite file)", "log")
	failsWith(t, dir, "IO_READ_FAILED", "move it aside and run 'bb init'", "status")
}

func TestCorruptDatabase(t *testing.T) {
	dir := newBoard(t)
	for i := range 40 {
		must(t, dir, nil, "bb", "--as", "alice", "post", fmt.Sprintf("message %d %s", i, strings.Repeat("x", 400)))
	}
	// Closing with sqlite3_close checkpoints the WAL into the file; then
	// damage pages in the middle of the file.
	checkpoint(t, dir)
	f, err := os.OpenFile(dbPath(dir), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff", int(fi.Size())/2)), fi.Size()/4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	failsWith(t, dir, "IO_READ_FAILED", "is damaged: stop every bb process, keep a copy", "log")
	failsWith(t, dir, "IO_READ_FAILED", ".recover", "log")
}

// checkpoint folds the WAL into the database file, as a clean close would
// (bb leaves that to the next opener).
func checkpoint(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", dbPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"-wal", "-shm"} {
		os.Remove(dbPath(dir) + f)
	}
}

// mountTmpfs mounts a tmpfs of size bytes at dir; it needs root and skips
// otherwise.
func mountTmpfs(t *testing.T, dir string, size int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
}

// TestReadOnlyBoard: a board on a read-only file system (root ignores file
// modes, so the test remounts a tmpfs read-only; as another user it
// removes the write bits) still answers reads, and a write says why it
// cannot be done and what to do.
func TestReadOnlyBoard(t *testing.T) {
	dir := t.TempDir()
	root := os.Geteuid() == 0
	if root {
		mountTmpfs(t, dir, 8<<20)
	}
	must(t, dir, nil, "bb", "init")
	must(t, dir, nil, "bb", "--as", "alice", "post", "written before")
	must(t, dir, nil, "bb", "--as", "alice", "artifact", "add", "a.md", "doc")
	if root {
		if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot remount read-only: %v %s", err, out)
		}
	} else {
		for _, p := range []string{dbPath(dir), dbPath(dir) + "-wal", dbPath(dir) + "-shm", filepath.Dir(dbPath(dir))} {
			_ = os.Chmod(p, 0o555)
		}
		t.Cleanup(func() { _ = os.Chmod(filepath.Dir(dbPath(dir)), 0o755) })
	}
	// Reads that also write as they read (an identified caller's check-in
	// and read cursor, the status board storing offline agents) answer
	// too: the side effect is skipped on a board that cannot take it.
	for _, read := range [][]string{{"log"}, {"message", "1"}, {"artifacts"}, {"events"}, {"export"},
		{"status"}, {"summary"}, {"--as", "alice", "log"}, {"--as", "alice", "status"}, {"--as", "alice", "summary"}} {
		if r := runIn(t, dir, nil, "bb", read...); r.code != 0 {
			t.Errorf("bb %v on a read-only board: exit %d %s", read, r.code, r.stderr)
		}
	}
	if r := must(t, dir, nil, "bb", "log"); !strings.Contains(r.stdout, "written before") {
		t.Fatalf("read-only log lost data: %s", r.stdout)
	}
	failsWith(t, dir, "IO_WRITE_FAILED", "is read-only (the file or its directory", "--as", "alice", "post", "more")
	failsWith(t, dir, "IO_WRITE_FAILED", "make both writable", "--as", "alice", "status", "set", "x")
}

// TestDiskFull fills a tiny tmpfs: the failing write says the disk is full
// and what to do, and everything written before stays readable.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	// 4 MiB: a new board's schema is about 0.5 MiB, and bb init's
	// migrations pass through the write-ahead log first (as much again)
	// before it is folded into the board, so 1 MiB was full by the end of
	// init and not a single post went in.
	mountTmpfs(t, dir, 4<<20)
	must(t, dir, nil, "bb", "init")
	big := strings.Repeat("0123456789abcdef", 256)
	posted := 0
	var last result
	for i := 0; i < 2000; i++ {
		last = runIn(t, dir, nil, "bb", "--as", "alice", "post", fmt.Sprintf("m%d %s", i, big))
		if last.code != 0 {
			break
		}
		posted++
	}
	if last.code != 1 || posted == 0 {
		t.Fatalf("posted %d, then exit %d %s", posted, last.code, last.stderr)
	}
	if !strings.Contains(last.stderr, "Error [IO_WRITE_FAILED]: the disk holding") || !strings.Contains(last.stderr, "is full: free some space and retry") {
		t.Fatalf("disk full: %q", last.stderr)
	}
	r := must(t, dir, nil, "bb", "--json", "log", "--limit", "1")
	if got := jsonField(t, r.stdout, "data.0.id"); got != fmt.Sprint(posted) {
		t.Fatalf("newest message after the disk filled: %s, want %d", got, posted)
	}
}
