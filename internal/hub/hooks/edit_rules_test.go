package hooks_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// incursions counts the INCURSION events on the board.
func incursions(t *testing.T, svc *app.Service) []hub.Event {
	t.Helper()
	limit := 100
	evs, err := svc.Events(context.Background(), hub.EventQuery{Types: []string{hub.EventIncursion}, Limit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	return evs.Events
}

func reserve(t *testing.T, svc *app.Service, agent, scope string, ttl int) {
	t.Helper()
	if _, err := svc.Reserve(context.Background(), hub.ReserveInput{Agent: agent, Scope: scope, BeadID: "bd-1", TTLMinutes: &ttl}); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, svc *app.Service, in hooks.EditInput) hooks.EditDecision {
	t.Helper()
	d, err := svc.CheckEdit(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hooks.mode off checks nothing; warn allows a held file with the reason
// as a warning and records the incursion.
func TestCheckEditModeOffAndWarn(t *testing.T) {
	ctx := context.Background()
	off, _ := hookBoard(t, map[string]string{"BB_HOOKS_MODE": "off"})
	a, b := session(t, off, "s-a"), session(t, off, "s-b")
	reserve(t, off, a, "src/x.go", 30)
	d := edit(t, off, hooks.EditInput{Agent: b, Paths: []string{"src/x.go", "docs/y.md"}})
	if d.Mode != hub.ModeOff || d.Decision != hooks.EditAllow || d.Reason.String() != "" || d.Note.String() != "" || len(d.Reserved) != 0 || d.Merge == nil || len(d.Check.Paths) != 0 {
		t.Fatalf("mode off: %+v", d)
	}
	if n := len(incursions(t, off)); n != 0 {
		t.Fatalf("mode off recorded %d incursions", n)
	}

	warn, _ := hookBoard(t, map[string]string{"BB_HOOKS_MODE": "warn"})
	a, b = session(t, warn, "s-a"), session(t, warn, "s-b")
	reserve(t, warn, a, "src/x.go", 30)
	d = edit(t, warn, hooks.EditInput{Agent: b, Paths: []string{"src/x.go", "docs/y.md"}})
	if d.Decision != hooks.EditAllow || d.Reason.String() != "" || !strings.HasPrefix(d.Note.String(), "Warning (hooks.mode warn): Blackboard: src/x.go is reserved by "+a) || len(d.Reserved) != 0 || !d.Check.Blocking {
		t.Fatalf("mode warn: %+v", d)
	}
	evs := incursions(t, warn)
	if len(evs) != 1 || evs[0].Agent != b || evs[0].BeadID != "edit" {
		t.Fatalf("mode warn incursions: %+v", evs)
	}
	if _, err := warn.CheckEdit(ctx, hooks.EditInput{Agent: b, Paths: make([]string, 2001)}); !hub.IsCode(err, hub.CodeInvalidArgs) {
		t.Fatalf("too many paths: %v", err)
	}
	if _, err := warn.CheckEdit(ctx, hooks.EditInput{Agent: "ghost", Paths: []string{"a.go"}}); !hub.IsCode(err, hub.CodeAgentNotFound) {
		t.Fatalf("an unknown agent: %v", err)
	}
}

// With auto-reserve off, an edit reserves nothing: a stale holder's file is
// allowed with a note and its incursion recorded; a free file needs no
// write at all.
func TestCheckEditAutoReserveOff(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, map[string]string{"BB_HOOKS_AUTO_RESERVE": "off"})
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	reserve(t, svc, a, "src/x.go", 60)
	clk.T = t0.Add(20 * time.Minute)
	if _, err := svc.Heartbeat(ctx, b); err != nil {
		t.Fatal(err)
	}
	counted, cs := hubtest.Counting(svc.Kernel())
	svc = app.New(counted)
	d := edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/x.go"}})
	if d.Decision != hooks.EditAllow || !strings.Contains(d.Note.String(), "may be taken over") || strings.Contains(d.Note.String(), "for you") || len(d.Reserved) != 0 || cs.Writes != 1 {
		t.Fatalf("stale holder, auto-reserve off: %+v, %d writes", d, cs.Writes)
	}
	evs := incursions(t, svc)
	if len(evs) != 1 || evs[0].Message != "cobalt-willow edited src/x.go inside coral-yak's reservation of src/x.go (exact overlap)" {
		t.Fatalf("incursions: %+v", evs)
	}
	cs.Writes = 0
	d = edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"docs/y.md"}})
	if d.Decision != hooks.EditAllow || d.Note.String() != "" || len(d.Reserved) != 0 || cs.Writes != 0 {
		t.Fatalf("free file, auto-reserve off: %+v, %d writes", d, cs.Writes)
	}
}

