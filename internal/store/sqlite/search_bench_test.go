package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// The speed of full-text search (BENCHMARKS.md, "Search").
//
// BenchmarkSearch1M: on one board of BB_BENCH_MESSAGES messages (default
// 1,000,000), the baseline is an indexed `bb log` read (one sender's newest
// 20, idx_messages_sender_seq); each search is compared with it in the same
// run. Bodies are 12 words drawn from 5,000 ("w0".."w4999": each in about
// 2,400 messages); "zephyr" is in 1 message of 10,000, "deploy" in 1 of 10.
//
// BenchmarkPostWrite: one bb post (Service.Post) on a board with the search
// index, against the same board without its triggers (today's cost before
// migration 008), interleaved with -count.

var bench1M struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the seeded board of BenchmarkSearch1M when the run ends.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{bench1M.dir, boards.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func seed1M(b *testing.B) string {
	n := 1_000_000
	if v := os.Getenv("BB_BENCH_MESSAGES"); v != "" {
		fmt.Sscan(v, &n)
	}
	bench1M.once.Do(func() {
		dir, err := os.MkdirTemp("", "bb-search-bench-")
		if err != nil {
			bench1M.err = err
			return
		}
		bench1M.dir = dir
		ctx := context.Background()
		st, err := sqlite.Open(ctx, filepath.Join(dir, "bb.db"), sqlite.Options{Create: true})
		if err != nil {
			bench1M.err = err
			return
		}
		defer st.Close()
		db := st.SQL()
		start := time.Now()
		bench1M.err = seedMessages(ctx, db, n)
		b.Logf("seeded %d messages with the search index in %s", n, time.Since(start).Round(time.Second))
	})
	if bench1M.err != nil {
		b.Fatal(bench1M.err)
	}
	return bench1M.dir
}

// seedMessages inserts n messages with the search triggers off, then builds
// the index in one statement (what migration 008 does on an existing
// board) and puts the triggers back.
func seedMessages(ctx context.Context, db *sql.DB, n int) error {
	rows, err := db.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts_%'`)
	if err != nil {
		return err
	}
	triggers := map[string]string{}
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			return err
		}
		triggers[name] = ddl
	}
	rows.Close()
	for name := range triggers {
		if _, err := db.ExecContext(ctx, "DROP TRIGGER "+name); err != nil {
			return err
		}
	}
	if err := insertMessages(ctx, db, n); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO messages_fts (rowid, subject, body) SELECT seq, subject, body FROM messages`); err != nil {
		return err
	}
	for _, ddl := range triggers {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	_, err = db.ExecContext(ctx, `INSERT INTO messages_fts (messages_fts) VALUES ('optimize')`)
	return err
}

func insertMessages(ctx context.Context, db *sql.DB, n int) error {
	const batch = 50_000
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	x := uint32(2463534242)
	rnd := func() uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
	for start := 0; start < n; start += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (id, sender, recipient, subject, body, created, seq, type, ttl_hours)
			VALUES (?, ?, '*', '', ?, ?, ?, 'broadcast', NULL)`)
		if err != nil {
			return err
		}
		for i := start; i < start+batch && i < n; i++ {
			var w strings.Builder
			for k := 0; k < 12; k++ {
				fmt.Fprintf(&w, "w%d ", rnd()%5000)
			}
			if i%10 == 0 {
				w.WriteString("deploy ")
			}
			if i%10_000 == 5 {
				w.WriteString("zephyr ")
			}
			if _, err := stmt.ExecContext(ctx, fmt.Sprintf("m-%d", i), fmt.Sprintf("agent-%d", i%50), w.String(),
				hub.FormatTime(t0.Add(time.Duration(i)*time.Second)), i+1); err != nil {
				return err
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkSearch1M(b *testing.B) {
	dir := seed1M(b)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "bb.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, nil, dir)
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
		ms, err := svc.Log(ctx, hub.LogQuery{From: "agent-7", Limit: 20})
		return len(ms), err
	})
	search := func(q hub.SearchQuery) func() (int, error) {
		return func() (int, error) {
			res, err := svc.Search(ctx, q)
			return len(res.Hits), err
		}
	}
	run("search-rare-100-matches", search(hub.SearchQuery{Text: "zephyr"}))
	run("search-word-2400-matches", search(hub.SearchQuery{Text: "w4242"}))
	run("search-two-words", search(hub.SearchQuery{Text: "w4242 deploy"}))
	run("search-common-agent-filter-20k-matches", search(hub.SearchQuery{Text: "deploy", Agent: "agent-10"}))
	run("search-common-100k-matches", search(hub.SearchQuery{Text: "deploy"}))
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
