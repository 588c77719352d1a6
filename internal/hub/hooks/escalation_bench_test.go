package hooks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// BenchmarkEscalationRead measures what the sender's escalation read adds
// to a prompt hook with nothing new (DeliverToSession), on a board where
// the session's agent sent 2,000 posts and 200 handoffs, 197 of them
// accepted and 3 still waiting (not yet due). The two alternate in every
// iteration; escalation-read is the read alone in a transaction of its own
// (an upper bound: inside the hook it shares the delivery's transaction).
// It reports each mean (…-us) and escalation-read/deliver ("x-share").
//
//	go test ./internal/hub/hooks -run '^$' -bench EscalationRead -benchtime 2000x
func BenchmarkEscalationRead(b *testing.B) {
	ctx := context.Background()
	svc, clk := hookBoard(b, nil)
	in := hooks.SessionInput{Client: "claude", SessionID: "bench"}
	r, err := svc.ResolveSession(ctx, in)
	if err != nil {
		b.Fatal(err)
	}
	me := r.AgentID
	registerWorkers(b, svc, "dana")
	for i := range 2000 {
		if _, err := svc.Post(ctx, hub.PostInput{From: me, Content: fmt.Sprint("progress ", i)}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 200 {
		m, err := svc.SendMail(ctx, hub.SendInput{From: me, To: "dana", BeadID: fmt.Sprint("bb-", i), Category: hub.CategoryHandoff, Subject: "s", Body: "b"})
		if err != nil {
			b.Fatal(err)
		}
		if i < 197 {
			if _, err := svc.AckMail(ctx, "dana", m.UUID); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := svc.DeliverNew(ctx, me); err != nil {
		b.Fatal(err)
	}
	clk.T = clk.T.Add(time.Minute) // the 3 waiting are not due: nothing to tell
	k := svc.Kernel()
	ways := map[string]func(int) error{
		"deliver": func(int) error {
			sd, err := svc.DeliverToSession(ctx, in)
			if err == nil && (sd.Delivery.Text.String() != "" || len(sd.Delivery.Escalations) != 0) {
				err = fmt.Errorf("something delivered: %+v", sd.Delivery)
			}
			return err
		},
		"escalation-read": func(int) error {
			_, err := hub.ReadAs(ctx, k, func(tx hooks.Tx) ([]hub.Message, error) {
				return tx.UnackedSentBy(ctx, me, clk.T.Add(-15*time.Minute), 10)
			})
			return err
		},
	}
	order := []string{"deliver", "escalation-read"}
	us := alternate(b, order, ways)
	b.ReportMetric(us("escalation-read")/us("deliver"), "x-share")
}
