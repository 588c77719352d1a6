package faulttest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The SQLite -wal file deleted under a serving bb serve: the server saves
// what the deleted log held into the database file, reopens the board and
// goes on; every post it acknowledged, before and after, is in the board
// that a fresh process reads, once.
func TestDeletedWALUnderLoadLosesNothing(t *testing.T) {
	dir := initBoard(t)
	env := baseEnv(dir)
	srv := startServe(t, dir, env, 30*time.Second)
	d := newDriver(srv.url, 8, true)
	d.reads = true
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	d.waitAcked(t, 200, 20*time.Second, "before deleting the -wal")
	wal := filepath.Join(dir, ".bb", "blackboard.db-wal")
	if err := os.Remove(wal); err != nil {
		t.Fatal(err)
	}
	before := d.out.ackedCount()
	d.waitAcked(t, before+200, 20*time.Second, "after deleting the -wal")
	cancel()
	<-done

	if code, _ := srv.stop(t, syscall.SIGTERM, 15*time.Second); code != 0 {
		t.Errorf("bb serve exited %d", code)
	}
	stderr := srv.stderr.String()
	if n := countLines(stderr, "reopened the board"); n < 1 {
		t.Errorf("stderr does not say the board was reopened:\n%s", stderr)
	}
	for _, bad := range []string{"move it aside", "bb init", "damaged", "could not be saved"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr says %q:\n%s", bad, stderr)
		}
	}
	d.out.mu.Lock()
	for c, n := range d.out.codes {
		// Retried posts may meet a moment of unavailability; never an
		// internal error, nor advice about a damaged board.
		if !strings.HasPrefix(c, "503 ") {
			t.Errorf("answered %s %d times", c, n)
		}
	}
	d.out.mu.Unlock()
	db := stored(t, dir, env)
	checkAcknowledged(t, d.out, db)
	t.Logf("%d posts acknowledged (%d before the deletion), %d stored, errors answered: %v", len(d.out.acked), before, len(db), d.out.codes)
}
