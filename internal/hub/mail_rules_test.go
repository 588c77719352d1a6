package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

func mailBoard(t *testing.T) (*hub.Service, context.Context) {
	t.Helper()
	ctx := context.Background()
	svc, _ := hubtest.Board(t, nil)
	for _, id := range []string{"amy", "ben"} {
		if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: id, Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	return svc, ctx
}

// Every refusal of SendMail names its code and field, in the order the
// input is checked.
func TestSendMailRefusals(t *testing.T) {
	svc, ctx := mailBoard(t)
	ok := hub.SendInput{From: "amy", To: "ben", BeadID: "bd-1", Category: hub.CategoryInfo, Subject: "s", Body: "b"}
	long := strings.Repeat("x", hub.MaxSubjectLen+1)
	for _, c := range []struct {
		name   string
		edit   func(*hub.SendInput)
		code   hub.Code
		field  string
		inText string
	}{
		{"no sender", func(in *hub.SendInput) { in.From = "" }, "", "from", ""},
		{"bad recipient", func(in *hub.SendInput) { in.To = "a b" }, "", "to", ""},
		{"no bead", func(in *hub.SendInput) { in.BeadID = " " }, hub.CodeMissingBeadID, "bead", "required"},
		{"bad bead", func(in *hub.SendInput) { in.BeadID = "a b" }, hub.CodeInvalidArgs, "bead", "invalid bead id"},
		{"bad category", func(in *hub.SendInput) { in.Category = "NOTE" }, hub.CodeInvalidCategory, "category", "HANDOFF, BLOCKED"},
		{"long subject", func(in *hub.SendInput) { in.Subject = long }, "", "subject", ""},
		{"two-line subject", func(in *hub.SendInput) { in.Subject = "a\nb" }, hub.CodeInvalidArgs, "subject", "one line"},
		{"long thread", func(in *hub.SendInput) { in.ThreadID = strings.Repeat("t", hub.MaxThreadIDLen+1) }, "", "thread", ""},
		{"bad urgency", func(in *hub.SendInput) { in.Urgency = "urgent" }, hub.CodeInvalidArgs, "urgency", "low, medium or high"},
		{"bad priority", func(in *hub.SendInput) { in.Priority = "asap" }, "", "priority", ""},
		{"long next action", func(in *hub.SendInput) { in.NextAction = long }, hub.CodeInvalidArgs, "next-action", ""},
		{"long requested action", func(in *hub.SendInput) { in.RequestedAction = long }, hub.CodeInvalidArgs, "requested-action", ""},
		{"to oneself", func(in *hub.SendInput) { in.To = "amy" }, hub.CodeInvalidArgs, "to", "yourself"},
		{"unknown sender", func(in *hub.SendInput) { in.From = "zed" }, hub.CodeUnknownSender, "from", ""},
		{"unknown recipient", func(in *hub.SendInput) { in.To = "zed" }, hub.CodeUnknownRecipient, "to", ""},
		{"unknown parent", func(in *hub.SendInput) { in.ReplyTo = "0b0b0b0b-0000-4000-8000-000000000000" }, hub.CodeMessageNotFound, "reply_to", "not found"},
	} {
		in := ok
		c.edit(&in)
		_, err := svc.SendMail(ctx, in)
		var he *hub.Error
		if !errors.As(err, &he) || he.Field != c.field || (c.code != "" && he.Code != c.code) || !strings.Contains(he.Message, c.inText) {
			t.Errorf("%s: %#v", c.name, err)
		}
	}
	if _, err := svc.SendMail(ctx, ok); err != nil {
		t.Fatalf("the valid message: %v", err)
	}
}

// A message's defaults: the thread of its bead, the intent of a HANDOFF or
// BLOCKED in words naming no surface, priority and urgency deciding each
// other; each send appends its event (a protocol event for HANDOFF and
// BLOCKED), and a reply names its parent by id.
func TestSendMailDefaultsAndEvents(t *testing.T) {
	svc, ctx := mailBoard(t)
	h, err := svc.SendMail(ctx, hub.SendInput{From: "amy", To: "ben", BeadID: "bd-1", Category: hub.CategoryHandoff, Subject: "take it", Body: "all yours"})
	if err != nil {
		t.Fatal(err)
	}
	if h.ThreadID != "bead:bd-1" || !h.RequiresAck || h.Priority != hub.PriorityNormal || h.State != hub.StateUnread ||
		h.Intent == nil || *h.Intent != (hub.Intent{NextAction: "Read the handoff (message " + hub.ShortID(h.UUID) + ") and acknowledge it"}) {
		t.Fatalf("handoff: %+v %+v", h.Message, h.Intent)
	}
	b, err := svc.SendMail(ctx, hub.SendInput{From: "ben", To: "amy", BeadID: "bd-1", Category: hub.CategoryBlocked, Subject: "stuck", Body: "why", Priority: "critical", ThreadID: "t-9", ReplyTo: h.UUID[:8]})
	if err != nil {
		t.Fatal(err)
	}
	if b.ThreadID != "t-9" || b.ReplyTo != h.UUID || b.Priority != hub.PriorityCritical ||
		b.Intent == nil || *b.Intent != (hub.Intent{RequestedAction: "Answer ben on thread t-9 and acknowledge", Urgency: "high"}) {
		t.Fatalf("blocked: %+v %+v", b.Message, b.Intent)
	}
	low, err := svc.SendMail(ctx, hub.SendInput{From: "ben", To: "amy", BeadID: "bd-1", Category: hub.CategoryBlocked, Subject: "meh", Body: "x", Urgency: "low", RequestedAction: "look"})
	if err != nil || low.Priority != hub.PriorityLow || *low.Intent != (hub.Intent{RequestedAction: "look", Urgency: "low"}) {
		t.Fatalf("blocked, urgency low: %+v %+v %v", low.Message, low.Intent, err)
	}
	all, err := svc.SendMail(ctx, hub.SendInput{From: "amy", To: hub.BroadcastName, BeadID: "bd-2", Category: hub.CategoryInfo, Subject: "fyi", Body: "x", Urgency: "high"})
	if err != nil || all.To != hub.Broadcast || all.Intent != nil || all.RequiresAck || all.Priority != hub.PriorityNormal {
		t.Fatalf("broadcast: %+v %v", all.Message, err)
	}
	limit := 20
	evs, err := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventHandoff, hub.EventBlocked, hub.EventMailSent}, Limit: &limit})
	if err != nil || len(evs.Events) != 4 {
		t.Fatalf("events: %+v %v", evs, err)
	}
	want := []struct{ typ, to, msg, payload string }{
		{hub.EventHandoff, "ben", "amy → ben HANDOFF: take it", `"next_action":"Read the handoff`},
		{hub.EventBlocked, "amy", "ben → amy BLOCKED: stuck", `"urgency":"high"`},
		{hub.EventBlocked, "amy", "ben → amy BLOCKED: meh", `"requested_action":"look"`},
		{hub.EventMailSent, hub.Broadcast, "amy → broadcast INFO: fyi", `"category":"INFO"`},
	}
	for i, e := range evs.Events {
		w := want[i]
		if e.Type != w.typ || e.ToAgent != w.to || e.Message != w.msg || !strings.Contains(string(e.Payload), w.payload) || !json.Valid(e.Payload) {
			t.Errorf("event %d: %s to %s %q %s", i, e.Type, e.ToAgent, e.Message, e.Payload)
		}
	}
}
