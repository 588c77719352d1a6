package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// writeMegabytes commits about mb megabytes of messages in transactions of
// 100 (well past SQLite's 1,000-page automatic checkpoint).
func writeMegabytes(t *testing.T, st hub.Store, mb int) {
	t.Helper()
	ctx := context.Background()
	body := strings.Repeat("x", 3000)
	for b := 0; b < mb*1000/300; b++ {
		err := st.Write(ctx, func(tx hub.Tx) error {
			for i := 0; i < 100; i++ {
				m := hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%06d%06d", b, i), From: "a", To: hub.Broadcast, Body: body, CreatedAt: time.Now()}
				if err := tx.InsertMessage(ctx, &m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestCheckpointsLeaveTheCommits: with CheckpointEvery (bb serve, bb mcp)
// no commit copies the write-ahead log into the database file — a process
// that commits 6 MB leaves them all in the log while the background
// checkpoint waits — and the background checkpoint then does copy them.
// Without it SQLite's automatic checkpoint runs inside the commits.
func TestCheckpointsLeaveTheCommits(t *testing.T) {
	ctx := context.Background()
	open := func(every time.Duration) (hub.Store, string) {
		path := filepath.Join(t.TempDir(), "bb.db")
		st, err := sqlite.Open(ctx, path, sqlite.Options{Create: true, CheckpointEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, path
	}
	const mb = 6
	st, path := open(0)
	writeMegabytes(t, st, mb)
	if n := fileSize(t, path); n < 2<<20 {
		t.Fatalf("without background checkpoints the database file is %d bytes: the commits did not checkpoint", n)
	}

	st, path = open(time.Hour)
	writeMegabytes(t, st, mb)
	if n := fileSize(t, path); n >= 2<<20 {
		t.Fatalf("with background checkpoints a commit checkpointed: the database file is %d bytes", n)
	}
	if n := fileSize(t, path+"-wal"); n < mb<<20 {
		t.Fatalf("the log holds %d bytes, want the %d MB written", n, mb)
	}

	st, path = open(10 * time.Millisecond)
	writeMegabytes(t, st, mb)
	for deadline := time.Now().Add(30 * time.Second); fileSize(t, path) < mb<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the background checkpoint never copied the log: database file %d bytes", fileSize(t, path))
		}
	}
}