// A file the agent holds is reserved again only once half the automatic
// TTL has passed, and never when a wider scope of its own covers it; the
// bead of an automatic reservation is the agent's focus, else "edit".
func TestCheckEditRenewsHalfExpired(t *testing.T) {
	svc, clk := hookBoard(t, nil)
	a := session(t, svc, "s-a")
	counted, cs := hubtest.Counting(svc.Kernel())
	svc = app.New(counted)
	check := func(path string) hooks.EditDecision {
		t.Helper()
		cs.Writes = 0
		return edit(t, svc, hooks.EditInput{Agent: a, Paths: []string{path}})
	}
	if d := check("src/x.go"); len(d.Reserved) != 1 || d.Reserved[0] != "src/x.go" || cs.Writes != 1 {
		t.Fatalf("first edit: %+v", d)
	}
	clk.T = t0.Add(5 * time.Minute)
	if d := check("src/x.go"); len(d.Reserved) != 0 || cs.Writes != 0 {
		t.Fatalf("5 of 15 minutes: %+v, %d writes", d, cs.Writes)
	}
	clk.T = t0.Add(9 * time.Minute)
	if d := check("src/x.go"); len(d.Reserved) != 1 || cs.Writes != 1 || !d.Check.Paths[0].Held {
		t.Fatalf("9 of 15 minutes: %+v, %d writes", d, cs.Writes)
	}
	limit := 10
	evs, err := svc.Events(context.Background(), hub.EventQuery{Types: []string{hub.EventReservationRenewed}, Limit: &limit})
	if err != nil || len(evs.Events) != 1 || evs.Events[0].BeadID != "edit" || evs.Events[0].Message != a+" renewed src/x.go for 15m" {
		t.Fatalf("renewal: %+v %v", evs, err)
	}
	reserve(t, svc, a, "lib/*", 5)
	clk.T = clk.T.Add(4 * time.Minute)
	if d := check("lib/y.go"); len(d.Reserved) != 0 || cs.Writes != 0 {
		t.Fatalf("covered by a wildcard of its own: %+v, %d writes", d, cs.Writes)
	}
}

// The merge check: a file another active agent changed on a branch not
// known to be merged warns (or, in block mode, denies) an edit on another
// branch; branches the caller found merged are left out.
func TestCheckEditMergeRisk(t *testing.T) {
	ctx := context.Background()
	svc, _ := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	feat := hub.Where{Worktree: ".claude/worktrees/feat", Branch: "feat", Host: "h1"}
	if d := edit(t, svc, hooks.EditInput{Agent: a, Paths: []string{"src/m.go"}, Where: feat}); len(d.Reserved) != 1 {
		t.Fatalf("a's edit on feat: %+v", d)
	}
	if _, err := svc.Release(ctx, a, "", "src/m.go"); err != nil {
		t.Fatal(err)
	}
	main := hub.Where{Worktree: ".", Branch: "main"}
	if _, err := svc.SetConfig(ctx, "human", hub.ConfigHooksMergeCheck, "block"); err != nil {
		t.Fatal(err)
	}
	d := edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/m.go"}, Where: main})
	if d.Decision != hooks.EditDeny || !strings.HasSuffix(d.Reason.String(), "(hooks.merge_check block)") || len(d.Reserved) != 0 ||
		len(d.Merge) != 1 || d.Merge[0] != (hooks.MergeRisk{Path: "src/m.go", AgentID: a, Branch: "feat", Worktree: feat.Worktree, Host: "h1"}) {
		t.Fatalf("merge check block: %+v", d)
	}
	for _, w := range []string{"src/m.go was changed by " + a + " on branch feat in .claude/worktrees/feat (host h1), which is not merged yet",
		"coordinate first: coordinate(branch=feat from=" + b + " path=src/m.go to=" + a + ")"} {
		if !strings.Contains(domainWords(d.Reason), w) {
			t.Fatalf("merge reason lacks %q: %s", w, domainWords(d.Reason))
		}
	}
	if _, err := svc.SetConfig(ctx, "human", hub.ConfigHooksMergeCheck, "warn"); err != nil {
		t.Fatal(err)
	}
	d = edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/m.go"}, Where: main})
	if d.Decision != hooks.EditAllow || !strings.HasPrefix(d.Note.String(), "Warning (hooks.merge_check warn): Blackboard: src/m.go was changed by") || len(d.Reserved) != 1 {
		t.Fatalf("merge check warn: %+v", d)
	}
	d = edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/m.go"}, Where: main, Merged: []hooks.MergeRisk{{Path: "src/m.go", Branch: "feat"}}})
	if d.Decision != hooks.EditAllow || d.Note.String() != "" || len(d.Merge) != 0 {
		t.Fatalf("feat known merged: %+v", d)
	}
	// The same branch is no risk.
	if d := edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/m.go"}, Where: feat}); len(d.Merge) != 0 {
		t.Fatalf("same branch: %+v", d)
	}
}

