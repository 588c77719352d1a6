package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
)

func testService(t *testing.T) *hub.Service {
	t.Helper()
	dir := t.TempDir()
	b, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), Create: true, ProjectRoot: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b.API.(*hub.Service)
}

func postN(t *testing.T, svc *hub.Service, n int) {
	t.Helper()
	ops := make([]hub.PostOp, n)
	for i := range ops {
		ops[i] = hub.PostOp{In: hub.PostInput{From: "pat", Content: "x"}}
	}
	for _, r := range svc.PostMany(context.Background(), ops) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

// A subscriber that stops reading is dropped once its buffer is full; the
// others receive every event, in order.
func TestBrokerDropsSlowSubscriber(t *testing.T) {
	svc := testService(t)
	b := newBroker(svc.Store, time.Hour, discardLog())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.run(ctx)
	slow, _, err := b.subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fast, _, _ := b.subscribe(ctx)
	got := make(chan int64, 2*subBuffer)
	go func() {
		for e := range fast.ch {
			got <- e.Seq
		}
	}()
	var last int64
	for round := 0; round < 2; round++ {
		postN(t, svc, subBuffer*3/4)
		b.Wake()
		for i := 0; i < subBuffer*3/4; i++ {
			select {
			case s := <-got:
				if s != last+1 {
					t.Fatalf("fast subscriber got seq %d after %d", s, last)
				}
				last = s
			case <-time.After(5 * time.Second):
				t.Fatalf("fast subscriber starved at seq %d", last)
			}
		}
	}
	// The slow one was cut off: its channel holds at most a full buffer,
	// then is closed.
	n := 0
	for range slow.ch {
		n++
	}
	if n != subBuffer {
		t.Fatalf("slow subscriber kept %d events, want %d then closed", n, subBuffer)
	}
	if !slow.lagged || b.subscribers() != 1 {
		t.Fatalf("lagged=%v subscribers=%d", slow.lagged, b.subscribers())
	}
}

// PostMany commits many posts in one transaction with per-post results.
func TestPostManyPerOpResults(t *testing.T) {
	svc := testService(t)
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
	evs, _ := svc.Events(context.Background(), hub.EventFilter{})
	if len(evs) != 2 {
		t.Fatalf("events: %d, want 2 (failed ops write nothing)", len(evs))
	}
}

// BenchmarkPostMany measures the store side of group commit: batches of
// 50 posts (with check-ins) per transaction.
func BenchmarkPostMany(b *testing.B) {
	dir := b.TempDir()
	bd, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), Create: true, ProjectRoot: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer bd.Close()
	svc := bd.API
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
