package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit"
)

// board is a temporary project with an initialized board.
type board struct {
	t   testing.TB
	dir string
	env []string
}

func newBoard(t testing.TB, env ...string) *board {
	t.Helper()
	b := &board{t: t, dir: t.TempDir(), env: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)}
	b.ok("init")
	return b
}

type result struct {
	code   int
	stdout string
	stderr string
}

func (b *board) run(args ...string) result {
	b.t.Helper()
	cmd := exec.Command(bbPath(), args...)
	cmd.Dir = b.dir
	cmd.Env = b.env
	out, errb, code := testkit.Run(b.t, cmd)
	return result{code, out, errb}
}

func (b *board) ok(args ...string) result {
	b.t.Helper()
	r := b.run(args...)
	if r.code != 0 {
		b.t.Fatalf("bb %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

type envelope struct {
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode(t *testing.T, s string) envelope {
	t.Helper()
	var e envelope
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		t.Fatalf("not an envelope: %v\n%s", err, s)
	}
	return e
}

func (b *board) query(q string, args ...any) [][]any {
	b.t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(b.dir, ".bb", "blackboard.db"), sqlite.Options{})
	if err != nil {
		b.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.SQL().Query(q, args...)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			b.t.Fatal(err)
		}
		out = append(out, vals)
	}
	return out
}

func (b *board) count(q string, args ...any) int64 {
	b.t.Helper()
	return b.query(q, args...)[0][0].(int64)
}

// 16 real processes race to reserve the same scope: exactly one wins, the
// others get RESERVATION_CONFLICT, and exactly one active row exists. A
// second round races on different but overlapping scopes (ancestors and
// descendants of each other): still exactly one winner.
func TestReserveRace(t *testing.T) {
	b := newBoard(t)
	const n = 16
	for i := 0; i < n; i++ {
		b.ok("agent", "register", "--name", fmt.Sprintf("racer-%02d", i), "--role", "race")
	}
	race := func(scope func(i int) string) (wins int, conflicts int) {
		var wg sync.WaitGroup
		res := make([]result, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				res[i] = b.run("--json", "agent", "reserve", "--agent", fmt.Sprintf("racer-%02d", i), "--scope", scope(i), "--bead", "bb-race")
			}(i)
		}
		wg.Wait()
		for i, r := range res {
			e := decode(t, r.stdout)
			switch {
			case r.code == 0 && e.OK:
				wins++
			case r.code == 1 && e.Error != nil && e.Error.Code == "RESERVATION_CONFLICT":
				conflicts++
			default:
				t.Errorf("racer %d: exit %d %s %s", i, r.code, r.stdout, r.stderr)
			}
		}
		return
	}
	wins, conflicts := race(func(int) string { return "src/hot.go" })
	if wins != 1 || conflicts != n-1 {
		t.Fatalf("same scope: %d wins, %d conflicts", wins, conflicts)
	}
	if c := b.count(`SELECT COUNT(*) FROM reservations WHERE state = 'active' AND scope = 'src/hot.go'`); c != 1 {
		t.Fatalf("%d active rows for the scope", c)
	}
	nested := []string{"lib/*", "lib/a", "lib/a/b", "lib/a/b/c.go", "lib"}
	wins, conflicts = race(func(i int) string { return nested[i%len(nested)] })
	if wins != 1 || conflicts != n-1 {
		t.Fatalf("overlapping scopes: %d wins, %d conflicts", wins, conflicts)
	}
	if c := b.count(`SELECT COUNT(*) FROM reservations WHERE state = 'active' AND scope LIKE 'lib%'`); c != 1 {
		t.Fatalf("%d active rows under lib", c)
	}
	// Each loser recorded its conflict; none is an INCURSION (nothing
	// entered a reservation).
	if c := b.count(`SELECT COUNT(*) FROM events WHERE type = 'reservation.conflict'`); c != 2*(n-1) {
		t.Fatalf("%d reservation.conflict events, want %d", c, 2*(n-1))
	}
	if c := b.count(`SELECT COUNT(*) FROM events WHERE type = 'INCURSION'`); c != 0 {
		t.Fatalf("%d INCURSION events, want none", c)
	}
}

// One model: a send writes one messages row (broadcast included), with the
// columns other surfaces read; receipts follow the shared primitives.
func TestSendStoresOneRow(t *testing.T) {
	b := newBoard(t, "BB_NOW=2026-11-21T10:00:00Z")
	for _, n := range []string{"alpha-1", "beta-1", "gamma-1"} {
		b.ok("agent", "register", "--name", n, "--role", "r")
	}
	r := b.ok("--json", "agent", "send", "--from", "alpha-1", "--to", "broadcast", "--bead", "bb-1", "--category", "HANDOFF", "--subject", "s", "--body", "b")
	var m struct {
		MessageID string `json:"message_id"`
	}
	_ = json.Unmarshal(decode(t, r.stdout).Data, &m)
	rows := b.query(`SELECT sender, recipient, type, ttl_hours, category, thread_id, bead_id, requires_ack, seq FROM messages`)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	got := fmt.Sprint(rows[0][:8]...)
	if got != fmt.Sprint("alpha-1", "*", "broadcast", nil, "HANDOFF", "bead:bb-1", "bb-1", int64(1)) || rows[0][8] == nil {
		t.Fatalf("row = %v", rows[0])
	}
	b.ok("agent", "ack", "--agent", "beta-1", "--message", m.MessageID)
	b.ok("agent", "read", "--agent", "gamma-1", "--message", m.MessageID)
	acks := b.query(`SELECT agent, read_at, acked_at FROM broadcast_acks ORDER BY agent`)
	if fmt.Sprint(acks) != "[[beta-1 <nil> 2026-11-21T10:00:00.000000+00:00] [gamma-1 2026-11-21T10:00:00.000000+00:00 <nil>]]" {
		t.Fatalf("broadcast_acks = %v", acks)
	}
	// The sender never sees it; the board log does (one model).
	if e := decode(t, b.ok("--json", "agent", "inbox", "--agent", "alpha-1").stdout); string(e.Data) != "[]" {
		t.Fatalf("sender inbox: %s", e.Data)
	}
	if !strings.Contains(b.ok("log").stdout, "b") {
		t.Fatal("not on the board log")
	}
}

