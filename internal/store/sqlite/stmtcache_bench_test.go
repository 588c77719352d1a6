package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// BenchmarkStatementCache measures what a long-lived process (bb serve,
// bb mcp) gains from keeping prepared statements per connection. Each
// iteration runs the same operation once on a service whose store has the
// cache off (the baseline) and once with it on, alternating which goes
// first, on the same board, so both see the same machine load and board
// size. Reported: the median of each side and on/off, the ratio.
//
//	go test -run '^$' -bench StatementCache -benchtime 3000x ./internal/store/sqlite
func BenchmarkStatementCache(b *testing.B) {
	ctx := context.Background()
	ops := []struct {
		name string
		run  func(svc *hub.Service, i int) error
	}{
		{"post", benchPost},
		{"log", func(svc *hub.Service, i int) error {
			_, err := svc.Log(ctx, hub.LogQuery{Limit: 20, Tags: []string{"bench"}})
			return err
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			on, off := onAndOff(b, func(d *sqlstore.Dialect) { d.CacheStatements = false })
			for i := 0; i < 200; i++ { // a board that is not empty
				if err := ops[0].run(on, i); err != nil {
					b.Fatal(err)
				}
			}
			interleave(b, func(i int) error { return op.run(on, i) }, func(i int) error { return op.run(off, i) })
		})
	}
}

// BenchmarkLimitGuard measures what writing "LIMIT ?" as "LIMIT +?"
// (sqlstore.Dialect.GuardLimits) saves: SQLite re-prepares a statement
// with a bare bound LIMIT every time it is bound. Both sides keep
// statements per connection; "off" has the guard off. The batch case is
// one group commit of bb serve: 50 posts by 50 agents with their
// check-ins (notice counts use LIMIT) in one transaction.
//
//	go test -run '^$' -bench LimitGuard -benchtime 400x ./internal/store/sqlite
func BenchmarkLimitGuard(b *testing.B) {
	writesOnAndOff(b, func(d *sqlstore.Dialect) { d.GuardLimits = false })
}

// BenchmarkAppendOnly measures what writing timeline events as "INSERT
// OR ROLLBACK" (sqlstore.Dialect.AppendOnly) saves: without it SQLite
// opens a statement journal for every event appended inside a transaction.
// "off" has the clause off. The batch case is one group commit of bb serve
// (50 posts by 50 agents with their check-ins).
//
//	go test -run '^$' -bench AppendOnly -benchtime 400x ./internal/store/sqlite
func BenchmarkAppendOnly(b *testing.B) {
	writesOnAndOff(b, func(d *sqlstore.Dialect) { d.AppendOnly = "" })
}

// writesOnAndOff runs, interleaved, one identified post ("post") and one
// group commit of bb serve ("batch50") on a store as configured and on one
// whose SQLite dialect off changes.
func writesOnAndOff(b *testing.B, off func(*sqlstore.Dialect)) {
	batch := benchBatch()
	ops := []struct {
		name string
		run  func(svc *hub.Service, i int) error
	}{
		{"post", benchPost},
		{"batch50", func(svc *hub.Service, i int) error { return postBatch(svc, batch) }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			on, offSvc := onAndOff(b, off)
			interleave(b, func(i int) error { return op.run(on, i) }, func(i int) error { return op.run(offSvc, i) })
		})
	}
}

// BenchmarkNoticeCounts measures the check-in's counts in one statement
// (Tx.NoticeCounts, "on") against the separate counts and the mark read
// ("off"), interleaved on one board where every agent has 100+ unread
// board posts (the bb serve bench: agents post and never read).
//
//	go test -run '^$' -bench NoticeCounts -benchtime 3000x ./internal/store/sqlite
func BenchmarkNoticeCounts(b *testing.B) {
	ctx := context.Background()
	svc, _ := onAndOff(b, func(*sqlstore.Dialect) {})
	batch := benchBatch()
	for i := 0; i < 4; i++ {
		if err := postBatch(svc, batch); err != nil {
			b.Fatal(err)
		}
	}
	agent := func(i int) string { return fmt.Sprintf("agent-%d", i%50) }
	one := func(i int) error {
		return hubtest.StoreOf(svc).Read(ctx, func(tx hub.Tx) error {
			_, err := tx.NoticeCounts(ctx, agent(i), hub.NoticeCap)
			return err
		})
	}
	parts := func(i int) error {
		return hubtest.StoreOf(svc).Read(ctx, func(tx hub.Tx) error {
			a := agent(i)
			if _, err := tx.UnreadCounts(ctx, a, hub.NoticeCap); err != nil {
				return err
			}
			if _, err := tx.AcksOwed(ctx, a, hub.NoticeCap); err != nil {
				return err
			}
			if _, err := tx.IncursionsOnActive(ctx, a, hub.NoticeCap); err != nil {
				return err
			}
			_, err := tx.NoticeMark(ctx, a)
			return err
		})
	}
	interleave(b, one, parts)
}

// benchBatch is one group commit of bb serve: 50 posts by 50 agents,
// each checking in.
func benchBatch() []hub.PostOp {
	batch := make([]hub.PostOp, 50)
	for i := range batch {
		batch[i] = hub.PostOp{In: hub.PostInput{From: fmt.Sprintf("agent-%d", i), Content: "bench post", Tags: []string{"bench"}}, CheckIn: true}
	}
	return batch
}

// postBatch stores batch in one transaction (Service.PostMany).
func postBatch(svc *hub.Service, batch []hub.PostOp) error {
	for _, r := range svc.PostMany(context.Background(), batch) {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// benchPost is one identified post (check-in, insert, event).
func benchPost(svc *hub.Service, i int) error {
	_, err := svc.Post(context.Background(), hub.PostInput{From: fmt.Sprintf("agent-%d", i%8), Content: "bench post", Tags: []string{"bench"}})
	return err
}

// onAndOff opens one board and returns a service on it as configured
// (on) and one whose SQLite dialect off changes (off).
func onAndOff(b *testing.B, off func(*sqlstore.Dialect)) (*hub.Service, *hub.Service) {
	dir := b.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, ".bb", "blackboard.db"), sqlite.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	d := sqlite.Dialect()
	off(&d)
	return hub.NewService(st, nil, dir), hub.NewService(sqlstore.New(st.SQL(), d, st.Location()), nil, dir)
}

// interleave runs on and off once per iteration, alternating which goes
// first, and reports both medians and their ratio.
func interleave(b *testing.B, on, off func(i int) error) {
	var tOn, tOff []time.Duration
	timed := func(run func(int) error, i int, into *[]time.Duration) {
		t0 := time.Now()
		if err := run(i); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, time.Since(t0))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			timed(off, i, &tOff)
			timed(on, i, &tOn)
		} else {
			timed(on, i, &tOn)
			timed(off, i, &tOff)
		}
	}
	mOn, mOff := median(tOn), median(tOff)
	b.ReportMetric(float64(mOff.Microseconds()), "off-µs")
	b.ReportMetric(float64(mOn.Microseconds()), "on-µs")
	b.ReportMetric(float64(mOn)/float64(mOff), "on/off")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return s[len(s)/2]
}
