package hooks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

var t0 = hubtest.T0

// hookBoard is a fresh board with the applications over it.
func hookBoard(t testing.TB, env map[string]string) (*app.Service, *hubtest.Clock) {
	t.Helper()
	svc, clk := hubtest.Board(t, env)
	return app.New(svc), clk
}

func session(t *testing.T, svc *app.Service, id string) string {
	t.Helper()
	r, err := svc.ResolveSession(context.Background(), hooks.SessionInput{Client: "claude", SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	return r.AgentID
}

// The edit rule: a held file (exact or under a wildcard) blocks while its
// owner is active, only notes once the owner is stale; one's own
// reservations never block; every free file is reserved for the editor.
func TestCheckPathsAndEdit(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	if a == b {
		t.Fatal("two sessions, one agent")
	}
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: a, Scope: "src/*", BeadID: "bd-1"}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.CheckPaths(ctx, hooks.PathCheckInput{Agent: b, Paths: []string{"src/x.go", "docs/y.md"}})
	if err != nil || !res.Blocking || res.Paths[0].Outcome != hub.CheckConflict || res.Paths[1].Outcome != hub.CheckClear {
		t.Fatalf("check: %+v %v", res, err)
	}
	if !strings.Contains(res.Reason.String(), a) || !strings.Contains(res.Reason.String(), "src/*") || !strings.Contains(res.Reason.String(), "bd-1") {
		t.Fatalf("reason: %s", res.Reason.String())
	}
	own, _ := svc.CheckPaths(ctx, hooks.PathCheckInput{Agent: a, Paths: []string{"src/x.go"}})
	if own.Blocking || !own.Paths[0].Held {
		t.Fatalf("own reservation: %+v", own)
	}
	d, err := svc.CheckEdit(ctx, hooks.EditInput{Agent: b, Paths: []string{"src/x.go"}})
	if err != nil || d.Decision != hooks.EditDeny {
		t.Fatalf("edit of a held file: %+v %v", d, err)
	}
	d, _ = svc.CheckEdit(ctx, hooks.EditInput{Agent: b, Paths: []string{"docs/y.md"}})
	if d.Decision != hooks.EditAllow || len(d.Reserved) != 1 {
		t.Fatalf("edit of a free file: %+v", d)
	}
	// 20 minutes on, only b has been seen: a is stale, its hold may be taken.
	clk.T = t0.Add(20 * time.Minute)
	if _, err := svc.Heartbeat(ctx, b); err != nil {
		t.Fatal(err)
	}
	d, _ = svc.CheckEdit(ctx, hooks.EditInput{Agent: b, Paths: []string{"src/x.go"}})
	if d.Decision != hooks.EditAllow || !strings.Contains(d.Note.String(), "taken over") {
		t.Fatalf("stale holder: %+v", d)
	}
	// The refused edit is a conflict (nothing was written inside a's
	// reservation); the takeover archived a's reservation before the
	// edit: no INCURSION either.
	limit := 10
	evs, _ := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationConflict}, Limit: &limit})
	if len(evs.Events) != 1 || evs.Events[0].Agent != b || evs.Events[0].ToAgent != a {
		t.Fatalf("the refused edit is one conflict: %+v", evs.Events)
	}
	if evs, _ = svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventIncursion}, Limit: &limit}); len(evs.Events) != 0 {
		t.Fatalf("no edit went ahead inside another's reservation: %+v", evs.Events)
	}
}

