package hub_test

import (
	"context"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// PostMany commits many posts in one transaction with per-post results.
func TestPostManyPerOpResults(t *testing.T) {
	svc := openBoard(t)
	res := svc.PostMany(context.Background(), []hub.PostOp{
		{In: hub.PostInput{From: "a", Content: "one"}, CheckIn: true},
		{In: hub.PostInput{From: "a", Content: ""}},
		{In: hub.PostInput{From: "a", Content: "orphan", ReplyTo: 42}},
		{In: hub.PostInput{From: "b", Content: "reply", ReplyTo: 1}},
	})
	if res[0].Err != nil || res[0].Message.Seq != 1 || res[0].Notices == nil {
		t.Fatalf("op 0: %+v", res[0])
	}
	if hub.CodeOf(res[1].Err) != hub.CodeInvalidInput || hub.CodeOf(res[2].Err) != hub.CodeNotFound {
		t.Fatalf("ops 1,2: %v %v", res[1].Err, res[2].Err)
	}
	if res[3].Err != nil || res[3].Message.ReplyToSeq == nil || *res[3].Message.ReplyToSeq != 1 {
		t.Fatalf("op 3: %+v", res[3])
	}
	page, _ := svc.Events(context.Background(), hub.EventQuery{})
	if len(page.Events) != 2 {
		t.Fatalf("events: %d, want 2 (failed ops write nothing)", len(page.Events))
	}
}

// BenchmarkPostMany measures the store side of group commit: batches of
// 50 posts (with check-ins) per transaction.
func BenchmarkPostMany(b *testing.B) {
	svc := openBoard(b)
	ops := make([]hub.PostOp, 50)
	for i := range ops {
		ops[i] = hub.PostOp{In: hub.PostInput{From: "agent-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Content: "load 1 2", Tags: []string{"load"}}, CheckIn: true}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range svc.PostMany(context.Background(), ops) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(ops))/b.Elapsed().Seconds(), "posts/s")
}

// A post's check-in records the heartbeat as CheckIn does: a new agent is
// written at once, an agent seen within MailTouchInterval is not written
// again, and one seen longer ago is.
func TestPostManyHeartbeatAsCheckIn(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	post := func() {
		t.Helper()
		for _, r := range svc.PostMany(ctx, []hub.PostOp{{In: hub.PostInput{From: "alice", Content: "x"}, CheckIn: true}}) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	seen := func(want time.Time) {
		t.Helper()
		v, err := svc.AgentStatus(ctx, "alice")
		if err != nil || !v.LastSeen.Equal(want) {
			t.Fatalf("alice last_seen = %v (%v), want %v", v.LastSeen, err, want)
		}
	}
	first := svc.Now()
	post()
	seen(first)
	clk.T = clk.T.Add(hub.MailTouchInterval - time.Second)
	post()
	seen(first)
	clk.T = clk.T.Add(time.Second)
	post()
	seen(svc.Now())
}
