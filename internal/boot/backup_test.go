package boot_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backupUnderWriters backs up the board of src while 8 writers post, each
// counting the posts the board acknowledged, then restores the file into a
// new SQLite board: every post acknowledged before the backup started is
// there, and each writer's posts there are a prefix of its own sequence
// (one snapshot: nothing half-done, no gap).
func backupUnderWriters(t *testing.T, src boot.Config) {
	ctx := context.Background()
	b, err := boot.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const writers = 8
	var mu sync.Mutex
	acked := make([]int, writers)
	stop := make(chan struct{})
	started := make(chan struct{}, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := b.API.Post(ctx, hub.PostInput{From: fmt.Sprintf("writer-%d", w), Content: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				mu.Lock()
				acked[w] = i + 1
				mu.Unlock()
				if i == 20 {
					started <- struct{}{}
				}
			}
		}(w)
	}
	for w := 0; w < writers; w++ {
		<-started
	}
	mu.Lock()
	before := append([]int(nil), acked...)
	mu.Unlock()
	file := filepath.Join(t.TempDir(), "backup.db")
	res, err := boot.Backup(ctx, boot.BackupInput{From: src, To: file})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("backup: %v", err)
	}
	if res.Integrity != "ok" || res.Rows == 0 {
		t.Fatalf("backup result: %+v", res)
	}
	// Restore into a new board and read every post back.
	dir := t.TempDir()
	to := boot.Config{SQLitePath: filepath.Join(dir, "restored.db"), Create: true, InitEmpty: true, ProjectRoot: dir}
	rr, err := boot.Restore(ctx, boot.RestoreInput{From: file, To: to})
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	// The backup and its restore count the same tables and rows.
	if rr.Rows != res.Rows || len(rr.Tables) != len(res.Tables) {
		t.Errorf("backup counted %d rows in %d tables, its restore %d in %d", res.Rows, len(res.Tables), rr.Rows, len(rr.Tables))
	}
	to.Create = false
	rb, err := boot.Open(ctx, to)
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	x, err := rb.API.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, m := range x.Messages {
		have[m.Body] = true
	}
	for w := 0; w < writers; w++ {
		n := 0
		for have[fmt.Sprintf("w%d-%d", w, n)] {
			n++
		}
		if n < before[w] {
			t.Errorf("writer %d: %d posts acknowledged before the backup, %d restored", w, before[w], n)
		}
		for i := n; i < n+1000; i++ {
			if have[fmt.Sprintf("w%d-%d", w, i)] {
				t.Errorf("writer %d: post %d restored after a gap at %d", w, i, n)
				break
			}
		}
	}
	t.Logf("%s backup (%s): %d rows; acknowledged before it: %v", res.From.Backend, res.Method, res.Rows, before)
}

func TestBackupUnderWritersSQLite(t *testing.T) {
	dir := t.TempDir()
	backupUnderWriters(t, boot.Config{SQLitePath: filepath.Join(dir, "board.db"), Create: true, InitEmpty: true, ProjectRoot: dir})
}

func TestBackupUnderWritersPostgres(t *testing.T) {
	url := pgtest.URL(t)
	backupUnderWriters(t, boot.Config{DatabaseURL: url, ProjectRoot: t.TempDir()})
}

