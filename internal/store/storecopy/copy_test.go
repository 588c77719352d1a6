package storecopy_test

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
	"github.com/blackboard-hub/bb/internal/store/storecopy"
	"github.com/blackboard-hub/bb/internal/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openSQLite(t *testing.T, path string) *sqlstore.DB {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func openPG(t *testing.T, url string) *sqlstore.DB {
	t.Helper()
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// populate fills a board with every kind of row, through the service where
// a use case exists and with plain SQL for the tables other features own.
func populate(t *testing.T, st *sqlstore.DB) {
	t.Helper()
	ctx := context.Background()
	clock := &storetest.Clock{T: storetest.T0()}
	root := t.TempDir()
	svc := hub.NewService(st, clock, root)
	ok := storetest.Ok
	task, prog, blk := "parse the logs", 40, "waiting on review"
	_, err := svc.SetStatus(ctx, "alice", hub.StatusUpdate{Task: &task, Progress: &prog})
	ok(t, err)
	_, err = svc.SetStatus(ctx, "bob", hub.StatusUpdate{Blockers: &blk})
	ok(t, err)
	refs, err := hub.ParseRefs([]string{"github:issue:42", "file:path:src/main.go"})
	ok(t, err)
	for i := 0; i < 1234; i++ { // more than two copy batches
		clock.Advance(time.Second)
		_, err := svc.Post(ctx, hub.PostInput{From: fmt.Sprintf("agent-%d", i%7), Content: fmt.Sprintf("message %d — ünïcödé ✓ 'quoted' ?", i),
			Tags: []string{"t" + fmt.Sprint(i%3)}, Priority: []string{"low", "normal", "high", "critical"}[i%4]})
		ok(t, err)
	}
	_, err = svc.Post(ctx, hub.PostInput{From: "bob", Content: "a reply with refs", ReplyTo: 1, Refs: refs})
	ok(t, err)
	ictx := hub.WithIdempotency(ctx, hub.IdemKey{Agent: "bob", RequestID: "r-1", Command: "post"})
	_, err = svc.Post(ictx, hub.PostInput{From: "bob", Content: "idempotent"})
	ok(t, err)
	v := "1.2"
	_, _, err = artifacts.New(svc).AddArtifact(ctx, artifacts.Input{Agent: "alice", Path: "out/report.md", Description: "the report", Version: &v, Refs: refs[:1]})
	ok(t, err)
	_, _, err = artifacts.New(svc).AddArtifact(ctx, artifacts.Input{Agent: "bob", Path: "out/b.txt"})
	ok(t, err)
	ok(t, st.Write(ctx, func(tx hub.Tx) error {
		m, err := tx.MessageBySeq(ctx, 3)
		if err != nil {
			return err
		}
		if err := tx.MarkRead(ctx, m, "alice", clock.T); err != nil {
			return err
		}
		return tx.MarkAcked(ctx, m, "bob", clock.T)
	}))
	for _, q := range []string{
		`INSERT INTO messages (id, sender, recipient, subject, body, created) VALUES ('tc9-1', 'p:alice', 'p:bob', 's', 'b', '2026-11-21T22:00:00.000000+00:00')`,
		`INSERT INTO reservations (id, scope, wildcard, agent_id, bead_id, state, created_at, expires_at) VALUES ('r1', '/repo/src', 1, 'alice', 'bd-1', 'active', '2026-11-21T22:00:00.000000+00:00', '2026-11-21T23:00:00.000000+00:00')`,
		`INSERT INTO tasks (id, title, created_at, updated_at) VALUES ('task-1', 'Write docs', '2026-11-21T22:00:00.000000+00:00', '2026-11-21T22:00:00.000000+00:00')`,
		`INSERT INTO tasks (id, title, status, created_at, updated_at) VALUES ('task-2', 'Ship', 'blocked', '2026-11-21T22:00:00.000000+00:00', '2026-11-21T22:00:00.000000+00:00')`,
		`INSERT INTO task_deps (task_id, depends_on, created_at) VALUES ('task-2', 'task-1', '2026-11-21T22:00:00.000000+00:00')`,
		`INSERT INTO memory (key, value, expires_at, created_at, updated_at) VALUES ('k', 'v', NULL, '2026-11-21T22:00:00.000000+00:00', '2026-11-21T22:00:00.000000+00:00')`,
		`INSERT INTO memory (key, value, created_at, updated_at) VALUES ('gone', 'x', '2026-11-21T22:00:00.000000+00:00', '2026-11-21T22:00:00.000000+00:00')`,
		`DELETE FROM memory WHERE key = 'gone'`,
		// The newest events are deleted: their numbers must never be reused.
		`DELETE FROM events WHERE seq > (SELECT MAX(seq) - 3 FROM events)`,
	} {
		if _, err := st.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// dump renders every table, rows in primary-key order, as text.
func dump(t *testing.T, st *sqlstore.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range []struct{ name, order string }{
		{"agents", "id"}, {"messages", "id"}, {"broadcast_acks", "message_id, agent"}, {"message_tags", "message_id, tag"},
		{"artifacts", "id"}, {"refs", "owner_kind, owner_id, ref_where, ref_what, ref_ref"}, {"events", "seq"},
		{"reservations", "id"}, {"tasks", "id"}, {"task_deps", "task_id, depends_on"}, {"memory", "id"},
		{"idempotency", "agent, request_id"},
		{"board_config", "key"}, {"hook_sessions", "client, session_id"}, {"mail_deliveries", "message_id, agent"},
		{"repository", "id"}, {"branch_edits", "agent_id, branch, path"},
		{"credentials", "id"}, {"attention_notified", "channel, item_id"},
		{"leases", "name"}, {"lease_holders", "id"}, {"lease_waiters", "name, agent"},
	} {
		rows, err := st.SQL().Query(`SELECT * FROM ` + tb.name + ` ORDER BY ` + tb.order)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var b strings.Builder
		b.WriteString(strings.Join(cols, "|") + "\n")
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if i > 0 {
					b.WriteString("|")
				}
				switch x := v.(type) {
				case nil:
					b.WriteString("NULL")
				case []byte:
					b.WriteString(string(x))
				default:
					fmt.Fprint(&b, x)
				}
			}
			b.WriteString("\n")
		}
		rows.Close()
		out[tb.name] = b.String()
	}
	return out
}

