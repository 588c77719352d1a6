package storecopy_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/storecopy"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
)

// pgSeqScan is a plan node that reads a whole table of the board's
// history, or walks every message in seq order filtering on something else.
// (The seeded board delivers little, so mail_deliveries is too small here
// for PostgreSQL to prefer its index: it is not judged.)
var pgSeqScan = regexp.MustCompile(`Seq Scan on (messages|broadcast_acks|message_tags)\b|` +
	`Index Scan using messages_seq_key on messages \S+ +\(cost=[^)]*\)\n\s+Filter: [^\n]*recipient = '[^*]`)

// TestBigBoardPlansOnPostgres seeds a board of BB_PG_PLAN_MESSAGES messages
// (default 30,000, a tenth of them broadcasts) in SQLite, copies it to
// PostgreSQL as bb migrate does, lets PostgreSQL gather its statistics
// (autovacuum does so on a real board) and checks that none of the
// everyday reads (inbox pages of every state, Agent Mail read and status,
// log, check-in, hook delivery) reads a whole history table.
func TestBigBoardPlansOnPostgres(t *testing.T) {
	pgtest.Require(t)
	ctx := context.Background()
	n := 30_000
	if v := os.Getenv("BB_PG_PLAN_MESSAGES"); v != "" {
		fmt.Sscan(v, &n)
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "big.db")
	t0 := time.Now()
	err := bigboard.Build(ctx, path, bigboard.Spec{Messages: n, Broadcasts: n / 10, Now: now}, func(p string) (*sql.DB, func() error, error) {
		st, err := sqlite.Open(ctx, p, sqlite.Options{Create: true})
		if err != nil {
			return nil, nil, err
		}
		return st.SQL(), st.Close, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lite := openSQLite(t, path)
	pg := openPG(t, pgtest.URL(t))
	if _, err := storecopy.Copy(ctx, lite, pg, storecopy.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d messages seeded and copied in %s", n, time.Since(t0).Round(time.Millisecond))
	svc := app.New(hub.NewService(pg, hub.FixedClock{T: now}, t.TempDir()))
	reads := []struct {
		name string
		run  func() error
	}{
		{"inbox", func() error { _, err := svc.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader}); return err }},
		{"inbox unread", func() error {
			_, err := svc.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, State: hub.StateUnread})
			return err
		}},
		{"inbox read", func() error {
			_, err := svc.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, State: hub.StateRead})
			return err
		}},
		{"inbox acked", func() error {
			_, err := svc.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, State: hub.StateAcked, Limit: 5})
			return err
		}},
		{"inbox mail-only", func() error {
			_, err := svc.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, MailOnly: true, Limit: 20})
			return err
		}},
		{"agent-mail read", func() error {
			_, err := svc.ReadAgentMail(ctx, agentmail.MailReadInput{Agent: bigboard.MailReader, Limit: 20, NoMarkRead: true})
			return err
		}},
		{"agent-mail status", func() error { _, err := svc.AgentMailStatus(ctx, bigboard.MailReader, ""); return err }},
		{"log", func() error { _, err := svc.Log(ctx, hub.LogQuery{Reader: bigboard.Reader}); return err }},
		{"check-in", func() error { _, err := svc.CheckIn(ctx, bigboard.Reader); return err }},
		{"hook delivery", func() error { _, err := svc.DeliverNew(ctx, bigboard.Reader); return err }},
		{"hook delivery, hook-only agent", func() error { _, err := svc.DeliverNew(ctx, bigboard.HookReader); return err }},
		// bb serve's group commit of posts, with the posters' check-ins:
		// one by the reader, one by an agent that has nothing unread (its
		// read cursor then moves past its own posts).
		{"post (group commit)", func() error {
			if _, err := svc.CheckIn(ctx, "plan-poster"); err != nil {
				return err
			}
			if err := pg.Write(ctx, func(tx hub.Tx) error {
				newest, err := tx.LastMessageSeq(ctx)
				if err != nil {
					return err
				}
				return tx.SetReadCursor(ctx, "plan-poster", newest)
			}); err != nil {
				return err
			}
			for _, r := range svc.PostMany(ctx, []hub.PostOp{
				{In: hub.PostInput{From: bigboard.Reader, Content: "plan", Tags: []string{"x"}}, CheckIn: true},
				{In: hub.PostInput{From: "plan-poster", Content: "plan"}, CheckIn: true},
			}) {
				if r.Err != nil {
					return r.Err
				}
			}
			return nil
		}},
	}
	type stmt struct {
		q    string
		args []any
	}
	pastOwn := false // the check-in's move of the read cursor past own posts was planned
	for _, r := range reads {
		var seen []stmt
		pg.OnQuery = func(q string, args []any) { seen = append(seen, stmt{q, append([]any(nil), args...)}) }
		err := r.run()
		pg.OnQuery = nil
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		for _, s := range seen {
			if !strings.HasPrefix(strings.TrimSpace(s.q), "SELECT") && !strings.HasPrefix(strings.TrimSpace(s.q), "WITH") &&
				!strings.HasPrefix(strings.TrimSpace(s.q), "UPDATE") {
				continue
			}
			// Whether an agent has any receipt at all: PostgreSQL's scan
			// stops at the first one (the check-in's NoticeCounts).
			if strings.Contains(s.q, "NOT EXISTS (SELECT 1 FROM broadcast_acks WHERE agent =") {
				continue
			}
			if strings.Contains(s.q, "UPDATE agents SET read_cursor") && strings.Contains(s.q, "NOT EXISTS") {
				pastOwn = true
			}
			plan := pgExplain(t, pg.SQL(), s.q, s.args)
			if pgSeqScan.MatchString(plan) {
				t.Errorf("%s: a whole history table is read by\n%s\nplan:\n%s", r.name, s.q, plan)
			}
		}
	}
	if !pastOwn {
		t.Error("the group commit's move of a read cursor past the poster's own posts was not planned (not run?)")
	}
}

func pgExplain(t *testing.T, db *sql.DB, q string, args []any) string {
	t.Helper()
	rows, err := db.Query("EXPLAIN "+q, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", q, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