// A bad target or file changes nothing and says why in one line.
func TestBackupAndRestoreRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	board := boot.Config{SQLitePath: filepath.Join(dir, "board.db"), Create: true, InitEmpty: true, ProjectRoot: dir}
	b, err := boot.Open(ctx, board)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.API.Post(ctx, hub.PostInput{From: "alice", Content: "kept"}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	board.Create = false
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("not a database at all, just text"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.db")
	if _, err := boot.Backup(ctx, boot.BackupInput{From: board, To: ok}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  func() error
		code hub.Code
		says string
	}{
		{"onto the board", func() error {
			_, err := boot.Backup(ctx, boot.BackupInput{From: board, To: board.SQLitePath, Force: true})
			return err
		}, hub.CodeInvalidInput, "the board itself"},
		{"missing directory", func() error {
			_, err := boot.Backup(ctx, boot.BackupInput{From: board, To: filepath.Join(dir, "nope", "b.db")})
			return err
		}, hub.CodeInvalidInput, "does not exist"},
		{"existing file", func() error { _, err := boot.Backup(ctx, boot.BackupInput{From: board, To: ok}); return err }, hub.CodeConflict, "already exists"},
		{"not a board", func() error { _, err := boot.Restore(ctx, boot.RestoreInput{From: junk, To: board}); return err }, hub.CodeInvalidInput, "not a Blackboard backup"},
		{"newer than the binary", func() error {
			newer := filepath.Join(dir, "newer.db")
			if _, err := boot.Backup(ctx, boot.BackupInput{From: board, To: newer}); err != nil {
				return err
			}
			if err := setUserVersion(newer, 9999); err != nil {
				return err
			}
			_, err := boot.Restore(ctx, boot.RestoreInput{From: newer, To: board})
			return err
		}, hub.CodeSchemaTooNew, "newer than this bb"},
	} {
		err := c.err()
		var he *hub.Error
		if !errors.As(err, &he) || he.Code != c.code || !strings.Contains(he.Message, c.says) || strings.Contains(he.Message, "\n") {
			t.Errorf("%s: %v, want %s saying %q", c.name, err, c.code, c.says)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
		t.Error("a refused backup created its directory")
	}
	// The board is unchanged.
	b, err = boot.Open(ctx, board)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	msgs, err := b.API.Log(ctx, hub.LogQuery{Limit: 10})
	if err != nil || len(msgs) != 1 || msgs[0].Body != "kept" {
		t.Fatalf("board after refusals: %v %+v", err, msgs)
	}
}

// setUserVersion stamps a SQLite file with a schema version (a file from a
// newer bb).
func setUserVersion(path string, v int) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// restoreWhileServing: a restore is refused while a bb serve is connected
// to the board (the board unchanged), and done with Force.
func restoreWhileServing(t *testing.T, board boot.Config) {
	ctx := context.Background()
	b, err := boot.Open(ctx, board)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.API.Post(ctx, hub.PostInput{From: "alice", Content: "in the backup"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "b.db")
	if _, err := boot.Backup(ctx, boot.BackupInput{From: board, To: file}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.API.Post(ctx, hub.PostInput{From: "alice", Content: "after it"}); err != nil {
		t.Fatal(err)
	}
	// A bb serve on the board, as bb serve connects.
	served := board
	served.Create, served.ApplicationName = false, boot.ServeApplicationName
	release, err := boot.HoldServing(served)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := boot.Open(ctx, served)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	defer release()
	board.Create = false
	_, err = boot.Restore(ctx, boot.RestoreInput{From: file, To: board})
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != hub.CodeConflict || !strings.Contains(he.Message, "bb serve process(es) are connected") || strings.Contains(he.Message, "\n") {
		t.Fatalf("restore while serving: %v, want one CONFLICT line", err)
	}
	if msgs, err := srv.API.Log(ctx, hub.LogQuery{Limit: 10}); err != nil || len(msgs) != 2 {
		t.Fatalf("board after the refused restore: %v %d messages, want 2", err, len(msgs))
	}
	if _, err := boot.Restore(ctx, boot.RestoreInput{From: file, To: board, Force: true}); err != nil {
		t.Fatalf("restore --force: %v", err)
	}
	if msgs, err := srv.API.Log(ctx, hub.LogQuery{Limit: 10}); err != nil || len(msgs) != 1 || msgs[0].Body != "in the backup" {
		t.Fatalf("board after restore --force: %v %+v", err, msgs)
	}
}

func TestRestoreWhileServingSQLite(t *testing.T) {
	dir := t.TempDir()
	restoreWhileServing(t, boot.Config{SQLitePath: filepath.Join(dir, "board.db"), Create: true, InitEmpty: true, ProjectRoot: dir})
}

func TestRestoreWhileServingPostgres(t *testing.T) {
	restoreWhileServing(t, boot.Config{DatabaseURL: pgtest.URL(t), ProjectRoot: t.TempDir()})
}
