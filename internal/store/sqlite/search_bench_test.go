package sqlite_test

import (
	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
)

// The speed of full-text search (BENCHMARKS.md, "Search").
//
// BenchmarkSearch1M: on the board of BenchmarkBoardSize with
// BB_BENCH_MESSAGES messages (default 1,000,000; internal/testkit/bigboard),
// the baseline is an indexed `bb log` read (one sender's newest 20,
// idx_messages_sender_seq); each search runs next to a baseline read in
// every iteration, and the benchmark reports each search's median and its
// ratio to the baseline's (-×log). Bodies are 12 words drawn from 5,000 ("w0".."w4999": each in about
// 2,400 messages); "zephyr" is in 1 message of 10,000, "deploy" in 1 of 10.
//
// BenchmarkPostWrite: one bb post (Service.Post) on a board with the search
// index, against the same board without its triggers (today's cost before
// migration 008), both written in every iteration; it reports each one's
// median and their ratio (with-×without).

// TestMain removes the seeded boards of the benchmarks when the run ends.
func TestMain(m *testing.M) {
	code := m.Run()
	if boards.dir != "" {
		os.RemoveAll(boards.dir)
	}
	os.Exit(code)
}

func BenchmarkSearch1M(b *testing.B) {
	ctx := context.Background()
	svc := boardService(b, benchMessages())
	logRead := func() (int, error) {
		ms, err := svc.Log(ctx, hub.LogQuery{From: "agent-07", Limit: 20})
		return len(ms), err
	}
	searches := []struct {
		name string
		q    search.Query
	}{
		{"rare", search.Query{Text: bigboard.RareWord}},
		{"word", search.Query{Text: "w4242"}},
		{"two-words", search.Query{Text: "w4242 " + bigboard.CommonWord}},
		{"common-agent", search.Query{Text: bigboard.CommonWord, Agent: "agent-10"}},
		{"common-since", search.Query{Text: bigboard.CommonWord, Since: 2 * time.Hour}},
		{"common", search.Query{Text: bigboard.CommonWord}},
	}
	base := make([][]time.Duration, len(searches))
	took := make([][]time.Duration, len(searches))
	timed := func(f func() (int, error)) time.Duration {
		t0 := time.Now()
		n, err := f()
		d := time.Since(t0)
		if err != nil || n == 0 {
			b.Fatalf("%d results, %v", n, err)
		}
		return d
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Each search next to its own baseline read, in alternating order,
		// so that load on a shared machine hits both alike.
		for k, s := range searches {
			run := func() (int, error) {
				res, err := svc.Search(ctx, s.q)
				return len(res.Hits), err
			}
			if i%2 == 0 {
				base[k] = append(base[k], timed(logRead))
				took[k] = append(took[k], timed(run))
			} else {
				took[k] = append(took[k], timed(run))
				base[k] = append(base[k], timed(logRead))
			}
		}
	}
	b.StopTimer()
	for k, s := range searches {
		mb, ms := median(base[k]), median(took[k])
		b.ReportMetric(float64(ms.Microseconds()), s.name+"-µs")
		b.ReportMetric(float64(ms)/float64(mb), s.name+"-×log")
	}
	all := slices.Concat(base...)
	b.ReportMetric(float64(median(all).Microseconds()), "log-µs")
}

func BenchmarkPostWrite(b *testing.B) {
	ctx := context.Background()
	open := func(withIndex bool) *hub.Service {
		dir := b.TempDir()
		st, err := sqlite.Open(ctx, filepath.Join(dir, "bb.db"), sqlite.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if !withIndex {
			// The store writes new messages' index rows at commit: give
			// it a plain table, which keeps the rows but no index.
			for _, q := range []string{"DROP TRIGGER messages_fts_update", "DROP TRIGGER messages_fts_delete",
				"DROP TABLE messages_fts", "CREATE TABLE messages_fts (subject, body)"} {
				if _, err := st.SQL().ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		}
		return hub.NewService(st, nil, dir)
	}
	// Both boards written in every iteration, in alternating order, so
	// that load on a shared machine hits both alike.
	without, with := open(false), open(true)
	var tw, tx []time.Duration
	post := func(svc *hub.Service, i int) time.Duration {
		t0 := time.Now()
		if _, err := svc.Post(ctx, hub.PostInput{From: "agent-1", Content: fmt.Sprintf("status update %d: the parser refactor landed, tests pass on main", i), Tags: []string{"parser"}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			tw = append(tw, post(without, i))
			tx = append(tx, post(with, i))
		} else {
			tx = append(tx, post(with, i))
			tw = append(tw, post(without, i))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(median(tw).Microseconds()), "without-µs")
	b.ReportMetric(float64(median(tx).Microseconds()), "with-µs")
	b.ReportMetric(float64(median(tx))/float64(median(tw)), "with-×without")
}