// raceStore runs before once, just before the next write transaction.
type raceStore struct {
	hub.Store
	before func()
}

func (r *raceStore) Write(ctx context.Context, fn func(hub.Tx) error) error {
	if f := r.before; f != nil {
		r.before = nil
		f()
	}
	return r.Store.Write(ctx, fn)
}

// A file another active agent reserved between the check and the
// automatic reservation is denied in block mode and warned of in warn mode.
func TestCheckEditTakenSinceCheck(t *testing.T) {
	for _, mode := range []string{hub.ModeBlock, hub.ModeWarn} {
		svc, _ := hookBoard(t, map[string]string{"BB_HOOKS_MODE": mode})
		a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
		var rs *raceStore
		svc = app.New(svc.Kernel().WithStore(func(st hub.Store) hub.Store {
			rs = &raceStore{Store: st}
			return rs
		}))
		rs.before = func() { reserve(t, svc, a, "src/r.go", 30) }
		d := edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/r.go"}})
		want := "Blackboard: cannot reserve src/r.go: " + a + " holds src/r.go"
		switch mode {
		case hub.ModeBlock:
			if d.Decision != hooks.EditDeny || !strings.HasPrefix(d.Reason.String(), want) || d.Note.String() != "" {
				t.Fatalf("block: %+v", d)
			}
		default:
			if d.Decision != hooks.EditAllow || d.Reason.String() != "" || !strings.HasPrefix(d.Note.String(), "Warning (hooks.mode warn): cannot reserve src/r.go: "+a) {
				t.Fatalf("warn: %+v", d)
			}
		}
		if len(d.Reserved) != 0 {
			t.Fatalf("%s: reserved %v", mode, d.Reserved)
		}
	}
}

