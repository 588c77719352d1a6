package hooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// The sender of a HANDOFF or BLOCKED nobody accepted within the board's
// attention.escalate_after minutes is told once, in its next delivery
// (the session's prompt or DeliverNew), with who it waits on and for how
// long; never before the time, never twice, never once accepted, and not
// when the board's delivery is off.
func TestEscalationToldToTheSenderOnce(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, nil)
	sin := hooks.SessionInput{Client: "claude", SessionID: "s-carol"}
	carol, dana := session(t, svc, "s-carol"), session(t, svc, "s-dana")
	send := func(cat, subject string) hub.MailItem {
		t.Helper()
		m, err := svc.SendMail(ctx, hub.SendInput{From: carol, To: dana, BeadID: "bb-2", Category: cat, Subject: subject, Body: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// prompt is the sender's next delivery: the session's prompt hook.
	prompt := func() []hooks.Escalation {
		t.Helper()
		sd, err := svc.DeliverToSession(ctx, sin)
		if err != nil {
			t.Fatal(err)
		}
		if sd.Session.AgentID != carol {
			t.Fatalf("session agent %s, want %s", sd.Session.AgentID, carol)
		}
		return sd.Delivery.Escalations
	}
	handoff := send(hub.CategoryHandoff, "parser ready")

	clk.T = t0.Add(14*time.Minute + 59*time.Second)
	if es := prompt(); len(es) != 0 {
		t.Fatalf("escalated before 15 minutes: %+v", es)
	}
	clk.T = t0.Add(16 * time.Minute)
	es := prompt()
	if len(es) != 1 {
		t.Fatalf("after 16 minutes: %+v, want the handoff", es)
	}
	if e := es[0]; e.MessageID != handoff.UUID || e.Category != hub.CategoryHandoff || e.To != dana || e.BeadID != "bb-2" ||
		e.Subject != "parser ready" || e.WaitingMinutes != 16 || e.EscalateAfter != 15 || !e.SentAt.Equal(t0) {
		t.Fatalf("escalation %+v", e)
	}
	clk.T = t0.Add(40 * time.Minute)
	if es := prompt(); len(es) != 0 {
		t.Fatalf("told twice: %+v", es)
	}
	if d, err := svc.DeliverNew(ctx, carol); err != nil || len(d.Escalations) != 0 || d.Text.String() != "" {
		t.Fatalf("DeliverNew after it was told: %+v %v", d, err)
	}

	// A blocker accepted in time never escalates; one still waiting does,
	// through DeliverNew too, under the board's own setting.
	if _, err := svc.SetConfig(ctx, carol, hub.ConfigEscalateAfter, "30"); err != nil {
		t.Fatal(err)
	}
	accepted := send(hub.CategoryBlocked, "which schema?")
	waiting := send(hub.CategoryBlocked, "which port?")
	clk.T = clk.T.Add(29 * time.Minute)
	if _, err := svc.AckMail(ctx, dana, accepted.UUID); err != nil {
		t.Fatal(err)
	}
	if es := prompt(); len(es) != 0 {
		t.Fatalf("escalated before the board's 30 minutes: %+v", es)
	}
	clk.T = clk.T.Add(time.Minute)
	d, err := svc.DeliverNew(ctx, carol)
	if err != nil || len(d.Escalations) != 1 || d.Escalations[0].MessageID != waiting.UUID || d.Escalations[0].EscalateAfter != 30 || d.Escalations[0].WaitingMinutes != 30 {
		t.Fatalf("DeliverNew: %+v %v, want the waiting blocker only", d.Escalations, err)
	}
	if len(d.Delivered) != 0 {
		t.Fatalf("an escalation is no mail delivered: %v", d.Delivered)
	}

	// The recipient's own delivery never carries the sender's escalation,
	// and an escalation that came and was accepted before the sender's
	// next delivery is never told.
	late := send(hub.CategoryHandoff, "docs ready")
	clk.T = clk.T.Add(31 * time.Minute)
	if d, err := svc.DeliverNew(ctx, dana); err != nil || len(d.Escalations) != 0 {
		t.Fatalf("recipient's delivery: %+v %v", d.Escalations, err)
	}
	if _, err := svc.AckMail(ctx, dana, late.UUID); err != nil {
		t.Fatal(err)
	}
	if es := prompt(); len(es) != 0 {
		t.Fatalf("told after it was accepted: %+v", es)
	}

	// With the board's delivery off, nothing is told.
	send(hub.CategoryHandoff, "off")
	if _, err := svc.SetConfig(ctx, carol, hub.ConfigHooksDelivery, "off"); err != nil {
		t.Fatal(err)
	}
	clk.T = clk.T.Add(time.Hour)
	if es := prompt(); len(es) != 0 {
		t.Fatalf("delivery off: %+v", es)
	}
}