// Mail reaches the agent's context once; non-urgent broadcasts are left to
// the inbox; nothing new yields nothing.
func TestDeliverOnce(t *testing.T) {
	ctx := context.Background()
	svc, _ := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	if d, _ := svc.DeliverNew(ctx, a); d.Text.String() != "" {
		t.Fatalf("nothing new: %q", d.Text.String())
	}
	m, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryInfo, Subject: "hello", Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Post(ctx, hub.PostInput{From: b, Content: "fyi"}); err != nil {
		t.Fatal(err)
	}
	d, err := svc.DeliverNew(ctx, a)
	if err != nil || !strings.Contains(d.Text.String(), "hello") || strings.Contains(d.Text.String(), "fyi") || len(d.Delivered) != 1 {
		t.Fatalf("first delivery: %+v %v", d, err)
	}
	if again, _ := svc.DeliverNew(ctx, a); again.Text.String() != "" {
		t.Fatalf("twice: %q", again.Text.String())
	}
	rs, _ := svc.DeliveredTo(ctx, a, []string{m.UUID})
	if len(rs) != 1 {
		t.Fatalf("delivered_to: %+v", rs)
	}
	items, _ := svc.Inbox(ctx, hub.InboxQuery{Agent: a})
	for _, it := range items {
		if it.UUID == m.UUID && (it.DeliveredAt == nil || it.State != hub.StateUnread) {
			t.Fatalf("inbox item: %+v", it)
		}
	}
	// hooks.delivery off: nothing is delivered.
	if _, err := svc.SetConfig(ctx, b, hub.ConfigHooksDelivery, "off"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryInfo, Subject: "later", Body: "y"}); err != nil {
		t.Fatal(err)
	}
	if d, _ := svc.DeliverNew(ctx, a); d.Text.String() != "" {
		t.Fatalf("delivery off: %q", d.Text.String())
	}
}

func TestConfig(t *testing.T) {
	ctx := context.Background()
	svc, _ := hookBoard(t, map[string]string{"BB_HOOKS_AUTO_RESERVE": "off"})
	if _, err := svc.SetConfig(ctx, "human", hub.ConfigHooksMode, "sometimes"); !hub.IsCode(err, hub.CodeInvalidInput) {
		t.Fatalf("bad value: %v", err)
	}
	if _, err := svc.SetConfig(ctx, "human", "hooks.nope", "on"); !hub.IsCode(err, hub.CodeInvalidInput) {
		t.Fatalf("bad key: %v", err)
	}
	e, err := svc.SetConfig(ctx, "human", hub.ConfigHooksMode, "WARN")
	if err != nil || e.Value != "warn" || e.Source != "board" {
		t.Fatalf("set: %+v %v", e, err)
	}
	set, _ := svc.GetHookSettings(ctx)
	if set.Mode != hub.ModeWarn || set.AutoReserve || set.ReserveTTL != 15 {
		t.Fatalf("settings (env wins for auto_reserve): %+v", set)
	}
}

// The end-of-turn reminder is given once, and never while the client's
// stop hook is already active.
func TestStopReminderOnce(t *testing.T) {
	ctx := context.Background()
	svc, _ := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryHandoff, Subject: "yours", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	in := hooks.StopInput{Client: "claude", SessionID: "s-a", Agent: a, ChangesKnown: true}
	if r, _ := svc.StopReminder(ctx, hooks.StopInput{Client: "claude", SessionID: "s-a", Agent: a, HookActive: true}); r.Text.String() != "" {
		t.Fatalf("stop hook active: %q", r.Text.String())
	}
	r, err := svc.StopReminder(ctx, in)
	if err != nil || !strings.Contains(r.Text.String(), "owe acks") {
		t.Fatalf("first: %q %v", r.Text.String(), err)
	}
	if r, _ := svc.StopReminder(ctx, in); r.Text.String() != "" {
		t.Fatalf("second: %q", r.Text.String())
	}
}