// bb log and bb agent agree on broadcast state: a bb post is an unread
// broadcast in every other agent's bb agent inbox, and reading the board
// log (which advances the read cursor) makes it read there too.
func TestBoardPostsInInbox(t *testing.T) {
	b := newBoard(t)
	b.ok("agent", "register", "--name", "alpha-1", "--role", "r")
	b.ok("agent", "register", "--name", "beta-1", "--role", "r")
	b.ok("--as", "alpha-1", "post", "hello board")
	e := decode(t, b.ok("--json", "agent", "inbox", "--agent", "beta-1", "--state", "unread").stdout)
	if !strings.Contains(string(e.Data), "hello board") {
		t.Fatalf("post not unread in inbox: %s", e.Data)
	}
	b.ok("--as", "beta-1", "log")
	e = decode(t, b.ok("--json", "agent", "inbox", "--agent", "beta-1", "--state", "read").stdout)
	if !strings.Contains(string(e.Data), "hello board") {
		t.Fatalf("post not read after bb log: %s", e.Data)
	}
}

func (b *board) exec(q string, args ...any) {
	b.t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(b.dir, ".bb", "blackboard.db"), sqlite.Options{})
	if err != nil {
		b.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.SQL().Exec(q, args...); err != nil {
		b.t.Fatal(err)
	}
}

// Every protocol event stored (HANDOFF, BLOCKED, INCURSION, RESUME) holds a
// complete v1 envelope (seed 001 §6) whose id and event_type match the row.
func TestProtocolEnvelopes(t *testing.T) {
	b := newBoard(t)
	b.ok("agent", "register", "--name", "amber-otter", "--role", "r")
	b.ok("agent", "register", "--name", "cobalt-harbor", "--role", "r")
	b.ok("agent", "reserve", "--agent", "amber-otter", "--scope", "src/*", "--bead", "bb-1")
	// An edit that goes ahead inside amber-otter's reservation (the edit
	// hook in warn mode) is the INCURSION.
	b.ok("config", "set", "hooks.mode", "warn")
	hook := exec.Command(bbPath(), "hook", "claude", "PreToolUse", "--dir", b.dir)
	hook.Dir, hook.Env = b.dir, append(append([]string{}, b.env...), "BB_AGENT_ID=cobalt-harbor")
	hook.Stdin = strings.NewReader(`{"session_id":"s-c","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"t1","cwd":` +
		strconv.Quote(b.dir) + `,"tool_input":{"file_path":` + strconv.Quote(filepath.Join(b.dir, "src", "x.go")) + `,"old_string":"a","new_string":"b"}}`)
	if out, errb, code := testkit.Run(t, hook); code != 0 || !strings.Contains(out+errb, "hooks.mode warn") {
		t.Fatalf("the edit in warn mode: exit %d\n%s%s", code, out, errb)
	}
	b.ok("agent", "send", "--from", "amber-otter", "--to", "cobalt-harbor", "--bead", "bb-1", "--category", "HANDOFF", "--subject", "s", "--body", "b")
	b.ok("agent", "send", "--from", "cobalt-harbor", "--to", "broadcast", "--bead", "bb-2", "--category", "BLOCKED", "--subject", "s", "--body", "b")
	b.exec(`INSERT INTO tasks (id, title, status, owner, created_at, updated_at) VALUES ('t-1', 't', 'in_progress', 'cobalt-harbor', 'x', 'x')`)
	// Only a departed session is adopted: cobalt-harbor was last seen long ago.
	b.exec(`UPDATE agents SET last_seen = '2000-01-01T00:00:00.000000+00:00' WHERE id = 'cobalt-harbor'`)
	b.ok("agent", "init", "--adopt", "cobalt-harbor")
	rows := b.query(`SELECT id, type, agent, to_agent, bead_id, payload FROM events WHERE type IN ('HANDOFF', 'BLOCKED', 'INCURSION', 'RESUME') ORDER BY seq`)
	seen := map[string]bool{}
	for _, r := range rows {
		id, typ, payload := r[0].(string), r[1].(string), r[5].(string)
		if err := hub.ValidateEnvelope([]byte(payload)); err != nil {
			t.Errorf("%s: %v\n%s", typ, err, payload)
		}
		var env struct {
			ID, EventType, BeadID string
			FromAgent, ToAgent    *string
		}
		_ = json.Unmarshal([]byte(payload), &struct {
			ID        *string  `json:"id"`
			EventType *string  `json:"event_type"`
			BeadID    *string  `json:"bead_id"`
			FromAgent **string `json:"from_agent"`
			ToAgent   **string `json:"to_agent"`
		}{&env.ID, &env.EventType, &env.BeadID, &env.FromAgent, &env.ToAgent})
		if env.ID != id || env.EventType != typ || env.BeadID != r[4].(string) || env.FromAgent == nil || *env.FromAgent != r[2].(string) {
			t.Errorf("%s: envelope %+v does not match its row %v", typ, env, r[:5])
		}
		seen[typ] = true
	}
	if len(seen) != 4 {
		t.Fatalf("protocol events seen: %v", seen)
	}
}
