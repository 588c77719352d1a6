package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
)

// The speed of full-text search (BENCHMARKS.md, "Search").
//
// BenchmarkSearch1M: on the board of BenchmarkBoardSize with
// BB_BENCH_MESSAGES messages (default 1,000,000; internal/testkit/bigboard),
// the baseline is an indexed `bb log` read (one sender's newest 20,
// idx_messages_sender_seq); each search is compared with it in the same
// run. Bodies are 12 words drawn from 5,000 ("w0".."w4999": each in about
// 2,400 messages); "zephyr" is in 1 message of 10,000, "deploy" in 1 of 10.
//
// BenchmarkPostWrite: one bb post (Service.Post) on a board with the search
// index, against the same board without its triggers (today's cost before
// migration 008), interleaved with -count.

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
	run := func(name string, f func() (int, error)) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				n, err := f()
				if err != nil || n == 0 {
					b.Fatalf("%d results, %v", n, err)
				}
			}
		})
	}
	run("log-from-sender-20", func() (int, error) {
		ms, err := svc.Log(ctx, hub.LogQuery{From: "agent-07", Limit: 20})
		return len(ms), err
	})
	search := func(q hub.SearchQuery) func() (int, error) {
		return func() (int, error) {
			res, err := svc.Search(ctx, q)
			return len(res.Hits), err
		}
	}
	run("search-rare-100-matches", search(hub.SearchQuery{Text: bigboard.RareWord}))
	run("search-word-2400-matches", search(hub.SearchQuery{Text: "w4242"}))
	run("search-two-words", search(hub.SearchQuery{Text: "w4242 " + bigboard.CommonWord}))
	run("search-common-agent-filter-20k-matches", search(hub.SearchQuery{Text: bigboard.CommonWord, Agent: "agent-10"}))
	run("search-common-100k-matches", search(hub.SearchQuery{Text: bigboard.CommonWord}))
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
			for _, tr := range []string{"messages_fts_insert", "messages_fts_update", "messages_fts_delete"} {
				if _, err := st.SQL().ExecContext(ctx, "DROP TRIGGER "+tr); err != nil {
					b.Fatal(err)
				}
			}
		}
		return hub.NewService(st, nil, dir)
	}
	for _, v := range []struct {
		name  string
		index bool
	}{{"without-search-index", false}, {"with-search-index", true}} {
		b.Run(v.name, func(b *testing.B) {
			svc := open(v.index)
			i := 0
			for b.Loop() {
				i++
				if _, err := svc.Post(ctx, hub.PostInput{From: "agent-1", Content: fmt.Sprintf("status update %d: the parser refactor landed, tests pass on main", i), Tags: []string{"parser"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
