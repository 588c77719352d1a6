package boot

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// BenchmarkGuard measures what the long-lived store's fault checks (a stat
// of the board file and of its -wal before each call, and of the -wal
// after each write) add to a small read and a small write: "raw" is the
// SQLite store alone, "guarded" the same store behind guarded.
func BenchmarkGuard(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	cfg := Config{SQLitePath: filepath.Join(dir, "blackboard.db"), Create: true, LongLived: true}
	st, err := openStore(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	g := newGuarded(st, cfg)
	stores := []struct {
		name string
		st   hub.Store
	}{{"raw", st}, {"guarded", g}}
	now := time.Now()
	for _, s := range stores {
		b.Run("read/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if err := s.st.Read(ctx, func(tx hub.Tx) error { _, err := tx.LastEventSeq(ctx); return err }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, s := range stores {
		b.Run("write/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if err := s.st.Write(ctx, func(tx hub.Tx) error { return tx.TouchAgent(ctx, "pat", now) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
