package overview_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// An idle session with mail waiting for its agent is on the list: at once
// when its client cannot be woken (one item, one id, for the idle
// stretch, however much more arrives; gone when a turn delivers it);
// when its client can be woken, only once the mail has waited longer
// than a wake takes (no waiter ran).
func TestUnheardIdleSessions(t *testing.T) {
	ctx := context.Background()
	k, clk := hubtest.Board(t, nil)
	svc, hk := overview.New(k), hooks.New(k)
	if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: "carol", Role: "worker"}); err != nil {
		t.Fatal(err)
	}
	session := func(client, id string, idle bool) string {
		t.Helper()
		res, err := hk.ResolveSession(ctx, hooks.SessionInput{Client: client, SessionID: id, Idle: idle})
		if err != nil {
			t.Fatal(err)
		}
		return res.AgentID
	}
	send := func(to, subject string) {
		t.Helper()
		if _, err := k.SendMail(ctx, hub.SendInput{From: "carol", To: to, BeadID: "bb-1", Category: "INFO", Subject: subject, Body: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	unheard := func() []overview.AttentionItem {
		t.Helper()
		a, err := svc.Attention(ctx, overview.AttentionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []overview.AttentionItem
		for _, it := range a.Items {
			if it.Kind == overview.AttentionUnheard {
				out = append(out, it)
			}
		}
		return out
	}

	gem := session("gemini", "g1", false) // a turn runs
	clk.T = clk.T.Add(2 * time.Minute)
	session("gemini", "g1", true) // its turn ended
	if got := unheard(); len(got) != 0 {
		t.Fatalf("idle with nothing waiting: %+v", got)
	}
	clk.T = clk.T.Add(time.Second)
	send(gem, "schema ready")
	got := unheard()
	want := "idle with 1 unread for " + gem + " (Gemini CLI cannot be woken)"
	if len(got) != 1 || got[0].Subject != want || got[0].Agent != gem || len(got[0].Choices("dana")) != 0 {
		t.Fatalf("at once after the mail: %+v, want %q", got, want)
	}
	id := got[0].ID()
	clk.T = clk.T.Add(3 * time.Minute)
	send(gem, "and the tests")
	session("gemini", "g1", true) // a second Stop keeps the stretch
	got = unheard()
	if len(got) != 1 || !strings.HasPrefix(got[0].Subject, "idle with 2 unread for ") || got[0].ID() != id || got[0].WaitingMinutes != 3 {
		t.Fatalf("more mail in the same idle stretch: %+v, want one item of id %s", got, id)
	}
	// The person types into it: the prompt hook delivers both.
	clk.T = clk.T.Add(time.Minute)
	if _, err := hk.DeliverToSession(ctx, hooks.SessionInput{Client: "gemini", SessionID: "g1", Via: hooks.ViaPrompt}); err != nil {
		t.Fatal(err)
	}
	if got := unheard(); len(got) != 0 {
		t.Fatalf("after its turn delivered the mail: %+v", got)
	}
	// Its turn ends with mail that arrived in it: a new stretch, a new
	// item, and an event that moves the timeline's followers.
	send(gem, "one more")
	clk.T = clk.T.Add(2 * time.Minute)
	session("gemini", "g1", true)
	got = unheard()
	if len(got) != 1 || got[0].ID() == id {
		t.Fatalf("a new idle stretch: %+v (old id %s)", got, id)
	}
	page, err := k.Events(ctx, hub.EventQuery{Types: []string{hub.EventSessionUnheard}})
	evs := page.Events
	if err != nil || len(evs) != 1 || evs[0].Agent != gem || !strings.Contains(evs[0].Message, "Gemini CLI cannot be woken") {
		t.Fatalf("session.unheard events: %+v %v", evs, err)
	}

	// Claude Code can be woken: mail waiting a few seconds is its
	// waiter's to deliver; after a minute, no waiter ran.
	cl := session("claude", "c1", true)
	send(cl, "for claude")
	for _, it := range unheard() {
		if it.Agent == cl {
			t.Fatalf("a wakeable session within the wake's time: %+v", it)
		}
	}
	if a, err := svc.Attention(ctx, overview.AttentionFilter{}); err != nil || !a.NextEscalation.Equal(clk.T.Add(hooks.WakeGrace)) {
		t.Fatalf("the list changes when the wake's time is over: next %v, want %v (%v)", a.NextEscalation, clk.T.Add(hooks.WakeGrace), err)
	}
	clk.T = clk.T.Add(hooks.WakeGrace)
	var found bool
	for _, it := range unheard() {
		if it.Agent == cl {
			found = it.Subject == "idle with 1 unread for "+cl+" (Claude Code was not woken: no waiter runs for this session)"
			if !found {
				t.Errorf("wakeable, not woken: %q", it.Subject)
			}
		}
	}
	if !found {
		t.Fatalf("a wakeable session whose mail waited %s is not listed", hooks.WakeGrace)
	}
}
