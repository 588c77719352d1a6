package overview_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/oversight"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// On a HANDOFF or BLOCKED between two agents a person may reassign the
// reservation concerned only once its holder is past the takeover
// threshold (hub.TakeoverAllowed): the holder stale or offline, or the
// reservation expired. A BLOCKED's is its recipient's reservation its
// sender was refused, handed to the sender; a HANDOFF's its sender's for
// the work item, handed to the recipient. What the item names is what
// oversight.StepIn takes, and once reassigned it is offered no more.
func TestReassignPastTheThreshold(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	for _, r := range []hub.RegisterInput{{ID: "dana", Role: hub.RolePerson}, {ID: "alice", Role: "worker"}, {ID: "carol", Role: "worker"}, {ID: "bob", Role: "worker"}} {
		if _, _, err := svc.RegisterAgent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	short := 30
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "carol", Scope: "src/main.go", BeadID: "bb-2", TTLMinutes: &short}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "alice", Scope: "src/main.go", BeadID: "bb-1"}); !hub.IsCode(err, hub.CodeReservationConflict) {
		t.Fatalf("want a conflict, got %v", err)
	}
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "bob", Scope: "src/parser/*", BeadID: "bb-3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "alice", To: "carol", BeadID: "bb-1", Category: hub.CategoryBlocked,
		Subject: "Need src/main.go", Body: "b", RequestedAction: "Release src/main.go"}); err != nil {
		t.Fatal(err)
	}
	clk.T = clk.T.Add(time.Minute)
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "bob", To: "alice", BeadID: "bb-3", Category: hub.CategoryHandoff,
		Subject: "parser is yours", Body: "b", NextAction: "finish the parser"}); err != nil {
		t.Fatal(err)
	}
	ov := overview.New(svc)
	items := func() (handoff, blocked overview.AttentionItem) {
		t.Helper()
		a, err := ov.Attention(ctx, overview.AttentionFilter{})
		if err != nil || len(a.Items) != 2 {
			t.Fatalf("attention: %+v %v", a.Items, err)
		}
		return a.Items[0], a.Items[1]
	}
	between := []string{overview.ChoiceNudge, overview.ChoiceStepIn}
	withReassign := []string{overview.ChoiceNudge, overview.ChoiceReassign, overview.ChoiceStepIn}

	// Every holder active and every reservation unexpired: nothing to
	// reassign.
	hand, blk := items()
	for _, it := range []overview.AttentionItem{hand, blk} {
		if got := it.Choices("dana"); !slices.Equal(got, between) || len(it.Reassign) != 0 {
			t.Fatalf("%s between two active agents: choices %v, reassign %+v", it.Kind, got, it.Reassign)
		}
	}

	// 20 minutes on, carol and alice checked in, bob did not: bob is
	// stale, his handoff's reservation may go to alice; carol's is still
	// hers.
	clk.T = clk.T.Add(20 * time.Minute)
	for _, id := range []string{"carol", "alice"} {
		if _, err := svc.CheckIn(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	hand, blk = items()
	if got := hand.Choices("dana"); !slices.Equal(got, withReassign) ||
		!slices.Equal(hand.Reassign, []overview.Reassignment{{Holder: "bob", Scope: "src/parser/*", To: "alice", Why: "stale"}}) {
		t.Fatalf("the handoff of a stale holder: choices %v, reassign %+v", got, hand.Reassign)
	}
	if got := blk.Choices("dana"); !slices.Equal(got, between) || len(blk.Reassign) != 0 {
		t.Fatalf("the blocker on an active holder: choices %v, reassign %+v", got, blk.Reassign)
	}
	// Its own sides are not offered it: the request's sender nudges, the
	// one it waits on accepts or answers.
	if got := hand.Choices("bob"); !slices.Equal(got, []string{overview.ChoiceNudge}) {
		t.Fatalf("the sender's own handoff: %v", got)
	}
	if got := hand.Choices("alice"); !slices.Equal(got, []string{overview.ChoiceAccept, overview.ChoiceAnswer}) {
		t.Fatalf("the recipient's handoff: %v", got)
	}

	// Past its 30 minutes carol's reservation expired, carol still
	// active: it may go to alice.
	clk.T = clk.T.Add(10 * time.Minute)
	if _, err := svc.CheckIn(ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	_, blk = items()
	if got := blk.Choices("dana"); !slices.Equal(got, withReassign) ||
		!slices.Equal(blk.Reassign, []overview.Reassignment{{Holder: "carol", Scope: "src/main.go", To: "alice", Why: "expired"}}) {
		t.Fatalf("the blocker on an expired reservation: choices %v, reassign %+v", got, blk.Reassign)
	}

	// What the item names is what the step-in takes; reassigned, the
	// item offers it no more.
	os := oversight.New(svc)
	for _, r := range append(hand.Reassign, blk.Reassign...) {
		res, err := os.StepIn(ctx, oversight.StepInInput{Person: "dana", Holder: r.Holder, Scope: r.Scope, To: r.To})
		if err != nil || res.Reassigned == nil || res.Reassigned.AgentID != r.To {
			t.Fatalf("reassign %+v: %+v %v", r, res, err)
		}
	}
	hand, blk = items()
	for _, it := range []overview.AttentionItem{hand, blk} {
		if got := it.Choices("dana"); !slices.Equal(got, between) || len(it.Reassign) != 0 {
			t.Fatalf("%s once reassigned: choices %v, reassign %+v", it.Kind, got, it.Reassign)
		}
	}
}

// An item is named by its handle, its id or a unique prefix of its
// message's id of 4 characters or more; anything else is NOT_FOUND, a
// prefix shared by two items INVALID_ARGS.
func TestFindItem(t *testing.T) {
	items := []overview.AttentionItem{
		{Kind: overview.AttentionBlocked, MessageID: "abcd1234-0000", Agent: "alice", To: "carol"},
		{Kind: overview.AttentionHandoff, MessageID: "abcd9999-0000", Agent: "bob", To: "dana"},
		{Kind: overview.AttentionStuck, Agent: "bob"},
		{Kind: overview.AttentionIncursion, Seq: 42, Agent: "eve"},
	}
	for ref, want := range map[string]int{"abcd1234": 0, "abcd1234-0000": 0, "abcd9": 1, "blocked:abcd1234-0000": 0, "stuck:bob": 2, "incursion:42": 3} {
		got, err := overview.FindItem(items, ref)
		if err != nil || got.ID() != items[want].ID() {
			t.Errorf("FindItem(%q) = %s %v, want %s", ref, got.ID(), err, items[want].ID())
		}
	}
	for ref, code := range map[string]hub.Code{"abcd": hub.CodeInvalidArgs, "abc": hub.CodeNotFound, "ffff": hub.CodeNotFound, "": hub.CodeNotFound, "stuck:carol": hub.CodeNotFound} {
		if _, err := overview.FindItem(items, ref); !hub.IsCode(err, code) {
			t.Errorf("FindItem(%q): %v, want %s", ref, err, code)
		}
	}
	if h := items[0].Handle(); h != "abcd1234" {
		t.Errorf("a message's handle: %q", h)
	}
}
