package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// destructive is the advice that must never be given about a board that is
// intact: to move it aside, re-initialise it, or rebuild it as damaged.
var destructive = []string{"move it aside", "bb init", "damaged", ".recover"}

// fillBoard opens a board at path and posts n messages, which stay in its
// -wal file (no checkpoint) while the returned store is open.
func fillBoard(t *testing.T, path string, n int) *hub.Service {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{Create: true, LogResetBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := hub.NewService(st, nil, t.TempDir())
	for i := range n {
		if _, err := svc.Post(ctx, hub.PostInput{From: "pat", Content: fmt.Sprintf("m%d %s", i, strings.Repeat("x", 300))}); err != nil {
			t.Fatal(err)
		}
	}
	return svc
}

// readBoard opens the board at path in a new store (another process) and
// reads its log, returning the first failure.
func readBoard(path string) error {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = hub.NewService(st, nil, "").Log(ctx, hub.LogQuery{})
	return err
}

// quickCheck runs SQLite's own integrity check on the file at path alone
// (ignoring its -wal), independently of the code under test.
func quickCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return err.Error()
	}
	return res
}

// Each message about a file that cannot be read is true of that file:
// advice to move it aside or rebuild it only for a file that is not a board
// or is damaged, never for an intact board whose -wal file was deleted or
// replaced under a process that has it open.
func TestFileAdviceIsTrue(t *testing.T) {
	t.Run("deleted log, replaced by another connection's", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.db")
		fillBoard(t, path, 30)
		// The log is deleted while the board is open; a connection
		// opened later writes a new one at the offsets of the old frames:
		// zeros where the old log had its frames.
		cur, err := os.ReadFile(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path + "-wal"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+"-wal", make([]byte, len(cur)), 0o644); err != nil {
			t.Fatal(err)
		}
		err = readBoard(path)
		if err == nil {
			t.Fatal("read a board whose log is zeros")
		}
		for _, bad := range destructive {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("message advises %q for an intact board: %v", bad, err)
			}
		}
		if !strings.Contains(err.Error(), "the database file itself is intact") {
			t.Errorf("message does not say the file is intact: %v", err)
		}
		// And it is.
		if res := quickCheck(t, path); res != "ok" {
			t.Errorf("the message says intact, SQLite says %q", res)
		}
	})
	t.Run("deleted log", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.db")
		fillBoard(t, path, 30)
		if err := os.Remove(path + "-wal"); err != nil {
			t.Fatal(err)
		}
		err := readBoard(path)
		if err == nil {
			t.Fatal("read a board whose log is gone")
		}
		for _, bad := range destructive {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("message advises %q for an intact board: %v", bad, err)
			}
		}
		if !strings.Contains(err.Error(), "the database file itself is intact") {
			t.Errorf("message does not say the file is intact: %v", err)
		}
		if res := quickCheck(t, path); res != "ok" {
			t.Errorf("the message says intact, SQLite says %q", res)
		}
	})
	t.Run("not an SQLite file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("this is a text file, not SQLite\n", 200)), 0o644); err != nil {
			t.Fatal(err)
		}
		err := readBoard(path)
		if err == nil || !strings.Contains(err.Error(), "not an SQLite file): move it aside and run 'bb init'") {
			t.Fatalf("err = %v, want the advice to move it aside", err)
		}
		// And it is not one: no SQLite header.
		f, _ := os.Open(path)
		head := make([]byte, 16)
		_, _ = io.ReadFull(f, head)
		f.Close()
		if string(head) == "SQLite format 3\x00" {
			t.Error("the advice was given for an SQLite file")
		}
	})
	t.Run("damaged file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.db")
		st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		svc := hub.NewService(st, nil, t.TempDir())
		for i := range 40 {
			if _, err := svc.Post(context.Background(), hub.PostInput{From: "pat", Content: fmt.Sprintf("m%d %s", i, strings.Repeat("x", 400))}); err != nil {
				t.Fatal(err)
			}
		}
		st.Close() // the last close folds the log into the file
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		if _, err := f.WriteAt([]byte(strings.Repeat("\xff", int(fi.Size())/2)), fi.Size()/4); err != nil {
			t.Fatal(err)
		}
		f.Close()
		err = readBoard(path)
		if err == nil || !strings.Contains(err.Error(), "is damaged: stop every bb process, keep a copy") {
			t.Fatalf("err = %v, want the advice to rebuild a damaged file", err)
		}
		// And it is damaged.
		if res := quickCheck(t, path); res == "ok" {
			t.Error("the file was called damaged, SQLite finds it intact")
		}
	})
}
