package oversight_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/oversight"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// blockedOnCarol is a board where alice was refused src/b.go and src/a.go,
// both carol's, and is BLOCKED on carol; 31 minutes on carol is offline
// (2 × 15 min) and the others checked in. It returns the BLOCKED's
// handle.
func blockedOnCarol(t *testing.T) (*hub.Service, *hubtest.Clock, string) {
	t.Helper()
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	for _, r := range []hub.RegisterInput{{ID: "dana", Role: hub.RolePerson}, {ID: "alice", Role: "worker"}, {ID: "carol", Role: "worker"}, {ID: "eve", Role: "worker"}} {
		if _, _, err := svc.RegisterAgent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	// src/b.go first: the item names the newest first, src/a.go.
	for _, sc := range []string{"src/b.go", "src/a.go"} {
		clk.T = clk.T.Add(time.Minute)
		if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "carol", Scope: sc, BeadID: "bb-2"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "alice", Scope: sc, BeadID: "bb-1"}); !hub.IsCode(err, hub.CodeReservationConflict) {
			t.Fatalf("alice on %s: want a conflict, got %v", sc, err)
		}
	}
	m, err := svc.SendMail(ctx, hub.SendInput{From: "alice", To: "carol", BeadID: "bb-1", Category: hub.CategoryBlocked,
		Subject: "Need src/a.go and src/b.go", Body: "b", RequestedAction: "Release them"})
	if err != nil {
		t.Fatal(err)
	}
	clk.T = clk.T.Add(31 * time.Minute)
	for _, a := range []string{"dana", "alice", "eve"} {
		if _, err := svc.CheckIn(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return svc, clk, hub.ShortID(m.Message.UUID)
}

// held is who holds each of the scopes actively, "scope agent" sorted.
func held(t *testing.T, svc *hub.Service) []string {
	t.Helper()
	var out []string
	for _, a := range []string{"alice", "carol", "eve"} {
		st, err := overview.New(svc).CoordinationStatus(context.Background(), "", a)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Reservations {
			out = append(out, r.Scope+" "+a)
		}
	}
	slices.Sort(out)
	return out
}

func reassignedEvents(t *testing.T, svc *hub.Service) []string {
	t.Helper()
	evs, err := svc.Events(context.Background(), hub.EventQuery{Types: []string{hub.EventReservationReassigned, hub.EventReservationRelease}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs.Events {
		out = append(out, e.Type+" "+e.Agent+"→"+e.ToAgent+": "+e.Message)
	}
	return out
}

func wantCode(t *testing.T, err error, code hub.Code, field, words string) {
	t.Helper()
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != code || he.Field != field || !strings.Contains(he.Message, words) {
		t.Fatalf("want %s on %s saying %q, got %v", code, field, words, err)
	}
}

// A person hands every reservation an item between two agents concerns
// to its other agent in one write transaction, each as a step-in (its
// event under the person's name, the new holder mailed); the item must
// offer the person the choice.
func TestReassignItem(t *testing.T) {
	ctx := context.Background()
	svc, _, handle := blockedOnCarol(t)
	counted, cs := hubtest.Counting(svc)
	os := oversight.New(counted)

	// Not the item's choice for alice (its sender nudges), nor a name
	// that names nothing.
	_, err := os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "alice", Item: handle})
	wantCode(t, err, hub.CodeInvalidArgs, "item", "offers alice no reassign: reassigning is for a HANDOFF or BLOCKED between two other agents; it offers nudge")
	_, err = os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: "ffffffff"})
	wantCode(t, err, hub.CodeNotFound, "item", "ffffffff")
	// An agent is offered it (the item is between two others) but only a
	// person may step in.
	_, err = os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "eve", Item: handle})
	wantCode(t, err, hub.CodeReleaseForbidden, "person", "only a person")
	if got := held(t, svc); !slices.Equal(got, []string{"src/a.go carol", "src/b.go carol"}) {
		t.Fatalf("after the refusals: %v", got)
	}

	cs.Writes = 0
	res, err := os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: handle})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Writes != 1 {
		t.Errorf("the reassignment opened %d write transactions, want 1", cs.Writes)
	}
	if res.Handle != handle || !strings.HasPrefix(res.Item, "blocked:") || len(res.Reassigned) != 2 {
		t.Fatalf("result: %+v", res)
	}
	for i, sc := range []string{"src/a.go", "src/b.go"} {
		h := res.Reassigned[i]
		if h.Reassignment != (overview.Reassignment{Holder: "carol", Scope: sc, To: "alice", Why: "offline"}) ||
			h.Reservation.AgentID != "alice" || h.Reservation.Scope != sc || h.Reservation.BeadID != "bb-2" || h.Reservation.State != hub.ResActive {
			t.Errorf("handover %d: %+v", i, h)
		}
	}
	if got := held(t, svc); !slices.Equal(got, []string{"src/a.go alice", "src/b.go alice"}) {
		t.Fatalf("after the reassignment: %v", got)
	}
	want := []string{
		"reservation.reassigned dana→alice: dana reassigned src/a.go from carol (offline) to alice for 2h",
		"reservation.reassigned dana→alice: dana reassigned src/b.go from carol (offline) to alice for 2h",
	}
	if got := reassignedEvents(t, svc); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
	mail, err := svc.Inbox(ctx, hub.InboxQuery{Agent: "alice", MailOnly: true})
	if err != nil || len(mail) != 2 || mail[0].From != "dana" || !strings.Contains(mail[0].Subject+mail[1].Subject, "src/b.go is yours: reassigned from carol") {
		t.Fatalf("alice's inbox: %+v %v", mail, err)
	}
	// Once handed over the item offers it no more.
	_, err = os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: handle})
	wantCode(t, err, hub.CodeInvalidArgs, "item", "none of the reservations it concerns is past the takeover threshold")
}