// The end-of-turn reminder names the unexpired reservations without
// uncommitted changes under them (at most three release commands) and the
// acks owed; without a session row it is given every time.
func TestStopReminderItems(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	reserve(t, svc, a, "old.go", 5)
	clk.T = t0.Add(6 * time.Minute)
	for _, sc := range []string{"src/x.go", "src/*", "d1.go", "d2.go", "d3.go"} {
		reserve(t, svc, a, sc, 30)
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryBlocked, Subject: "need you", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryInfo, Subject: "fyi", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	in := hooks.StopInput{Client: "claude", Agent: a, ChangesKnown: true, Changes: []string{"src/y.go"}}
	r, err := svc.StopReminder(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"[Blackboard] Before you stop: You still reserve d1.go, d2.go, d3.go, src/x.go but have no uncommitted changes there",
		"release(agent=" + a + " scope=d1.go); release(agent=" + a + " scope=d2.go); release(agent=" + a + " scope=d3.go); …",
		". You owe acks on: BLOCKED from " + b + " \"need you\": ack(agent=" + a + " message=",
	} {
		if !strings.Contains(domainWords(r.Text), w) {
			t.Fatalf("reminder lacks %q:\n%s", w, domainWords(r.Text))
		}
	}
	if strings.Contains(r.Text.String(), "old.go") || strings.Contains(r.Text.String(), "src/*") || strings.Contains(r.Text.String(), "fyi") || !strings.HasSuffix(r.Text.String(), ".") {
		t.Fatalf("reminder: %s", r.Text.String())
	}
	if again, _ := svc.StopReminder(ctx, in); again.Text.String() != r.Text.String() {
		t.Fatalf("no session row: the reminder is given again, got %q", again.Text.String())
	}
	in.ChangesKnown = false
	if r, _ := svc.StopReminder(ctx, in); strings.Contains(r.Text.String(), "reserve") || !strings.Contains(r.Text.String(), "owe acks") {
		t.Fatalf("changes unknown: %q", r.Text.String())
	}
	// In a session: once, and again when something new is owed.
	sin := hooks.StopInput{Client: "claude", SessionID: "s-a", Agent: a}
	if r, _ := svc.StopReminder(ctx, sin); !strings.Contains(r.Text.String(), "owe acks") {
		t.Fatalf("session, first: %q", r.Text.String())
	}
	if r, _ := svc.StopReminder(ctx, sin); r.Text.String() != "" {
		t.Fatalf("session, second: %q", r.Text.String())
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryHandoff, Subject: "take it", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := svc.StopReminder(ctx, sin); !strings.Contains(r.Text.String(), "take it") {
		t.Fatalf("session, new handoff: %q", r.Text.String())
	}
	if _, err := svc.StopReminder(ctx, hooks.StopInput{Client: "claude", Agent: "bad name"}); err == nil {
		t.Fatal("a bad agent name was accepted")
	}
	if r, err := svc.StopReminder(ctx, hooks.StopInput{Client: "claude", SessionID: "s-b", Agent: b, ChangesKnown: true}); err != nil || r.Text.String() != "" {
		t.Fatalf("nothing to remind of: %q %v", r.Text.String(), err)
	}
}

// domainWords words the actions said in a text of the hook application
// as do(arg=value …), arguments sorted: what the core asks, before any
// surface's syntax.
func domainWords(text hub.Text) string {
	return text.Words(func(a hub.Action) string {
		keys := make([]string, 0, len(a.Args))
		for k := range a.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+"="+a.Args[k])
		}
		return a.Do + "(" + strings.Join(kv, " ") + ")"
	})
}

// A record of an edit on a branch is forgotten once older than
// BranchEditRetention, when its file is edited again: the records a check
// reads stay few on the files everyone edits.
func TestBranchEditsAreForgottenAfterRetention(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, nil)
	a, b, c := session(t, svc, "s-a"), session(t, svc, "s-b"), session(t, svc, "s-c")
	for _, e := range []struct {
		agent, branch string
	}{{a, "feat"}, {c, "other"}} {
		if e.agent == c {
			clk.T = clk.T.Add(hooks.BranchEditRetention + time.Hour)
		}
		if d := edit(t, svc, hooks.EditInput{Agent: e.agent, Paths: []string{"src/m.go"}, Where: hub.Where{Branch: e.branch}}); len(d.Reserved) != 1 {
			t.Fatalf("%s's edit on %s: %+v", e.agent, e.branch, d)
		}
		if _, err := svc.Release(ctx, e.agent, "", "src/m.go"); err != nil {
			t.Fatal(err)
		}
	}
	// Both are active now: only the age of a's record can hide it.
	session(t, svc, "s-a")
	session(t, svc, "s-c")
	d := edit(t, svc, hooks.EditInput{Agent: b, Paths: []string{"src/m.go"}, Where: hub.Where{Branch: "main"}})
	if len(d.Merge) != 1 || d.Merge[0].AgentID != c || d.Merge[0].Branch != "other" {
		t.Fatalf("merge risks after %s: %+v, want only %s on other", hooks.BranchEditRetention, d.Merge, c)
	}
}
