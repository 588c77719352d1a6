package overview_test

import (
	"context"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// One rule, narrowed: a filter keeps the items of one work item (a
// message's bead, an incursion's, a blocked agent's focus) or of one agent
// (raised by it or waiting on it), the newest Limit of them. A HANDOFF or
// BLOCKED asking for an ack is listed while nobody accepted it and never
// after, critical or not.
func TestAttentionFilter(t *testing.T) {
	ctx := context.Background()
	k, clk := hubtest.Board(t, nil)
	svc := overview.New(k)
	for _, id := range []string{"dana", "bob-1", "carol"} {
		if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: id, Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	send := func(from, to, bead, category, priority, subject string) hub.MailItem {
		t.Helper()
		clk.T = clk.T.Add(time.Minute)
		m, err := k.SendMail(ctx, hub.SendInput{From: from, To: to, BeadID: bead, Category: category, Priority: priority, Subject: subject, Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	acked := send("carol", "dana", "bb-1", hub.CategoryBlocked, "critical", "accepted critical")
	if _, err := k.AckMail(ctx, "dana", acked.UUID); err != nil {
		t.Fatal(err)
	}
	send("carol", "dana", "bb-1", hub.CategoryBlocked, "critical", "open critical")
	send("bob-1", "carol", "bb-2", hub.CategoryHandoff, "normal", "handoff to carol")
	send("bob-1", "dana", "bb-2", hub.CategoryInfo, "critical", "critical info")
	clk.T = clk.T.Add(time.Minute)
	if _, err := k.Post(ctx, hub.PostInput{From: "dana", Content: "dana's critical post", Priority: "critical"}); err != nil {
		t.Fatal(err)
	}

	subjects := func(f overview.AttentionFilter) []string {
		t.Helper()
		a, err := svc.Attention(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range a.Items {
			out = append(out, it.Kind+":"+it.Subject)
		}
		return out
	}
	for _, c := range []struct {
		f    overview.AttentionFilter
		want []string
	}{
		{overview.AttentionFilter{}, []string{"critical:dana's critical post", "critical:critical info", "handoff:handoff to carol", "blocked:open critical"}},
		{overview.AttentionFilter{BeadID: "bb-1"}, []string{"blocked:open critical"}},
		{overview.AttentionFilter{BeadID: "bb-2"}, []string{"critical:critical info", "handoff:handoff to carol"}},
		{overview.AttentionFilter{Agent: "carol"}, []string{"handoff:handoff to carol", "blocked:open critical"}},
		{overview.AttentionFilter{Agent: "dana"}, []string{"critical:dana's critical post", "critical:critical info", "blocked:open critical"}},
		{overview.AttentionFilter{Agent: "dana", BeadID: "bb-2"}, []string{"critical:critical info"}},
		{overview.AttentionFilter{Limit: 2}, []string{"critical:dana's critical post", "critical:critical info"}},
		{overview.AttentionFilter{BeadID: "bb-9"}, nil},
	} {
		if got := subjects(c.f); !equal(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	// The next escalation is that of what the filter keeps: bb-2's handoff
	// for carol, not bb-1's blocker.
	a, err := svc.Attention(ctx, overview.AttentionFilter{Agent: "carol", BeadID: "bb-2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 1 || !a.NextEscalation.Equal(a.Items[0].At.Add(time.Duration(hub.DefaultEscalateAfter)*time.Minute)) {
		t.Errorf("carol on bb-2: %+v, next escalation %v", a.Items, a.NextEscalation)
	}
}
