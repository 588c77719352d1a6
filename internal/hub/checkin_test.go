package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// countingStore counts the transactions a service opens.
type countingStore struct {
	hub.Store
	reads, writes int
}

func (c *countingStore) Read(ctx context.Context, fn func(hub.Tx) error) error {
	c.reads++
	return c.Store.Read(ctx, fn)
}

func (c *countingStore) Write(ctx context.Context, fn func(hub.Tx) error) error {
	c.writes++
	return c.Store.Write(ctx, fn)
}

// registerWorkers registers agents with the role worker.
func registerWorkers(tb testing.TB, svc *hub.Service, ids ...string) {
	tb.Helper()
	for _, id := range ids {
		if _, _, err := svc.RegisterAgent(context.Background(), hub.RegisterInput{ID: id, Role: "worker"}); err != nil {
			tb.Fatal(err)
		}
	}
}

// The check-in rides in the command's own write: one transaction, the
// caller's last_seen refreshed and the same notices a separate CheckIn
// gives; a refused write, a replay or an anonymous caller check nobody in.
func TestCheckInFoldedIntoTheWrite(t *testing.T) {
	ctx := context.Background()
	svc, clk := hookBoard(t, nil)
	registerWorkers(t, svc, "alice", "bob")
	if _, err := svc.Post(ctx, hub.PostInput{From: "bob", Content: "for everyone"}); err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: svc.Store}
	svc.Store = cs
	clk.t = clk.t.Add(time.Hour)

	who := "alice"
	cctx, slot := hub.WithCheckIn(ctx, func() string { return who })
	if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	if cs.writes != 1 || cs.reads != 0 {
		t.Fatalf("post with a check-in: %d writes, %d reads; want 1 write", cs.writes, cs.reads)
	}
	n, ok := slot.NoticesFor("alice")
	if !ok || n.Board != 1 || n.Unread != 1 || !n.Changed {
		t.Fatalf("folded notices = %+v, %v; want bob's post unread and changed", n, ok)
	}
	if _, ok := slot.NoticesFor("bob"); ok {
		t.Fatal("the slot answers for an agent it did not check in")
	}
	v, err := svc.AgentStatus(ctx, "alice")
	if err != nil || !v.LastSeen.Equal(svc.Now()) {
		t.Fatalf("alice last_seen = %v (%v), want %v", v.LastSeen, err, svc.Now())
	}
	// The notices were marked given: a separate check-in now finds them
	// unchanged, exactly as after a second command.
	if again, err := svc.CheckIn(ctx, "alice"); err != nil || again.Changed || again.Board != 1 {
		t.Fatalf("check-in after the folded one = %+v, %v; want the same, unchanged", again, err)
	}

	// A second write of the same command: the notices not shown yet stay news.
	if _, err := svc.Post(ctx, hub.PostInput{From: "bob", Content: "more"}); err != nil {
		t.Fatal(err)
	}
	cctx, slot = hub.WithCheckIn(ctx, func() string { return who })
	for range 2 {
		if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: "twice"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, ok := slot.NoticesFor("alice"); !ok || !n.Changed || n.Board != 2 {
		t.Fatalf("after two writes = %+v, %v; want 2 unread, still changed", n, ok)
	}

	// Refused, replayed or anonymous: nobody checked in, the slot stays empty.
	cctx, slot = hub.WithCheckIn(ctx, func() string { return who })
	if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: ""}); err == nil {
		t.Fatal("an empty post was accepted")
	}
	if _, ok := slot.NoticesFor("alice"); ok {
		t.Fatal("a refused write checked its caller in")
	}
	ictx := hub.WithIdempotency(ctx, hub.IdemKey{Agent: "alice", RequestID: "r-1", Command: "post"})
	if _, err := svc.Post(ictx, hub.PostInput{From: "alice", Content: "once"}); err != nil {
		t.Fatal(err)
	}
	cctx, slot = hub.WithCheckIn(ictx, func() string { return who })
	if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: "once"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := slot.NoticesFor("alice"); ok {
		t.Fatal("a replayed write checked its caller in")
	}
	who = ""
	cctx, slot = hub.WithCheckIn(ctx, func() string { return who })
	if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: "anon"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := slot.NoticesFor(""); ok {
		t.Fatal("an anonymous caller was checked in")
	}
	// The board's identity rule: a long id (65..128 bytes) checks in only
	// when the board knows it; an unknown one is not created.
	long := strings.Repeat("x", hub.MaxAgentIDLen+1)
	who = long
	cctx, slot = hub.WithCheckIn(ctx, func() string { return who })
	if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: "long"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := slot.NoticesFor(long); ok {
		t.Fatal("an unknown long id was checked in")
	}
	if _, err := svc.AgentID(ctx, hub.GrammarBoard, long); err == nil {
		t.Fatal("the check-in created an unknown long id")
	}
	// CheckIn itself never checks in twice through a slot.
	who = "alice"
	cctx, slot = hub.WithCheckIn(ctx, func() string { return who })
	if _, err := svc.CheckIn(cctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, ok := slot.NoticesFor("alice"); ok {
		t.Fatal("CheckIn filled the slot (a second check-in in its transaction)")
	}
}
