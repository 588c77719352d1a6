package hub_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
)

func openBoard(t testing.TB) app.API {
	t.Helper()
	dir := t.TempDir()
	b, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), Create: true, ProjectRoot: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b.API
}

func postN(t *testing.T, svc app.API, n int) {
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

// follow starts a follower of svc's live timeline; every event it gets
// goes to the returned channel after gate lets it through.
func follow(t *testing.T, ctx context.Context, svc app.API, gate <-chan struct{}) <-chan int64 {
	t.Helper()
	got := make(chan int64, 4096)
	ready := make(chan struct{})
	go func() {
		_ = svc.Follow(ctx, hub.FollowInput{Started: func(int64) error { close(ready); return nil }}, func(e hub.Event) error {
			<-gate
			got <- e.Seq
			return nil
		})
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("follower never started")
	}
	return got
}

func expectSeqs(t *testing.T, who string, got <-chan int64, from, to int64) {
	t.Helper()
	for want := from; want <= to; want++ {
		select {
		case s := <-got:
			if s != want {
				t.Fatalf("%s follower got seq %d, want %d", who, s, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s follower starved at seq %d", who, want)
		}
	}
}

// A follower that stops reading does not hold the others back, and once
// it reads again it gets every event in order: the gap it fell behind on
// is replayed from the store.
func TestFollowSlowFollowerNeitherBlocksNorLoses(t *testing.T) {
	svc := openBoard(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := make(chan struct{})
	close(open)
	gate := make(chan struct{})
	slow := follow(t, ctx, svc, gate)
	fast := follow(t, ctx, svc, open)
	const n = 1500 // more than a follower's live buffer
	postN(t, svc, n)
	expectSeqs(t, "fast", fast, 1, n)
	close(gate)
	expectSeqs(t, "slow", slow, 1, n)
}

// Follow with a backlog replays the stored events after AfterSeq (at most
// Limit of them), then goes on with new ones.
func TestFollowBacklogThenLive(t *testing.T) {
	svc := openBoard(t)
	postN(t, svc, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan int64, 100)
	startedAt := make(chan int64, 1)
	go func() {
		_ = svc.Follow(ctx, hub.FollowInput{Filter: hub.EventFilter{AfterSeq: 1, Limit: 2}, Backlog: true,
			Started: func(after int64) error { startedAt <- after; return nil }},
			func(e hub.Event) error { got <- e.Seq; return nil })
	}()
	if a := <-startedAt; a != 1 {
		t.Fatalf("started after %d, want 1", a)
	}
	expectSeqs(t, "backlog", got, 2, 3)
	postN(t, svc, 1)
	expectSeqs(t, "live", got, 6, 6)
}

// The live filter selects exactly what the store's filter selects.
func TestEventFilterMatchesStore(t *testing.T) {
	svc := openBoard(t)
	ctx := context.Background()
	postN(t, svc, 2)
	for _, id := range []string{"ann", "bob"} {
		if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: id, Role: "dev"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "ann", To: "bob", BeadID: "bb-1", Category: "INFO", Subject: "s", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	page, err := svc.Events(ctx, hub.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	all := page.Events
	filters := []hub.EventFilter{{}, {Agent: "bob"}, {Agent: "pat"}, {Types: []string{all[0].Type}}, {BeadID: "bb-1"}, {BeadID: "nope"}, {TaskID: "nope"}}
	for _, f := range filters {
		// The timeline query has no task filter: no event names task "nope".
		var want []hub.Event
		if f.TaskID == "" {
			p, err := svc.Events(ctx, hub.EventQuery{Types: f.Types, Agent: f.Agent, BeadID: f.BeadID})
			if err != nil {
				t.Fatal(err)
			}
			want = p.Events
		}
		var got []hub.Event
		for _, e := range all {
			if f.Matches(e) {
				got = append(got, e)
			}
		}
		if fmt.Sprint(seqs(got)) != fmt.Sprint(seqs(want)) {
			t.Errorf("filter %+v: Matches picks %v, the store %v", f, seqs(got), seqs(want))
		}
	}
}

func seqs(evs []hub.Event) []int64 {
	out := []int64{}
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

// A followed task event names its task, in the backlog and live, as a
// paged read of the timeline does.
func TestFollowNamesTasks(t *testing.T) {
	svc := openBoard(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: "ann", Role: "dev"}); err != nil {
		t.Fatal(err)
	}
	first, err := svc.CreateTask(ctx, "ann", hub.TaskInput{Title: "Write the parser"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan hub.Event, 100)
	started := make(chan int64, 1)
	go func() {
		_ = svc.Follow(ctx, hub.FollowInput{Filter: hub.EventFilter{Types: []string{hub.KindTaskCreated}}, Backlog: true,
			Started: func(after int64) error { started <- after; return nil }},
			func(e hub.Event) error { got <- e; return nil })
	}()
	<-started
	second, err := svc.CreateTask(ctx, "ann", hub.TaskInput{Title: "Test the parser"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []hub.Task{first.Task, second.Task} {
		select {
		case e := <-got:
			if e.Task == nil || e.Task.ID != want.ID || e.Task.Title != want.Title || e.Task.Handle != hub.TaskHandle(want.ID) {
				t.Errorf("event %d names %+v, want %s %q", e.Seq, e.Task, want.ID, want.Title)
			}
		case <-time.After(20 * time.Second): // a hang guard, not a measure
			t.Fatalf("no event for %s", want.Title)
		}
	}
}

// A follower of the new events never gets one committed before it
// started, even while the running feed has not read that commit yet.
func TestFollowStartsAfterWhatIsCommitted(t *testing.T) {
	svc := openBoard(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := make(chan struct{})
	close(open)
	follow(t, ctx, svc, open) // keeps the feed running
	for i := range 30 {
		postN(t, svc, 1)
		page, err := svc.Events(ctx, hub.EventQuery{Newest: true})
		if err != nil {
			t.Fatal(err)
		}
		before := page.Events[len(page.Events)-1].Seq
		fctx, stop := context.WithCancel(ctx)
		got := make(chan int64, 16)
		started := make(chan int64, 1)
		go func() {
			_ = svc.Follow(fctx, hub.FollowInput{Started: func(after int64) error { started <- after; return nil }},
				func(e hub.Event) error { got <- e.Seq; return nil })
		}()
		if after := <-started; after < before {
			t.Fatalf("round %d: follows after %d, but %d was committed before it started", i, after, before)
		}
		postN(t, svc, 1)
		select {
		case seq := <-got:
			if seq <= before {
				t.Fatalf("round %d: got %d, committed before the follow started (newest then %d)", i, seq, before)
			}
		case <-time.After(20 * time.Second): // a hang guard, not a measure
			t.Fatalf("round %d: no event", i)
		}
		stop()
	}
}
