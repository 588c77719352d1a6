package hub_test

import (
	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

func TestTakeoverAllowed(t *testing.T) {
	for _, c := range []struct {
		p       hub.Presence
		expired bool
		want    bool
	}{
		{hub.PresActive, false, false}, {hub.PresQuiet, false, false},
		{hub.PresStale, false, true}, {hub.PresOffline, false, true},
		{hub.PresActive, true, true}, {hub.PresQuiet, true, true},
	} {
		if got := hub.TakeoverAllowed(c.p, c.expired); got != c.want {
			t.Errorf("TakeoverAllowed(%s, expired %t) = %t", c.p, c.expired, got)
		}
	}
}

// A person releases or reassigns another agent's reservation only past the
// takeover threshold; an agent never may; each step-in is one event under
// the person's name, and a reassigned reservation protects its new holder.
func TestStepIn(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	for _, r := range []hub.RegisterInput{{ID: "boss", Role: hub.RolePerson}, {ID: "bob-1", Role: "worker"}, {ID: "carol", Role: "worker"}, {ID: "dave", Role: "worker"}} {
		if _, _, err := svc.RegisterAgent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, sc := range []string{"src/a.go", "src/b/*"} {
		if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "bob-1", Scope: sc, BeadID: "bb-1"}); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(in oversight.StepInInput, code hub.Code, field string) {
		t.Helper()
		_, err := oversight.New(svc).StepIn(ctx, in)
		var he *hub.Error
		if !errors.As(err, &he) || he.Code != code || he.Field != field {
			t.Fatalf("%+v: want %s on %s, got %v", in, code, field, err)
		}
	}
	// bob is active: its reservation is its own.
	refused(oversight.StepInInput{Person: "boss", Holder: "bob-1", Scope: "src/a.go"}, hub.CodeReleaseForbidden, "holder")

	clk.T = clk.T.Add(31 * time.Minute) // bob is now offline (2 × 15 min)
	for _, a := range []string{"boss", "carol", "dave"} {
		if _, err := svc.CheckIn(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// Agents may not step in, even now.
	refused(oversight.StepInInput{Person: "carol", Holder: "bob-1", Scope: "src/a.go"}, hub.CodeReleaseForbidden, "person")
	refused(oversight.StepInInput{Person: "boss", Holder: "bob-1", Scope: "src/nope.go"}, hub.CodeReservationNotFound, "scope")
	refused(oversight.StepInInput{Person: "boss", Holder: "bob-1", Scope: "src/a.go", To: "bob-1"}, hub.CodeInvalidArgs, "to")
	refused(oversight.StepInInput{Person: "boss", Holder: "bob-1", Scope: "src/a.go", To: "nobody"}, hub.CodeAgentNotFound, "to")

	res, err := oversight.New(svc).StepIn(ctx, oversight.StepInInput{Person: "boss", Holder: "bob-1", Scope: "src/a.go", To: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Released.State != hub.ResReleased || res.Reassigned == nil || res.Reassigned.AgentID != "carol" || res.Reassigned.BeadID != "bb-1" || res.HolderPresence != hub.PresOffline {
		t.Fatalf("reassign: %+v", res)
	}
	// carol is told by mail from the person, and her hook delivers it.
	d, err := hooks.New(svc).DeliverNew(ctx, "carol")
	if err != nil || !strings.Contains(d.Text.String(), "src/a.go is yours: reassigned from bob-1") ||
		!strings.Contains(d.Text.String(), "boss reassigned the reservation of src/a.go from bob-1 (offline) to you") {
		t.Fatalf("carol's hook delivery: %q %v", d.Text.String(), err)
	}
	mail, err := svc.Inbox(ctx, hub.InboxQuery{Agent: "carol", MailOnly: true})
	if err != nil || len(mail) != 1 || mail[0].From != "boss" || mail[0].Category != hub.CategoryInfo || mail[0].BeadID != "bb-1" || mail[0].RequiresAck {
		t.Fatalf("carol's inbox: %+v %v", mail, err)
	}
	// carol holds it now: dave is refused as against any active holder.
	_, err = svc.Reserve(ctx, hub.ReserveInput{Agent: "dave", Scope: "src/a.go", BeadID: "bb-2"})
	if !hub.IsCode(err, hub.CodeReservationConflict) {
		t.Fatalf("dave against carol's reassigned reservation: %v", err)
	}

	if res, err = oversight.New(svc).StepIn(ctx, oversight.StepInInput{Person: "boss", Holder: "bob-1", Scope: "src/b/*"}); err != nil || res.Reassigned != nil {
		t.Fatalf("release: %+v %v", res, err)
	}
	st, err := overview.New(svc).CoordinationStatus(ctx, "", "bob-1")
	if err != nil || len(st.Reservations) != 0 {
		t.Fatalf("bob holds nothing after the step-in: %+v %v", st.Reservations, err)
	}

	evs, err := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationReassigned, hub.EventReservationRelease}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs.Events {
		got = append(got, e.Type+" "+e.Agent+"→"+e.ToAgent+": "+e.Message)
	}
	want := []string{
		"reservation.reassigned boss→carol: boss reassigned src/a.go from bob-1 (offline) to carol for 2h", // how long, not a clock
		"reservation.released boss→bob-1: boss released bob-1's reservation of src/b/* (offline)",
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
	// The dashboard names them in words.
	for i, label := range []string{"Reassigned", "Released"} {
		if l, _ := overview.EventLabel(&evs.Events[i]); l != label {
			t.Errorf("label of %s: %q, want %q", evs.Events[i].Type, l, label)
		}
	}
}
