package overview_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// A notifier's record: per channel, kept NotifiedKeep, refused for an
// agent's credential and for a channel or id out of bounds.
func TestNotifiedRecord(t *testing.T) {
	ctx := context.Background()
	k, clk := hubtest.Board(t, nil)
	svc := overview.New(k)
	if err := svc.MarkNotified(ctx, "webhook:a", []string{"blocked:m1", "blocked:m1:escalated"}); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Notified(ctx, "webhook:a", []string{"blocked:m1", "blocked:m1:escalated", "handoff:m2"})
	if slices.Sort(got); err != nil || !slices.Equal(got, []string{"blocked:m1", "blocked:m1:escalated"}) {
		t.Fatalf("webhook:a: %v %v", got, err)
	}
	if got, err := svc.Notified(ctx, "desktop", []string{"blocked:m1"}); err != nil || len(got) != 0 {
		t.Fatalf("another channel: %v %v", got, err)
	}
	// Recording again keeps the first time; a record older than the keep
	// is forgotten when the channel records again.
	clk.T = clk.T.Add(overview.NotifiedKeep - time.Hour)
	if err := svc.MarkNotified(ctx, "webhook:a", []string{"blocked:m1"}); err != nil {
		t.Fatal(err)
	}
	clk.T = clk.T.Add(2 * time.Hour)
	if err := svc.MarkNotified(ctx, "webhook:a", []string{"handoff:m3"}); err != nil {
		t.Fatal(err)
	}
	got, _ = svc.Notified(ctx, "webhook:a", []string{"blocked:m1", "blocked:m1:escalated", "handoff:m3"})
	if slices.Sort(got); !slices.Equal(got, []string{"handoff:m3"}) {
		t.Fatalf("after %v: %v", overview.NotifiedKeep, got)
	}
	for _, bad := range []struct {
		channel string
		ids     []string
	}{{"", []string{"x"}}, {string(make([]byte, 129)), nil}, {"desktop", []string{""}}, {"desktop", make([]string, 1001)}} {
		if err := svc.MarkNotified(ctx, bad.channel, bad.ids); hub.CodeOf(err) != hub.CodeInvalidArgs {
			t.Errorf("MarkNotified(%q, %d ids): %v, want INVALID_ARGS", bad.channel, len(bad.ids), err)
		}
	}
	agentCtx := hub.WithPrincipal(ctx, hub.Principal{Role: hub.AccessAgent, Agent: "carol"})
	if err := svc.MarkNotified(agentCtx, "desktop", []string{"x"}); hub.CodeOf(err) != hub.CodeForbidden {
		t.Errorf("an agent's credential: %v, want FORBIDDEN", err)
	}
}
