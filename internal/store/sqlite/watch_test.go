package sqlite_test

import (
	"context"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/storetest"
)

// Idle, with three followers of the timeline open, a long-lived process
// reads nothing: the feed waits for the board's files to change (inotify)
// instead of polling every 50 ms. A commit by another process (another
// store on the same file, which this one hears of only through the file)
// still reaches the followers at once.
func TestIdleFollowersReadNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file notifications are used on Linux only; elsewhere the feed polls")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "board.db")
	o := sqlite.Options{Create: true, CheckpointEvery: 250 * time.Millisecond, NoMemoryMap: true}
	st, err := sqlite.Open(ctx, path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	clock := &storetest.Clock{T: storetest.T0()}
	svc := hub.NewService(st, clock, t.TempDir())
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var got atomic.Int64
	done := make(chan error, 3)
	for range 3 {
		started := make(chan struct{})
		go func() {
			done <- svc.Follow(fctx, hub.FollowInput{Started: func(int64) error { close(started); return nil }},
				func(hub.Event) error { got.Add(1); return nil })
		}()
		<-started
	}
	time.Sleep(300 * time.Millisecond) // watching, first catch-up done
	before := st.Stats()
	const quiet = 3 * time.Second
	time.Sleep(quiet)
	after := st.Stats()
	tx, stmts := after.Transactions-before.Transactions, after.Statements-before.Statements
	t.Logf("idle for %s with 3 followers: %d transactions, %d statements", quiet, tx, stmts)
	// At most the safety poll (hub.FeedSafetyPoll, 30 s) once.
	if tx > 1 {
		t.Errorf("idle for %s: %d read transactions (%d statements), want at most the one safety poll", quiet, tx, stmts)
	}
	sent := time.Now()
	if err := other.Write(ctx, func(tx hub.Tx) error {
		return tx.AppendEvent(ctx, &hub.Event{Type: "test.wake", CreatedAt: clock.T})
	}); err != nil {
		t.Fatal(err)
	}
	for got.Load() < 3 && time.Since(sent) < 3*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	if n := got.Load(); n != 3 {
		t.Fatalf("3 followers received %d events of a commit made by another process", n)
	}
	if d := time.Since(sent); d > time.Second {
		t.Errorf("a commit by another process reached the followers after %s (the file signal should wake them at once)", d)
	}
	cancel()
	for range 3 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
