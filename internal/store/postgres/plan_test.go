package postgres_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// postBroadcasts stores n board posts from 20 agents, in group commits of
// 50 with check-ins, as bb serve does.
func postBroadcasts(t *testing.T, svc *hub.Service, n int) {
	t.Helper()
	for done := 0; done < n; done += 50 {
		var ops []hub.PostOp
		for i := done; i < min(done+50, n); i++ {
			ops = append(ops, hub.PostOp{In: hub.PostInput{From: fmt.Sprintf("poster-%02d", i%20), Content: fmt.Sprintf("post %d", i),
				Tags: []string{"load"}}, CheckIn: true})
		}
		for _, r := range svc.PostMany(context.Background(), ops) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
}

// A new board gets planner statistics while it grows (statsKeeper): no
// autovacuum is needed for the messages table to be analyzed once it
// passed a few hundred messages.
func TestYoungBoardIsAnalyzedAsItGrows(t *testing.T) {
	st := open(t, migrated(t))
	svc := hub.NewService(st, nil, t.TempDir())
	ctx := context.Background()
	analyzed := func() (n int64) {
		if err := st.SQL().QueryRowContext(ctx, `SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'messages'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	postBroadcasts(t, svc, 200)
	if n := analyzed(); n != 0 {
		t.Fatalf("messages analyzed %d times at 200 messages, want 0 (the first step is 256)", n)
	}
	postBroadcasts(t, svc, 100)
	deadline := time.Now().Add(60 * time.Second)
	for analyzed() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("messages was not analyzed after the board passed 256 messages")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// PostgreSQL keeps a prepared statement's generic plan (made for any
// parameter values) once it finds it as cheap as a plan made for the
// values, so the plans of the hot statements a server keeps are their
// generic plans. On a board of broadcasts, after statistics were gathered,
// none of them reads the whole messages table: the check-in's counts and a
// page of the log, each run once here and explained with
// plan_cache_mode = force_generic_plan.
func TestHotStatementsGenericPlansOnABoardOfBroadcasts(t *testing.T) {
	st := open(t, migrated(t))
	svc := hub.NewService(st, nil, t.TempDir())
	ctx := context.Background()
	postBroadcasts(t, svc, 3000)
	if _, err := st.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	type stmt struct {
		q    string
		args []any
	}
	var seen []stmt
	st.OnQuery = func(q string, args []any) { seen = append(seen, stmt{q, append([]any(nil), args...)}) }
	if _, err := svc.CheckIn(ctx, "poster-03"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Log(ctx, hub.LogQuery{Limit: 20}); err != nil {
		t.Fatal(err)
	}
	st.OnQuery = nil
	conn, err := st.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	whole := regexp.MustCompile(`Seq Scan on messages|Index Scan using idx_messages_recipient on messages \S+ +\(cost=[^)]*rows=\d{3,}`)
	checked := map[string]bool{}
	for i, s := range seen {
		q := strings.TrimSpace(s.q)
		kind := ""
		switch {
		case strings.Contains(q, "AS newest, '' FROM"):
			kind = "check-in counts"
		case strings.HasPrefix(q, "SELECT m.id") && strings.Contains(q, "ORDER BY m.seq DESC LIMIT"):
			kind = "log page"
		default:
			continue
		}
		checked[kind] = true
		name := fmt.Sprintf("p%d", i)
		if _, err := conn.ExecContext(ctx, "PREPARE "+name+" AS "+q); err != nil {
			t.Fatalf("prepare %s: %v", q, err)
		}
		vals := make([]string, len(s.args))
		for j, a := range s.args {
			switch v := a.(type) {
			case string:
				vals[j] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			default:
				vals[j] = fmt.Sprint(v)
			}
		}
		exec := "EXPLAIN EXECUTE " + name
		if len(vals) > 0 {
			exec += "(" + strings.Join(vals, ", ") + ")"
		}
		rows, err := conn.QueryContext(ctx, exec)
		if err != nil {
			t.Fatalf("%s: %v", exec, err)
		}
		var plan strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(line + "\n")
		}
		rows.Close()
		if !strings.Contains(plan.String(), "$1") && len(vals) > 0 {
			t.Errorf("%s: not a generic plan (no parameter in it):\n%s", kind, plan.String())
		}
		if whole.MatchString(plan.String()) {
			t.Errorf("%s: the generic plan reads every message:\n%s\nplan:\n%s", kind, q, plan.String())
		}
	}
	for _, kind := range []string{"check-in counts", "log page"} {
		if !checked[kind] {
			t.Errorf("the %s statement was not seen", kind)
		}
	}
}
