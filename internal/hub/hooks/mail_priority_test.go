package hooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Mail carries a priority in the board's words; a BLOCKED message's
// urgency is the same scale in the protocol's words, and either one given
// alone decides the other.
func TestMailPriority(t *testing.T) {
	ctx := context.Background()
	svc, _ := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	cases := []struct {
		cat, prio, urgency string
		want               hub.Priority
		wantUrgency        string
	}{
		{hub.CategoryInfo, "", "", hub.PriorityNormal, ""},
		{hub.CategoryInfo, "critical", "", hub.PriorityCritical, ""},
		{hub.CategoryHandoff, "low", "", hub.PriorityLow, ""},
		{hub.CategoryInfo, "", "high", hub.PriorityNormal, ""}, // urgency belongs to BLOCKED only
		{hub.CategoryBlocked, "", "", hub.PriorityNormal, "medium"},
		{hub.CategoryBlocked, "", "high", hub.PriorityHigh, "high"},
		{hub.CategoryBlocked, "", "low", hub.PriorityLow, "low"},
		{hub.CategoryBlocked, "critical", "", hub.PriorityCritical, "high"},
		{hub.CategoryBlocked, "normal", "", hub.PriorityNormal, "medium"},
		{hub.CategoryBlocked, "high", "low", hub.PriorityHigh, "low"}, // both given: both kept
	}
	for _, c := range cases {
		m, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: c.cat, Subject: "s", Body: "x",
			Priority: c.prio, Urgency: c.urgency})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		items, err := svc.Inbox(ctx, hub.InboxQuery{Agent: a, Limit: 1})
		if err != nil || len(items) != 1 || items[0].UUID != m.UUID {
			t.Fatalf("%+v: inbox %+v %v", c, items, err)
		}
		got := items[0]
		urg := ""
		if got.Intent != nil {
			urg = got.Intent.Urgency
		}
		if got.Priority != c.want || urg != c.wantUrgency {
			t.Errorf("%+v: stored priority %q urgency %q, want %q %q", c, got.Priority, urg, c.want, c.wantUrgency)
		}
	}
	for _, bad := range []hub.SendInput{{Priority: "urgent"}, {Priority: "HIGH"}, {Category: hub.CategoryBlocked, Urgency: "critical"}} {
		in := hub.SendInput{From: b, To: a, BeadID: "bd", Category: hub.CategoryInfo, Subject: "s", Body: "x", Priority: bad.Priority, Urgency: bad.Urgency}
		if bad.Category != "" {
			in.Category = bad.Category
		}
		_, err := svc.SendMail(ctx, in)
		var he *hub.Error
		if !errors.As(err, &he) || (he.Field != "priority" && he.Field != "urgency") {
			t.Errorf("%+v: want a refusal naming priority or urgency, got %v", bad, err)
		}
	}
}

// Hooks deliver the most pressing mail first: critical, then high, and
// within a priority handoffs and blockers before the rest.
func TestDeliverPriorityFirst(t *testing.T) {
	ctx := context.Background()
	svc, _ := hookBoard(t, nil)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	send := func(cat, prio, subject string) {
		t.Helper()
		if _, err := svc.SendMail(ctx, hub.SendInput{From: b, To: a, BeadID: "bd", Category: cat, Subject: subject, Body: "x", Priority: prio}); err != nil {
			t.Fatal(err)
		}
	}
	send(hub.CategoryInfo, "low", "s-low-info")
	send(hub.CategoryInfo, "", "s-normal-info")
	send(hub.CategoryHandoff, "", "s-normal-handoff")
	send(hub.CategoryInfo, "high", "s-high-info")
	send(hub.CategoryBlocked, "high", "s-high-blocked")
	send(hub.CategoryInfo, "critical", "s-critical-info")
	d, err := svc.DeliverNew(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"s-critical-info", "s-high-blocked", "s-high-info", "s-normal-handoff", "s-normal-info", "s-low-info"}
	last := -1
	for _, s := range order {
		i := strings.Index(d.Text.String(), s)
		if i < 0 || i < last {
			t.Fatalf("want order %v, got:\n%s", order, d.Text.String())
		}
		last = i
	}
	if !strings.Contains(d.Text.String(), "(bead bd, priority critical), wrote:\n  > s-critical-info\n") {
		t.Errorf("the priority is shown with the mail:\n%s", d.Text.String())
	}
}
