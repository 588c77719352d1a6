package overview_test

import (
	"context"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// A blocked agent is one item for one stretch of being blocked: restating
// its status (new blockers, new progress) or anything else that touches
// the agent keeps the item's id and its start; blocked again after
// working, it is a new item.
func TestStuckKeepsOneIDPerStretch(t *testing.T) {
	ctx := context.Background()
	k, clk := hubtest.Board(t, nil)
	svc := overview.New(k)
	if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: "bob-1", Role: "worker"}); err != nil {
		t.Fatal(err)
	}
	set := func(status, blockers string, progress int) {
		t.Helper()
		u := hub.StatusUpdate{Status: &status, Progress: &progress}
		if blockers != "" {
			u.Blockers = &blockers
		}
		if _, err := k.SetStatus(ctx, "bob-1", u); err != nil {
			t.Fatal(err)
		}
	}
	stuck := func() (overview.AttentionItem, bool) {
		t.Helper()
		a, err := svc.Attention(ctx, overview.AttentionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range a.Items {
			if it.Kind == overview.AttentionStuck {
				return it, true
			}
		}
		return overview.AttentionItem{}, false
	}

	clk.T = clk.T.Add(time.Minute)
	set("blocked", "waiting for CI", 10)
	start := clk.T
	first, ok := stuck()
	if !ok || !first.At.Equal(start) || first.Subject != "waiting for CI" {
		t.Fatalf("blocked: %+v %t, want an item since %v", first, ok, start)
	}
	// Two more updates that leave it blocked, and a re-registration.
	clk.T = clk.T.Add(5 * time.Minute)
	set("blocked", "CI is red", 20)
	clk.T = clk.T.Add(5 * time.Minute)
	set("blocked", "", 30)
	if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: "bob-1", Role: "worker", ForceUpdate: true}); err != nil {
		t.Fatal(err)
	}
	again, ok := stuck()
	if !ok || again.ID() != first.ID() || !again.At.Equal(start) || again.WaitingMinutes != 10 || again.Subject != "CI is red" {
		t.Fatalf("still blocked: %+v (id %s), want id %s, since %v, 10 minutes, the newest blockers", again, again.ID(), first.ID(), start)
	}
	// Unblocked: no item. Blocked again: a new one.
	clk.T = clk.T.Add(time.Minute)
	set("coding", "", 40)
	if it, ok := stuck(); ok {
		t.Fatalf("coding: still %+v", it)
	}
	clk.T = clk.T.Add(time.Minute)
	set("blocked", "review", 40)
	next, ok := stuck()
	if !ok || next.ID() == first.ID() || !next.At.Equal(clk.T) || next.WaitingMinutes != 0 {
		t.Fatalf("blocked again: %+v (id %s), want a new id since %v", next, next.ID(), clk.T)
	}
}
