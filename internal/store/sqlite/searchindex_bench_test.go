package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
)

// BenchmarkIndexAtCommit measures what indexing a transaction's new
// messages for search in one statement before the commit
// (sqlstore.Dialect.IndexMessagesAtCommit, "on") saves against the per-row
// trigger it replaced ("off", on a second board that has the trigger back
// and the option off). The batch case is one group commit of bb serve: 50
// posts by 50 agents with their check-ins, each post's text carrying a
// number of its own as the load generator's do. Each iteration runs both
// boards, alternating which goes first.
//
//	go test -run '^$' -bench IndexAtCommit -benchtime 300x ./internal/store/sqlite
func BenchmarkIndexAtCommit(b *testing.B) {
	ctx := context.Background()
	open := func(trigger bool) *hub.Service {
		dir := b.TempDir()
		st, err := sqlite.Open(ctx, filepath.Join(dir, ".bb", "blackboard.db"), sqlite.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if !trigger {
			return hub.NewService(st, nil, dir)
		}
		if _, err := st.SQL().ExecContext(ctx, `CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN NEW.seq IS NOT NULL BEGIN
			INSERT INTO messages_fts (rowid, subject, body) VALUES (NEW.seq, NEW.subject, NEW.body); END`); err != nil {
			b.Fatal(err)
		}
		d := sqlite.Dialect()
		d.IndexMessagesAtCommit = false
		return hub.NewService(sqlstore.New(st.SQL(), d, st.Location()), nil, dir)
	}
	n := 0
	batch := func(svc *hub.Service) error {
		ops := make([]hub.PostOp, 50)
		for i := range ops {
			n++
			ops[i] = hub.PostOp{In: hub.PostInput{From: fmt.Sprintf("agent-%d", i), Content: fmt.Sprintf("load %d %d", i, 1_700_000_000_000_000_000+n),
				Tags: []string{"load"}}, CheckIn: true}
		}
		return postBatch(svc, ops)
	}
	post := func(svc *hub.Service) error {
		n++
		_, err := svc.Post(ctx, hub.PostInput{From: fmt.Sprintf("agent-%d", n%8), Content: fmt.Sprintf("load %d %d", n%8, 1_700_000_000_000_000_000+n), Tags: []string{"load"}})
		return err
	}
	for _, op := range []struct {
		name string
		run  func(*hub.Service) error
	}{{"post", post}, {"batch50", batch}} {
		b.Run(op.name, func(b *testing.B) {
			on, off := open(false), open(true)
			interleave(b, func(int) error { return op.run(on) }, func(int) error { return op.run(off) })
		})
	}
}