// The reservations go to To when given, in place of the item's other
// agent; one refused leaves all of them as they were: here the second,
// src/b.go, which eve also holds (a state a race between a person's read
// and another agent's takeover could leave; the test writes it to the
// store), so the first, src/a.go, is not handed over either.
func TestReassignItemAllOrNothing(t *testing.T) {
	ctx := context.Background()
	svc, clk, handle := blockedOnCarol(t)
	os := oversight.New(svc)
	eves := hub.Reservation{ID: "r-eve", Scope: "src/b.go", AgentID: "eve", BeadID: "bb-3", State: hub.ResActive, CreatedAt: clk.T, ExpiresAt: clk.T.Add(time.Hour)}
	st := hubtest.StoreOf(svc)
	if err := st.Write(ctx, func(tx hub.Tx) error { return tx.InsertReservation(ctx, &eves) }); err != nil {
		t.Fatal(err)
	}
	before := held(t, svc)

	_, err := os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: handle})
	wantCode(t, err, hub.CodeReservationConflict, "to", "cannot reassign src/b.go to alice: eve")
	if got := held(t, svc); !slices.Equal(got, before) || !slices.Contains(got, "src/a.go carol") {
		t.Fatalf("after a refusal on the second reservation: %v, want %v", got, before)
	}
	if got := reassignedEvents(t, svc); len(got) != 0 {
		t.Fatalf("a refused reassignment recorded %q", got)
	}
	if mail, err := svc.Inbox(ctx, hub.InboxQuery{Agent: "alice", MailOnly: true}); err != nil || len(mail) != 0 {
		t.Fatalf("alice was mailed about a refused reassignment: %+v %v", mail, err)
	}
	_, err = os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: handle, To: "nobody"})
	wantCode(t, err, hub.CodeAgentNotFound, "to", "nobody")
	_, err = os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: handle, To: "carol"})
	wantCode(t, err, hub.CodeInvalidArgs, "to", "carol already holds it")

	// To eve, who holds src/b.go already: hers is renewed, src/a.go is
	// new.
	res, err := os.ReassignItem(ctx, oversight.ReassignItemInput{Person: "dana", Item: handle, To: "eve"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reassigned) != 2 || res.Reassigned[0].To != "eve" || res.Reassigned[0].Scope != "src/a.go" ||
		res.Reassigned[1].Reservation.ID != "r-eve" || res.Reassigned[1].Reservation.BeadID != "bb-2" {
		t.Fatalf("to eve: %+v", res)
	}
	if got := held(t, svc); !slices.Equal(got, []string{"src/a.go eve", "src/b.go eve"}) {
		t.Fatalf("after the reassignment to eve: %v", got)
	}
}
