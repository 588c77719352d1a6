package sqlite_test

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// fullScan matches a query-plan step that walks a whole table (or a whole
// index of it) of the message tables.
// A SEARCH through an index with no constraint walks all of it too.
var fullScan = regexp.MustCompile(`^SCAN (m|p|t|b|messages|message_tags|refs|broadcast_acks)( |$)|^SEARCH \S+ USING (COVERING )?INDEX \S+$`)

// wantIndex names, per case, a plan step that must appear: the index that
// keeps that path cheap.
var wantIndex = map[string]string{
	"since sparse":      "idx_messages_created_seq (created>?)",
	"since empty":       "idx_messages_created_seq (created>?)",
	"tag":               "idx_message_tags_tag (tag=?)",
	"from":              "idx_messages_sender_seq (sender=?",
	"priority high":     "idx_messages_urgent_seq",
	"priority critical": "idx_messages_urgent_seq",
	"ref":               "idx_refs_owner_lookup (ref_where=? AND ref_what=? AND ref_ref=? AND owner_kind=?)",
	"refs":              "idx_refs_owner_lookup (ref_where=? AND ref_what=? AND ref_ref=? AND owner_kind=?)",
	"unread":            "idx_messages_recipient_ack_seq (recipient=? AND requires_ack=? AND seq>?)",
}

// TestBoardQueriesAreIndexDriven runs every bb log filter (and the other
// message reads of the board) and checks, with EXPLAIN QUERY PLAN, that no
// statement walks a whole message table: bb log must stay fast as the
// board grows. It covers both plans of the filters that switch between a
// walk newest-first (many matches) and a lookup of few rows.
func TestBoardQueriesAreIndexDriven(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	const n = 3000
	err = st.Write(ctx, func(tx hub.Tx) error {
		for i := 1; i <= n; i++ {
			m := hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), From: fmt.Sprintf("agent-%d", i%10), To: hub.Broadcast,
				Body: "x", CreatedAt: t0.Add(time.Duration(i) * time.Second), Tags: []string{"common", fmt.Sprintf("area-%d", i%100)},
				Priority: hub.Priorities[i%4]}
			if i%100 == 0 {
				m.Refs = []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID(fmt.Sprint(i))}}
			}
			if err := tx.InsertMessage(ctx, &m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(n * time.Second)
	svc := hub.NewService(st, hub.FixedClock{T: now}, t.TempDir())
	ref, _ := hub.ParseRef("gh:issue:100")

	type stmt struct {
		q    string
		args []any
	}
	var seen []stmt
	st.OnQuery = func(q string, args []any) { seen = append(seen, stmt{q, append([]any(nil), args...)}) }
	cases := map[string]func() error{
		"default":      func() error { _, err := svc.Log(ctx, hub.LogQuery{}); return err },
		"reader":       func() error { _, err := svc.Log(ctx, hub.LogQuery{Reader: "agent-1"}); return err },
		"since dense":  func() error { _, err := svc.Log(ctx, hub.LogQuery{Since: 2 * time.Hour}); return err },
		"since sparse": func() error { _, err := svc.Log(ctx, hub.LogQuery{Since: time.Minute}); return err },
		"since empty":  func() error { _, err := svc.Log(ctx, hub.LogQuery{Since: time.Second}); return err },
		"tag":          func() error { _, err := svc.Log(ctx, hub.LogQuery{Tags: []string{"area-7", "area-9"}}); return err },
		"tag dense + from": func() error {
			_, err := svc.Log(ctx, hub.LogQuery{Tags: []string{"common"}, From: "agent-3"})
			return err
		},
		"tag sparse + prio": func() error {
			_, err := svc.Log(ctx, hub.LogQuery{Tags: []string{"area-7"}, MinPriority: "high"})
			return err
		},
		"from":              func() error { _, err := svc.Log(ctx, hub.LogQuery{From: "agent-3"}); return err },
		"priority high":     func() error { _, err := svc.Log(ctx, hub.LogQuery{MinPriority: "high"}); return err },
		"priority critical": func() error { _, err := svc.Log(ctx, hub.LogQuery{MinPriority: "critical"}); return err },
		"ref":               func() error { _, err := svc.Log(ctx, hub.LogQuery{Ref: &ref}); return err },
		"refs":              func() error { _, err := artifacts.New(svc).FindRefs(ctx, ref); return err },
		"thread":            func() error { _, err := svc.Thread(ctx, 42); return err },
		"unread": func() error {
			return st.Read(ctx, func(tx hub.Tx) error { _, err := tx.UnreadCounts(ctx, "agent-1", hub.NoticeCap); return err })
		},
		"post": func() error {
			_, err := svc.Post(ctx, hub.PostInput{From: "agent-1", Content: "x", ReplyTo: 7, Tags: []string{"a"}})
			return err
		},
	}
	for name, run := range cases {
		seen = nil
		if err := run(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st.OnQuery = nil
		checked := 0
		var all []string
		for _, s := range seen {
			if !strings.HasPrefix(strings.TrimSpace(s.q), "SELECT") {
				continue
			}
			checked++
			rows, err := st.SQL().QueryContext(ctx, "EXPLAIN QUERY PLAN "+s.q, s.args...)
			if err != nil {
				t.Fatalf("%s: explain: %v", name, err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			all = append(all, plan...)
			for _, step := range plan {
				// MAX(seq) with no WHERE reads one index entry (SQLite's
				// min/max optimization), though its plan looks like a walk.
				if fullScan.MatchString(step) && !strings.HasPrefix(s.q, "SELECT COALESCE(MAX(seq), 0)") {
					t.Errorf("%s: full scan %q in the plan of\n%s\nplan:\n  %s", name, step, s.q, strings.Join(plan, "\n  "))
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no SELECT recorded", name)
		}
		if want := wantIndex[name]; want != "" && !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("%s: no plan step uses %s:\n  %s", name, want, strings.Join(all, "\n  "))
		}
		st.OnQuery = func(q string, args []any) { seen = append(seen, stmt{q, append([]any(nil), args...)}) }
	}
}
