package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

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
	svc, clk := hubtest.Board(t, nil)
	registerWorkers(t, svc, "alice", "bob")
	if _, err := svc.Post(ctx, hub.PostInput{From: "bob", Content: "for everyone"}); err != nil {
		t.Fatal(err)
	}
	svc, cs := hubtest.Counting(svc)
	clk.T = clk.T.Add(time.Hour)

	who := "alice"
	cctx, slot := hub.WithCheckIn(ctx, func() string { return who })
	if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	if cs.Writes != 1 || cs.Reads != 0 {
		t.Fatalf("post with a check-in: %d writes, %d reads; want 1 write", cs.Writes, cs.Reads)
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

// A check-in that finds no unread broadcast moves the agent's read cursor
// up to the newest broadcast (its own posts), so that counting never walks
// the agent's own posts again; one with a broadcast still unread leaves the
// cursor where it is, and that broadcast stays unread.
func TestCheckInMovesTheCursorOverOwnPosts(t *testing.T) {
	ctx := context.Background()
	svc, _ := hubtest.Board(t, nil)
	registerWorkers(t, svc, "alice", "bob")
	cursor := func() int64 {
		t.Helper()
		var c int64
		if err := hubtest.StoreOf(svc).Read(ctx, func(tx hub.Tx) (err error) { c, err = tx.ReadCursor(ctx, "alice"); return }); err != nil {
			t.Fatal(err)
		}
		return c
	}
	post := func(from string) hub.PostResult {
		t.Helper()
		r := svc.PostMany(ctx, []hub.PostOp{{In: hub.PostInput{From: from, Content: "x"}, CheckIn: true}})[0]
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		return r
	}
	var last hub.PostResult
	for range 3 {
		last = post("alice")
	}
	if got := cursor(); got != last.Message.Seq {
		t.Fatalf("after three own posts and nothing unread the cursor is %d, want %d", got, last.Message.Seq)
	}
	theirs := post("bob")
	mine := post("alice")
	if mine.Notices == nil || mine.Notices.Board != 1 {
		t.Fatalf("alice's notices after bob posted: %+v, want 1 unread broadcast", mine.Notices)
	}
	if got := cursor(); got != last.Message.Seq {
		t.Fatalf("with bob's post unread the cursor moved to %d, want it kept at %d", got, last.Message.Seq)
	}
	if _, err := svc.ReadMail(ctx, "alice", theirs.Message.UUID); err != nil {
		t.Fatal(err)
	}
	if n, err := svc.CheckIn(ctx, "alice"); err != nil || n.Board != 0 {
		t.Fatalf("check-in after reading bob's post = %+v, %v; want nothing unread", n, err)
	}
	if got := cursor(); got != mine.Message.Seq {
		t.Fatalf("after reading the one unread broadcast the cursor is %d, want the newest, %d", got, mine.Message.Seq)
	}
}

// A check-in that would record nothing (seen within MailTouchInterval,
// the notices already given) reads only; one that refreshes an old
// last_seen or gives new notices writes.
func TestCheckInWritesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	registerWorkers(t, svc, "alice", "bob")
	svc, cs := hubtest.Counting(svc)
	checkIn := func(what string, writes int, board int64, changed bool) {
		t.Helper()
		cs.Reads, cs.Writes = 0, 0
		n, err := svc.CheckIn(ctx, "alice")
		if err != nil || cs.Writes != writes || n.Board != board || n.Changed != changed {
			t.Fatalf("%s: %+v, %v, %d writes; want %d writes, board %d, changed %v", what, n, err, cs.Writes, writes, board, changed)
		}
	}
	checkIn("first check-in", 1, 0, false)
	clk.T = clk.T.Add(hub.MailTouchInterval - time.Second)
	checkIn("within the interval, nothing new", 0, 0, false)
	if _, err := svc.Post(ctx, hub.PostInput{From: "bob", Content: "news"}); err != nil {
		t.Fatal(err)
	}
	checkIn("a new post", 1, 1, true)
	checkIn("the same notices again", 0, 1, false)
	clk.T = clk.T.Add(hub.MailTouchInterval)
	checkIn("past the interval", 1, 1, false)
	v, err := svc.AgentStatus(ctx, "alice")
	if err != nil || !v.LastSeen.Equal(svc.Now()) {
		t.Fatalf("alice last_seen = %v (%v), want %v", v.LastSeen, err, svc.Now())
	}
	checkIn("just refreshed", 0, 1, false)
}

// ReadMailMany reads a page of mail in one write transaction, each message
// with its own read event, and leaves mail already read as it was.
func TestReadMailManyIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	svc, _ := hubtest.Board(t, nil)
	registerWorkers(t, svc, "alice", "bob")
	var ids []string
	for _, subj := range []string{"one", "two", "three"} {
		m, err := svc.SendMail(ctx, hub.SendInput{From: "bob", To: "alice", BeadID: "bb-1", Category: hub.CategoryInfo, Subject: subj, Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.UUID)
	}
	if _, err := svc.ReadMail(ctx, "alice", ids[0]); err != nil {
		t.Fatal(err)
	}
	before, err := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventMailRead}})
	if err != nil {
		t.Fatal(err)
	}
	plain := svc
	svc, cs := hubtest.Counting(svc)
	items, err := svc.ReadMailMany(ctx, "alice", ids)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Writes != 1 {
		t.Fatalf("ReadMailMany of 3 messages: %d write transactions, want 1", cs.Writes)
	}
	if len(items) != 3 {
		t.Fatalf("got %d items, want 3", len(items))
	}
	for i, it := range items {
		if it.UUID != ids[i] || it.State != hub.StateRead {
			t.Fatalf("item %d = %s %s, want %s read", i, it.UUID, it.State, ids[i])
		}
	}
	svc = plain
	after, err := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventMailRead}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(after.Events) - len(before.Events); got != 2 {
		t.Fatalf("%d new read events, want 2 (the first was read already)", got)
	}
	if _, err := svc.ReadMailMany(ctx, "alice", []string{ids[1], "nope"}); !hub.IsCode(err, hub.CodeInvalidArgs) && !hub.IsCode(err, hub.CodeMessageNotFound) {
		t.Fatalf("an unknown id: %v, want a refusal", err)
	}
}
