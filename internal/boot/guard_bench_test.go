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
// after each write) add to a small read and a small write. Each iteration
// runs the call once on the SQLite store alone and once through guarded,
// alternately, so that both see the same machine; it reports the time of
// each (raw-ns/op, guarded-ns/op) and their ratio (guarded/raw).
func BenchmarkGuard(b *testing.B) {
	ctx := context.Background()
	cfg := Config{SQLitePath: filepath.Join(b.TempDir(), "blackboard.db"), Create: true, LongLived: true}
	st, err := openStore(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	g := newGuarded(st, cfg)
	now := time.Now()
	for _, c := range []struct {
		name string
		call func(hub.Store) error
	}{
		{"read", func(s hub.Store) error {
			return s.Read(ctx, func(tx hub.Tx) error { _, err := tx.LastEventSeq(ctx); return err })
		}},
		{"write", func(s hub.Store) error {
			return s.Write(ctx, func(tx hub.Tx) error { return tx.TouchAgent(ctx, "pat", now) })
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var raw, guarded time.Duration
			n := 0
			// The order alternates too: the second call of a pair finds
			// the connection and the page cache the first one left.
			first, second := hub.Store(st), hub.Store(g)
			dFirst, dSecond := &raw, &guarded
			for b.Loop() {
				t0 := time.Now()
				if err := c.call(first); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := c.call(second); err != nil {
					b.Fatal(err)
				}
				*dFirst += t1.Sub(t0)
				*dSecond += time.Since(t1)
				first, second, dFirst, dSecond = second, first, dSecond, dFirst
				n++
			}
			b.ReportMetric(float64(raw.Nanoseconds())/float64(n), "raw-ns/op")
			b.ReportMetric(float64(guarded.Nanoseconds())/float64(n), "guarded-ns/op")
			b.ReportMetric(float64(guarded)/float64(raw), "guarded/raw")
		})
	}
	// The checks alone: what a call pays before it runs.
	b.Run("checks", func(b *testing.B) {
		for b.Loop() {
			if err := g.checkFiles(ctx); err != nil || g.logReplaced() {
				b.Fatal(err)
			}
		}
	})
}
