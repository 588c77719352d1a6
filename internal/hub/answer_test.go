package hub_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/oversight"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// What needs a person says what is asked (requested action and urgency,
// next action), the files and task concerned, and offers the choices that
// fit: accept and answer what waits on the person; nudge or step in on
// what waits between two agents. Answering accepts what waits on the
// person; stepping in accepts for the recipient; a nudge reminds the
// recipient on its thread. A refused reserve pages nobody.
func TestAttentionAskedAndChoices(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	for _, r := range []hub.RegisterInput{{ID: "dana", Role: hub.RolePerson}, {ID: "alice", Role: "worker"}, {ID: "carol", Role: "worker"}} {
		if _, _, err := svc.RegisterAgent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	task, err := svc.CreateTask(ctx, "alice", hub.TaskInput{Title: "Add the route"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "carol", Scope: "src/main.go", BeadID: "bb-2"}); err != nil {
		t.Fatal(err)
	}
	// alice is refused src/main.go, then asks carol for it.
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "alice", Scope: "src/main.go", BeadID: task.Task.ID}); !hub.IsCode(err, hub.CodeReservationConflict) {
		t.Fatalf("want a conflict, got %v", err)
	}
	ov, os := overview.New(svc), oversight.New(svc)
	att, err := ov.Attention(ctx, overview.AttentionFilter{})
	if err != nil || len(att.Items) != 0 {
		t.Fatalf("a refused reserve needs no person: %+v %v", att.Items, err)
	}
	clk.T = clk.T.Add(time.Minute)
	blocked, err := svc.SendMail(ctx, hub.SendInput{From: "alice", To: "carol", BeadID: task.Task.ID, Category: hub.CategoryBlocked,
		Subject: "Need src/main.go", Body: "b", RequestedAction: "Release src/main.go or add the route", Urgency: "high"})
	if err != nil {
		t.Fatal(err)
	}
	clk.T = clk.T.Add(time.Minute)
	toDana, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-2", Category: hub.CategoryHandoff,
		Subject: "parser is yours", Body: "b", NextAction: "Review the parser and merge it"})
	if err != nil {
		t.Fatal(err)
	}
	att, err = ov.Attention(ctx, overview.AttentionFilter{})
	if err != nil || len(att.Items) != 2 {
		t.Fatalf("attention: %+v %v", att.Items, err)
	}
	hand, blk := att.Items[0], att.Items[1]
	if blk.Asked != "Release src/main.go or add the route" || blk.Urgency != "high" || !slices.Equal(blk.Files, []string{"src/main.go"}) ||
		blk.Task == nil || blk.Task.Handle != hub.TaskHandle(task.Task.ID) || blk.Task.Title != "Add the route" {
		t.Fatalf("the BLOCKED item: %+v", blk)
	}
	if hand.Asked != "Review the parser and merge it" || hand.Urgency != "" || hand.Files == nil {
		t.Fatalf("the HANDOFF item: %+v", hand)
	}
	if got := blk.Choices("dana"); !slices.Equal(got, []string{overview.ChoiceNudge, overview.ChoiceStepIn}) {
		t.Fatalf("between two agents the person's choices are the overseer's: %v", got)
	}
	if got := hand.Choices("dana"); !slices.Equal(got, []string{overview.ChoiceAccept, overview.ChoiceAnswer}) {
		t.Fatalf("what waits on the person: %v", got)
	}
	if got := blk.Choices("alice"); !slices.Equal(got, []string{overview.ChoiceNudge}) {
		t.Fatalf("one's own request: %v", got)
	}

	// Answer: a reply to carol on the handoff's thread, and accepted.
	res, err := os.Answer(ctx, oversight.AnswerInput{Person: "dana", Message: hub.ShortID(toDana.UUID), Body: "merged"})
	if err != nil || !res.Accepted || res.Sent.To != "carol" || res.Sent.Category != hub.CategoryInfo || res.Sent.ReplyTo != toDana.UUID || res.Sent.ThreadID != toDana.ThreadID {
		t.Fatalf("answer: %+v %v", res, err)
	}
	// Nudge: carol is reminded, on the blocker's thread, of what is asked.
	n, err := os.Nudge(ctx, oversight.NudgeInput{Person: "dana", Message: blocked.UUID})
	if err != nil || n.Message.To != "carol" || n.Message.ThreadID != blocked.ThreadID || n.Message.Priority != hub.PriorityHigh ||
		!strings.Contains(n.Message.Body, "alice has waited 1m for you to accept its BLOCKED") || !strings.Contains(n.Message.Body, "Release src/main.go or add the route") {
		t.Fatalf("nudge: %+v %v", n, err)
	}
	// An agent may not step in; a person may, and the blocker is accepted
	// for carol.
	if _, err := os.Answer(ctx, oversight.AnswerInput{Person: "carol", Message: blocked.UUID, Body: "x", StepIn: true}); !hub.IsCode(err, hub.CodeInvalidArgs) {
		t.Fatalf("the recipient steps in on its own mail: %v", err)
	}
	res, err = os.Answer(ctx, oversight.AnswerInput{Person: "dana", Message: blocked.UUID, Body: "use src/routes.go instead", StepIn: true})
	if err != nil || !res.Accepted || res.For != "carol" || res.Sent.To != "alice" || res.Sent.Category != hub.CategoryDecision {
		t.Fatalf("step in: %+v %v", res, err)
	}
	att, _ = ov.Attention(ctx, overview.AttentionFilter{})
	if len(att.Items) != 0 {
		t.Fatalf("answered and stepped in, nothing waits: %+v", att.Items)
	}
	limit := 5
	evs, _ := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventMailAcked}, Limit: &limit, Newest: true})
	if last := evs.Events[len(evs.Events)-1]; last.Agent != "dana" || !strings.Contains(last.Message, "dana stepped in and accepted BLOCKED from alice for carol") {
		t.Fatalf("the step-in's ack: %+v", last)
	}
}

// A reply to one's own BLOCKED is a follow-up (INFO), a reply to
// another's is its DECISION.
func TestReplyToOwnBlocked(t *testing.T) {
	ctx := context.Background()
	svc, _ := hubtest.Board(t, nil)
	for _, id := range []string{"alice", "carol"} {
		if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: id, Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := svc.SendMail(ctx, hub.SendInput{From: "alice", To: "carol", BeadID: "bb-1", Category: hub.CategoryBlocked, Subject: "s", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	own, err := svc.ReplyMail(ctx, hub.ReplyInput{Agent: "alice", Message: b.UUID, Body: "still stuck"})
	if err != nil || own.Message.Category != hub.CategoryInfo || own.Message.To != "carol" {
		t.Fatalf("follow-up on one's own BLOCKED: %+v %v", own.Message, err)
	}
	other, err := svc.ReplyMail(ctx, hub.ReplyInput{Agent: "carol", Message: b.UUID, Body: "released"})
	if err != nil || other.Message.Category != hub.CategoryDecision || other.Message.To != "alice" {
		t.Fatalf("the recipient's answer: %+v %v", other.Message, err)
	}
}
