package sqlite_test

import (
	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// segments counts the segments of the messages' full-text index (each has
// at least one row in the index's %_idx shadow table).
func segments(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(DISTINCT segid) FROM messages_fts_idx`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A group commit of many posts adds one segment to the full-text index,
// not one per post (a per-row trigger made SQLite flush the index at every
// statement of the transaction).
func TestGroupCommitIsOneIndexSegment(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, nil, dir)
	ops := make([]hub.PostOp, 30)
	for i := range ops {
		ops[i] = hub.PostOp{In: hub.PostInput{From: fmt.Sprintf("agent-%d", i%5), Content: fmt.Sprintf("heron count %d", i)}, CheckIn: true}
	}
	for batch := 1; batch <= 2; batch++ {
		for _, r := range svc.PostMany(ctx, ops) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		if n := segments(t, st.SQL()); n != batch {
			t.Errorf("after %d group commits of %d posts: %d index segments, want %d", batch, len(ops), n, batch)
		}
	}
	res, err := search.New(svc).Search(ctx, search.Query{Text: "heron", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2*len(ops) {
		t.Errorf("search finds %d of %d posts", len(res.Hits), 2*len(ops))
	}
}

// A board made before the store indexed new messages itself (schema 021,
// with the per-row insert trigger) keeps its index when migrated: what was
// indexed stays found, new posts are indexed once, and a message another
// program inserts, with or without a seq, is indexed by the triggers.
func TestMigratedBoardKeepsItsIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "bb.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sqlite.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(db *sql.DB, q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, m := range ms {
		if m.Version > 21 {
			break
		}
		exec(raw, m.SQL)
		exec(raw, fmt.Sprintf("PRAGMA user_version = %d", m.Version))
	}
	created := hub.FormatTime(time.Now().UTC())
	const insert = `INSERT INTO messages (id, sender, recipient, subject, body, type, created, seq) VALUES (?, 'ana', '*', '', ?, 'broadcast', ?, ?)`
	exec(raw, insert, "old-1", "pelican from before", created, 1)
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, nil, dir)
	if _, err := svc.Post(ctx, hub.PostInput{From: "ana", Content: "pelican from after"}); err != nil {
		t.Fatal(err)
	}
	// Another program: no seq, messages_assign_seq gives one.
	exec(st.SQL(), insert, "other-1", "pelican from elsewhere", created, nil)
	// Another program that picks the seq itself: messages_fts_insert
	// (bb's own messages carry indexed_by_writer = 1 and skip it).
	exec(st.SQL(), insert, "other-2", "pelican with a seq", created, 100)
	res, err := search.New(svc).Search(ctx, search.Query{Text: "pelican", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 4 {
		t.Errorf("found %d of 4 messages: %+v", len(res.Hits), res.Hits)
	}
	var rows int
	if err := st.SQL().QueryRow(`SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'pelican'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 4 {
		t.Errorf("%d index entries for 4 messages", rows)
	}
}