// A turn's hook event (DeliverToSession) resolves the session and delivers
// in one read transaction when the session is mapped and fresh and nothing
// is new; otherwise it does what ResolveSession then DeliverNew do.
func TestDeliverToSession(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, nil)
	counted, cs := hubtest.Counting(svc.Kernel())
	svc = app.New(counted)
	in := hooks.SessionInput{Client: "claude", SessionID: "s-a"}
	first, err := svc.DeliverToSession(ctx, in)
	if err != nil || !first.Session.New || first.Session.AgentID == "" || first.Delivery.Text.String() != "" {
		t.Fatalf("first sight: %+v %v", first, err)
	}
	a := first.Session.AgentID
	if again := session(t, svc, "s-a"); again != a {
		t.Fatalf("the session maps to %s, then %s", a, again)
	}
	cs.Reads, cs.Writes = 0, 0
	quiet, err := svc.DeliverToSession(ctx, in)
	if err != nil || quiet.Session.AgentID != a || quiet.Session.New || quiet.Delivery.Text.String() != "" || quiet.Delivery.Delivered == nil {
		t.Fatalf("nothing new: %+v %v", quiet, err)
	}
	if cs.Reads != 1 || cs.Writes != 0 {
		t.Fatalf("nothing new took %d reads, %d writes; want one read", cs.Reads, cs.Writes)
	}
	b := session(t, svc, "s-b")
	if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryInfo, Subject: "hello", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	d, err := svc.DeliverToSession(ctx, in)
	if err != nil || d.Session.AgentID != a || !strings.Contains(d.Delivery.Text.String(), "hello") || len(d.Delivery.Delivered) != 1 {
		t.Fatalf("new mail: %+v %v", d, err)
	}
	if again, _ := svc.DeliverToSession(ctx, in); again.Delivery.Text.String() != "" {
		t.Fatalf("delivered twice: %q", again.Delivery.Text.String())
	}
	// A session not seen lately is refreshed (a write), as ResolveSession does.
	clk.T = clk.T.Add(2 * time.Minute)
	cs.Reads, cs.Writes = 0, 0
	if r, err := svc.DeliverToSession(ctx, in); err != nil || r.Session.AgentID != a {
		t.Fatalf("stale session: %+v %v", r, err)
	}
	if cs.Writes != 1 {
		t.Fatalf("a session not seen for 2 minutes was refreshed by %d writes, want 1", cs.Writes)
	}
	if v, err := svc.AgentStatus(ctx, a); err != nil || !v.LastSeen.Equal(svc.Now()) {
		t.Fatalf("last_seen %v (%v), want %v", v.LastSeen, err, svc.Now())
	}
	if _, err := svc.DeliverToSession(ctx, hooks.SessionInput{Client: "claude"}); !hub.IsCode(err, hub.CodeInvalidArgs) {
		t.Fatalf("no session id: %v", err)
	}
}

// An edit check for a hook session: a session mapped and seen lately is
// looked up in the check's own read (one read, no write when the file is
// the agent's own); an unknown session is mapped first, as ResolveSession
// does; the decision is the one the check gives for the session's agent.
func TestCheckEditForSession(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, map[string]string{})
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: a, Scope: "src/*", BeadID: "bd-1"}); err != nil {
		t.Fatal(err)
	}
	counted, cs := hubtest.Counting(svc.Kernel())
	svc = app.New(counted)
	check := func(id string, paths ...string) hooks.EditDecision {
		t.Helper()
		cs.Reads, cs.Writes = 0, 0
		d, err := svc.CheckEdit(ctx, hooks.EditInput{Session: &hooks.SessionInput{Client: "claude", SessionID: id}, Paths: paths})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := check("s-a", "src/x.go"); d.Decision != hooks.EditAllow || cs.Reads != 1 || cs.Writes != 0 {
		t.Fatalf("own held file: %+v, %d reads, %d writes; want allowed in one read", d, cs.Reads, cs.Writes)
	}
	if d := check("s-b", "src/x.go"); d.Decision != hooks.EditDeny || !strings.Contains(d.Reason.String(), a) {
		t.Fatalf("b edits a's file: %+v", d)
	}
	if d := check("s-c", "src/x.go"); d.Decision != hooks.EditDeny {
		t.Fatalf("a new session edits a's file: %+v", d)
	}
	c := session(t, svc, "s-c")
	if c == a || c == b {
		t.Fatalf("the new session was mapped to %s", c)
	}
	clk.T = clk.T.Add(2 * time.Minute)
	if check("s-a", "src/x.go"); cs.Writes == 0 {
		t.Fatal("a session not seen for 2 minutes was not refreshed")
	}
	if v, err := svc.AgentStatus(ctx, a); err != nil || !v.LastSeen.Equal(svc.Now()) {
		t.Fatalf("last_seen %v (%v), want %v", v.LastSeen, err, svc.Now())
	}
	if _, err := svc.CheckEdit(ctx, hooks.EditInput{Session: &hooks.SessionInput{Client: "claude"}, Paths: []string{"a"}}); !hub.IsCode(err, hub.CodeInvalidArgs) {
		t.Fatalf("a session without an id: %v", err)
	}
}