func compare(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for name, w := range want {
		if g := got[name]; g != w {
			wl, gl := strings.Split(w, "\n"), strings.Split(g, "\n")
			for i := 0; i < len(wl) && i < len(gl); i++ {
				if wl[i] != gl[i] {
					t.Errorf("%s: table %s differs at row %d:\n want %s\n got  %s", what, name, i, wl[i], gl[i])
					break
				}
			}
			if len(wl) != len(gl) {
				t.Errorf("%s: table %s has %d lines, want %d", what, name, len(gl), len(wl))
			}
		}
	}
}

// SQLite -> PostgreSQL -> SQLite keeps every row of every table, byte for
// byte, and the auto-number counters (new ids continue after the source's
// high-water mark, even past deleted rows).
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	lite := openSQLite(t, filepath.Join(t.TempDir(), "a.db"))
	populate(t, lite)
	want := dump(t, lite)
	for table, rows := range map[string]int{"agents": 2, "messages": 1237, "broadcast_acks": 2, "message_tags": 1234,
		"artifacts": 2, "refs": 3, "reservations": 1, "tasks": 2, "task_deps": 1, "memory": 1, "idempotency": 1} {
		if got := strings.Count(want[table], "\n") - 1; got != rows {
			t.Fatalf("fixture: %s has %d rows, want %d", table, got, rows)
		}
	}
	var lastEvent int64
	if err := lite.SQL().QueryRow(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).Scan(&lastEvent); err != nil {
		t.Fatal(err)
	}

	pg := openPG(t, pgtest.URL(t))
	var progress []string
	res, err := storecopy.Copy(ctx, lite, pg, storecopy.Options{Progress: func(table string, done, total int64) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", table, done, total))
	}})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "sqlite -> postgres", want, dump(t, pg))
	if len(res.Tables) != len(want) || res.Rows == 0 { // every table, whatever later migrations add
		t.Errorf("result: %+v", res)
	}
	for _, tc := range res.Tables {
		if tc.Source != tc.Target {
			t.Errorf("count of %s: %d vs %d", tc.Table, tc.Source, tc.Target)
		}
	}
	joined := strings.Join(progress, ",")
	if !strings.Contains(joined, "messages 500/1237") || !strings.Contains(joined, "messages 1237/1237") {
		t.Errorf("progress did not report the batches of messages: %s", joined)
	}

	back := openSQLite(t, filepath.Join(t.TempDir(), "b.db"))
	if _, err := storecopy.Copy(ctx, pg, back, storecopy.Options{}); err != nil {
		t.Fatal(err)
	}
	compare(t, "postgres -> sqlite", want, dump(t, back))
	// The copied messages are searchable (SQLite indexes them after the copy).
	var indexed int
	if err := back.SQL().QueryRow(`SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'quoted'`).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if indexed != 1234 {
		t.Errorf("postgres -> sqlite: %d of 1234 messages indexed for search", indexed)
	}

	// Counters: the next event continues after the source's high-water mark.
	for name, st := range map[string]*sqlstore.DB{"postgres": pg, "sqlite copy": back} {
		var seq int64
		err := st.Write(ctx, func(tx hub.Tx) error {
			e := &hub.Event{Type: "test", CreatedAt: storetest.T0()}
			err := tx.AppendEvent(ctx, e)
			seq = e.Seq
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if seq != lastEvent+1 {
			t.Errorf("%s: next event seq = %d, want %d (after the deleted ones)", name, seq, lastEvent+1)
		}
	}
}

func TestRefusesNonEmptyTargetUnlessForced(t *testing.T) {
	ctx := context.Background()
	lite := openSQLite(t, filepath.Join(t.TempDir(), "a.db"))
	clock := &storetest.Clock{T: storetest.T0()}
	_, err := hub.NewService(lite, clock, t.TempDir()).Post(ctx, hub.PostInput{From: "alice", Content: "one"})
	storetest.Ok(t, err)
	pg := openPG(t, pgtest.URL(t))
	pgSvc := hub.NewService(pg, clock, t.TempDir())
	for i := 0; i < 3; i++ {
		_, err = pgSvc.Post(ctx, hub.PostInput{From: "zed", Content: "already here"})
		storetest.Ok(t, err)
	}
	_, err = storecopy.Copy(ctx, lite, pg, storecopy.Options{})
	storetest.WantCode(t, err, hub.CodeConflict)
	if !strings.Contains(err.Error(), "messages: 3") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("message should name the rows and --force: %v", err)
	}
	var n int
	_ = pg.SQL().QueryRow(`SELECT COUNT(*) FROM messages`).Scan(&n)
	if n != 3 {
		t.Fatalf("refused copy changed the target: %d messages", n)
	}
	if _, err := storecopy.Copy(ctx, lite, pg, storecopy.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	compare(t, "forced", dump(t, lite), dump(t, pg))
}
