package hooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// eventReads counts the timeline reads made inside its transactions.
type eventReads struct {
	hub.Store
	n int
}

type countingTx struct {
	hooks.Tx
	n *int
}

func (t countingTx) ListEvents(ctx context.Context, f hub.EventFilter) ([]hub.Event, error) {
	*t.n++
	return t.Tx.ListEvents(ctx, f)
}

func (s *eventReads) Read(ctx context.Context, fn func(hub.Tx) error) error {
	return s.Store.Read(ctx, func(tx hub.Tx) error { return fn(countingTx{tx.(hooks.Tx), &s.n}) })
}

func (s *eventReads) Write(ctx context.Context, fn func(hub.Tx) error) error {
	return s.Store.Write(ctx, func(tx hub.Tx) error { return fn(countingTx{tx.(hooks.Tx), &s.n}) })
}

// A HANDOFF's next action and a BLOCKED's requested action and urgency
// reach the recipient from the message's stored intent: delivering them
// reads nothing from the timeline.
func TestDeliveryReadsTheStoredIntent(t *testing.T) {
	ctx := context.Background()
	k, _ := hubtest.Board(t, nil)
	var count *eventReads
	k = k.WithStore(func(st hub.Store) hub.Store {
		count = &eventReads{Store: st}
		return count
	})
	svc := app.New(k)
	a, b := session(t, svc, "s-a"), session(t, svc, "s-b")
	for _, in := range []hub.SendInput{
		{From: b, To: a, BeadID: "bd", Category: hub.CategoryHandoff, Subject: "yours", Body: "state", NextAction: "run the parser tests"},
		{From: b, To: a, BeadID: "bd", Category: hub.CategoryBlocked, Subject: "stuck", Body: "why", RequestedAction: "pick a schema", Urgency: "high"},
	} {
		if _, err := svc.SendMail(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	count.n = 0
	d, err := svc.DeliverNew(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  > the next action it proposes: run the parser tests\n", "  > the action it requests: pick a schema\n", "urgency high"} {
		if !strings.Contains(d.Text.String(), want) {
			t.Errorf("delivery lacks %q:\n%s", want, d.Text.String())
		}
	}
	if count.n != 0 {
		t.Errorf("the delivery read the timeline %d times; the intent is stored with the message", count.n)
	}
}
