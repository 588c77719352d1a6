package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// An agent blocked, then restating its status twice while still blocked,
// is delivered once: the item keeps its id for the whole stretch, in the
// running notifier and in the board's record a restarted one reads.
// Blocked again after working, it is a new notice.
func TestStuckDeliveredOncePerStretch(t *testing.T) {
	ctx := context.Background()
	svc, clk := board(t)
	status := func(s, blockers string) {
		t.Helper()
		clk.add(time.Minute) // each update moves the agent's updated_at
		u := hub.StatusUpdate{Status: &s}
		if blockers != "" {
			u.Blockers = &blockers
		}
		if _, err := svc.SetStatus(ctx, "carol", u); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan Payload, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p Payload
		_ = json.NewDecoder(r.Body).Decode(&p)
		got <- p
	}))
	defer srv.Close()

	status("blocked", "waiting for CI")
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error)
	n := New(svc, Options{Webhooks: []string{srv.URL}})
	go func() { done <- n.Run(runCtx) }()
	var first Payload
	select {
	case first = <-got:
	case <-time.After(20 * time.Second): // a hang guard, not a measure
		t.Fatal("nothing delivered")
	}
	if first.Type != "stuck" || first.Agent != "carol" {
		t.Fatalf("delivered %+v", first)
	}
	// Two updates while the notifier runs: carol stays blocked.
	status("blocked", "CI is red")
	status("blocked", "CI is still red")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if rec, _ := svc.Notified(ctx, WebhookChannel(srv.URL), []string{first.ID}); len(rec) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the delivery was never recorded")
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The same notifier, checked once more after both updates, has
	// nothing new either.
	if _, err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || len(n.queue) != 0 {
		t.Fatalf("delivered again after a status update: %+v, queued %d", <-got, len(n.queue))
	}
	// Restarted: the board's record names the same item.
	n = New(svc, Options{Webhooks: []string{srv.URL}})
	if _, err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if q := queued(n); len(q) != 0 {
		t.Fatalf("a restarted notifier queued %+v", q)
	}
	// Working, then blocked again: a new stretch, a new notice.
	status("coding", "")
	status("blocked", "review")
	if _, err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if q := queued(n); len(q) != 1 || q[0].Type != "stuck" || q[0].ID == first.ID || q[0].Subject != "review" {
		t.Fatalf("blocked again: queued %+v, want one stuck item with a new id", q)
	}
}
