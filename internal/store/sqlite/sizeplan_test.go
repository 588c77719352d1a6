package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
)

// The plans that keep the everyday reads of BenchmarkBoardSize (bb agent
// inbox, agent-mail read, bb log, the check-in, the hook's delivery) as
// cheap on a million messages as on a thousand. Each read must walk the
// named index steps, and none may walk a step that grows with the board's
// history: every broadcast (recipient = '*' alone), every message of a
// recipient, or every broadcast since some time.
var sizePlans = map[string]struct{ want []string }{
	"agent-inbox": {want: []string{
		"idx_messages_recipient_created (recipient=?)", "LAST TERM OF ORDER BY"}},
	"agent-inbox-unread": {want: []string{
		"idx_messages_unread (recipient=?)",
		"idx_messages_recipient_ack_seq (recipient=? AND requires_ack=? AND seq>?)"}},
	// Read and acked pages read each stream from an index holding only
	// rows in that state; read broadcasts through the cursor come from the
	// range between the ack cursor (or 0) and the read cursor.
	"agent-inbox-read": {want: []string{
		"idx_messages_read_recipient_created (recipient=?)",
		"idx_broadcast_acks_read (agent=? AND message_seq>?)",
		"idx_messages_recipient_ack_seq (recipient=? AND requires_ack=? AND seq>? AND seq<?)"}},
	"agent-inbox-acked": {want: []string{
		"idx_messages_acked_recipient_created (recipient=?)",
		"idx_broadcast_acks_acked (agent=?)"}},
	"agent-inbox-mail": {want: []string{"idx_messages_mail_recipient_created (recipient=?)"}},
	"agent-mail-read": {want: []string{
		"idx_messages_unread (recipient=?)",
		"idx_messages_recipient_ack_seq (recipient=? AND requires_ack=? AND seq>?)"}},
	// Status reads the running totals, one row per agent asked about.
	"agent-mail-status": {want: []string{"mail_counts USING INDEX sqlite_autoindex_mail_counts_1 (agent=?)"}},
	"log":               {want: []string{"sqlite_autoindex_messages_2 (seq>?)"}},
	"check-in": {want: []string{
		"idx_messages_unread (recipient=?)",
		"idx_messages_ack_owed (recipient=?)",
		"idx_messages_recipient_ack_seq (recipient=? AND requires_ack=? AND seq>?)"}},
	"hook-deliver": {want: hookPlan},
	// A hook-only agent (read cursor 0) starts after its delivery cursor.
	"hook-deliver-hook-only": {want: hookPlan},
}

// The hook's delivery: the agent's unread mail, and the urgent broadcasts
// after its cursor from the two partial indexes (high or critical; asking
// for an ack), never the ordinary posts.
var hookPlan = []string{
	"idx_messages_unread (recipient=?)",
	"idx_messages_urgent_seq (seq>?)",
	"idx_messages_ack_required (recipient=? AND seq>?)",
}

var growing = []string{
	"idx_messages_recipient (recipient=?)",
	"idx_messages_recipient_ack_seq (recipient=?)\n",
	"(recipient=? AND created>?)",
}

// TestBoardSizeReadsAreBounded runs each read of BenchmarkBoardSize on a
// seeded board without statistics (as every real board is: none is ever
// ANALYZEd) and checks its statements' plans with EXPLAIN QUERY PLAN.
func TestBoardSizeReadsAreBounded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bb.db")
	if err := bigboard.Build(ctx, path, bigboard.Spec{Messages: 3000, Broadcasts: 300, Now: benchNow}, openForSeed); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := app.New(hub.NewService(st, hub.FixedClock{T: benchNow}, t.TempDir()))
	type stmt struct {
		q    string
		args []any
	}
	for _, r := range sizeReads {
		want, ok := sizePlans[r.name]
		if !ok {
			t.Errorf("%s: no plan expectation", r.name)
			continue
		}
		var seen []stmt
		st.OnQuery = func(q string, args []any) { seen = append(seen, stmt{q, append([]any(nil), args...)}) }
		n, err := r.run(ctx, svc)
		st.OnQuery = nil
		if err != nil || n == 0 {
			t.Fatalf("%s: %d items, %v", r.name, n, err)
		}
		var all []string
		for _, s := range seen {
			if !strings.HasPrefix(strings.TrimSpace(s.q), "SELECT") {
				continue
			}
			plan := explain(t, st.SQL(), s.q, s.args)
			text := strings.Join(plan, "\n") + "\n"
			for _, g := range growing {
				if strings.Contains(text, g) {
					t.Errorf("%s: step %q grows with the board, in the plan of\n%s\nplan:\n  %s", r.name, strings.TrimSpace(g), s.q, strings.Join(plan, "\n  "))
				}
			}
			for _, step := range plan {
				// The irregular-expiry index holds only rows written by other
				// tools with another TTL or time format (normally none).
				// MIN or MAX of an index column reads one end of the index.
				if fullScan.MatchString(step) && !strings.HasPrefix(s.q, "SELECT COALESCE(MAX(seq), 0)") &&
					!strings.HasPrefix(s.q, "SELECT MIN(") &&
					!strings.Contains(step, "idx_messages_expiring_irregular") {
					t.Errorf("%s: full scan %q in the plan of\n%s", r.name, step, s.q)
				}
			}
			all = append(all, plan...)
		}
		text := strings.Join(all, "\n")
		for _, w := range want.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no plan step uses %s:\n  %s", r.name, w, strings.Join(all, "\n  "))
			}
		}
	}
}

// explain returns the EXPLAIN QUERY PLAN steps of q.
func explain(t *testing.T, db *sql.DB, q string, args []any) []string {
	t.Helper()
	rows, err := db.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}
