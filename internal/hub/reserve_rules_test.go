package hub_test

import (
	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

func register(t *testing.T, svc *hub.Service, role string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, _, err := svc.RegisterAgent(context.Background(), hub.RegisterInput{ID: id, Role: role}); err != nil {
			t.Fatal(err)
		}
	}
}

func reserveAs(t *testing.T, svc *hub.Service, agent, scope string, ttl int) hub.ReserveResult {
	t.Helper()
	r, err := svc.Reserve(context.Background(), hub.ReserveInput{Agent: agent, Scope: scope, BeadID: "bb-1", TTLMinutes: &ttl})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func incursionOf(e hub.Event) hub.IncursionPayload {
	if e.Type == hub.EventReservationConflict { // a plain event
		var p hub.IncursionPayload
		_ = json.Unmarshal(e.Payload, &p)
		return p
	}
	var env struct{ Payload hub.IncursionPayload }
	_ = json.Unmarshal(e.Payload, &env)
	return env.Payload
}

func outcomes(evs []hub.Event) string {
	var out []string
	for _, e := range evs {
		p := incursionOf(e)
		out = append(out, p.OwnerAgent+":"+p.Outcome)
	}
	return strings.Join(out, " ")
}

// A reserve attempt over other agents' reservations: any active holder
// makes it a conflict (naming at most three of them), else the stale
// holders are found, or taken over when asked; every overlap of a refused
// attempt is a reservation.conflict (at most MaxIncursions), committed
// with the refusal; none is an INCURSION.
func TestReserveOutcomes(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	register(t, svc, "worker", "amy", "ben", "cat", "dan", "eve", "old", "new")
	reserveAs(t, svc, "old", "src/x/o.go", 60)
	clk.T = clk.T.Add(20 * time.Minute) // old is stale now
	for _, a := range []string{"amy", "ben", "cat", "dan"} {
		if _, err := svc.CheckIn(ctx, a); err != nil {
			t.Fatal(err)
		}
		reserveAs(t, svc, a, "src/x/"+a+".go", 60)
	}
	_, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "eve", Scope: "src/x/*", BeadID: "bb-2", TakeoverStale: true})
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != hub.CodeReservationConflict || he.Field != "scope" ||
		he.Message != "cannot reserve src/x/*: amy holds src/x/amy.go (partial overlap, for 1h more, bead bb-1); ben holds src/x/ben.go (partial overlap, for 1h more, bead bb-1); cat holds src/x/cat.go (partial overlap, for 1h more, bead bb-1). Ask for it: send amy a BLOCKED message asking for src/x/amy.go, then wait for src/x/*: wait until src/x/* is free; or choose a disjoint scope, or wait for it to expire" ||
		len(he.Actions) != 2 || he.Actions[0].Do != hub.ActAskRelease || he.Actions[0].Args["from"] != "eve" || he.Actions[0].Args["bead"] != "bb-2" ||
		he.Actions[1].Do != hub.ActWaitFor || he.Actions[1].Args["agent"] != "eve" || he.Actions[1].Args["scope"] != "src/x/*" {
		t.Fatalf("conflict: %#v", err)
	}
	limit := 50
	// A refused attempt is a conflict, recorded per holder; no INCURSION:
	// nothing happened inside anyone's reservation.
	if evs, _ := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventIncursion}, Limit: &limit}); len(evs.Events) != 0 {
		t.Fatalf("a refused reserve recorded incursions: %+v", evs.Events)
	}
	evs, _ := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationConflict}, Limit: &limit})
	if got := outcomes(evs.Events); got != "amy:conflict ben:conflict cat:conflict dan:conflict old:conflict" {
		t.Fatalf("conflicts: %s", got)
	}
	if stale := incursionOf(evs.Events[4]); !strings.Contains(stale.ResolutionHint, "is stale, but another active owner overlaps too") {
		t.Fatalf("the stale holder's hint: %s", stale.ResolutionHint)
	}

	// Only stale holders: found, then taken over.
	_, err = svc.Reserve(ctx, hub.ReserveInput{Agent: "eve", Scope: "src/x/o.go", BeadID: "bb-2"})
	if !errors.As(err, &he) || he.Code != hub.CodeReservationStaleFound || !strings.Contains(he.Message, "old holds src/x/o.go but its owner is stale; retry with") {
		t.Fatalf("stale found: %#v", err)
	}
	clk.T = clk.T.Add(20 * time.Minute) // amy…dan stale too
	if _, err := svc.CheckIn(ctx, "eve"); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "eve", Scope: "src/x/*", BeadID: "bb-2", TakeoverStale: true})
	if err != nil || len(r.TakenOver) != 5 || r.Renewed || len(r.Incursions) != 0 || r.Reservation.AgentID != "eve" || !r.Reservation.Wildcard {
		t.Fatalf("takeover: %+v %v", r, err)
	}
	evs, _ = svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationCreated, hub.EventReservationRenewed}, Limit: &limit})
	last := evs.Events[len(evs.Events)-1]
	if last.Message != "eve reserved src/x/* for 2h (took over 5 stale reservations)" || last.BeadID != "bb-2" || last.Scope != "src/x/*" {
		t.Fatalf("takeover event: %+v", last)
	}
	r = reserveAs(t, svc, "eve", "src/x/*", 30)
	if !r.Renewed || r.Reservation.BeadID != "bb-1" || len(r.TakenOver) != 0 {
		t.Fatalf("renewal: %+v", r)
	}
	evs, _ = svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationRenewed}, Limit: &limit})
	if len(evs.Events) != 1 || evs.Events[0].Message != "eve renewed src/x/* for 30m" {
		t.Fatalf("renewal event: %+v", evs.Events)
	}

	// An expired reservation of an active owner; one stale holder taken
	// over is "reservation".
	reserveAs(t, svc, "new", "lib/a.go", 5)
	clk.T = clk.T.Add(6 * time.Minute)
	if _, err := svc.CheckIn(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Reserve(ctx, hub.ReserveInput{Agent: "eve", Scope: "lib/a.go", BeadID: "bb-2"})
	if !errors.As(err, &he) || he.Code != hub.CodeReservationStaleFound || !strings.Contains(he.Message, "new holds lib/a.go but it expired 1m ago") {
		t.Fatalf("expired: %#v", err)
	}
	r, err = svc.Reserve(ctx, hub.ReserveInput{Agent: "eve", Scope: "lib/a.go", BeadID: "bb-2", TakeoverStale: true})
	if err != nil || len(r.TakenOver) != 1 {
		t.Fatalf("expired takeover: %+v %v", r, err)
	}
	evs, _ = svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationCreated}, Limit: &limit})
	if m := evs.Events[len(evs.Events)-1].Message; !strings.HasSuffix(m, "(took over 1 stale reservation)") {
		t.Fatalf("one taken over: %s", m)
	}
}

// At most MaxIncursions overlaps are recorded per attempt.
func TestReserveIncursionsBounded(t *testing.T) {
	ctx := context.Background()
	svc, _ := hubtest.Board(t, nil)
	register(t, svc, "worker", "eve")
	for i := range hub.MaxIncursions + 2 {
		a := fmt.Sprintf("w%02d", i)
		register(t, svc, "worker", a)
		reserveAs(t, svc, a, "m/"+a+".go", 60)
	}
	_, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "eve", Scope: "m/*", BeadID: "bb-2"})
	if !hub.IsCode(err, hub.CodeReservationConflict) {
		t.Fatal(err)
	}
	limit := 100
	evs, _ := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationConflict}, Limit: &limit})
	if len(evs.Events) != hub.MaxIncursions {
		t.Fatalf("%d incursions, want %d", len(evs.Events), hub.MaxIncursions)
	}
}

// A person may step in on a reservation that expired though its holder is
// active; a reassignment is refused while another active agent holds an
// overlapping scope; the reassigned event names the new reservation and
// the mail.
func TestStepInRules(t *testing.T) {
	ctx := context.Background()
	svc, clk := hubtest.Board(t, nil)
	register(t, svc, hub.RolePerson, "boss")
	register(t, svc, "worker", "bob", "cat", "dan")
	reserveAs(t, svc, "bob", "a.go", 5)
	reserveAs(t, svc, "bob", "c/*", 120)
	clk.T = clk.T.Add(6 * time.Minute)
	for _, a := range []string{"boss", "bob", "cat", "dan"} {
		if _, err := svc.CheckIn(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	res, err := oversight.New(svc).StepIn(ctx, oversight.StepInInput{Person: "boss", Holder: "bob", Scope: "a.go"})
	if err != nil || res.HolderPresence != hub.PresActive || res.Released.State != hub.ResReleased {
		t.Fatalf("expired, holder active: %+v %v", res, err)
	}
	limit := 10
	evs, _ := svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationRelease}, Limit: &limit})
	if len(evs.Events) != 1 || evs.Events[0].Message != "boss released bob's reservation of a.go (expired)" {
		t.Fatalf("release event: %+v", evs.Events)
	}
	if _, err := oversight.New(svc).StepIn(ctx, oversight.StepInInput{Person: "boss", Holder: "bob", Scope: "c/*", To: "cat"}); !hub.IsCode(err, hub.CodeReleaseForbidden) {
		t.Fatalf("bob active, c/* unexpired: %v", err)
	}
	clk.T = clk.T.Add(31 * time.Minute) // bob offline
	for _, a := range []string{"boss", "cat", "dan"} {
		if _, err := svc.CheckIn(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// An active hold inside bob's c/* (the API never lets two agents'
	// overlapping holds coexist but a race between servers may): stored
	// directly.
	err = hubtest.StoreOf(svc).Write(ctx, func(tx hub.Tx) error {
		return tx.InsertReservation(ctx, &hub.Reservation{ID: "r-dan", Scope: "c/d.go", AgentID: "dan", BeadID: "bb-3", State: hub.ResActive,
			CreatedAt: clk.T, ExpiresAt: clk.T.Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = oversight.New(svc).StepIn(ctx, oversight.StepInInput{Person: "boss", Holder: "bob", Scope: "c/*", To: "cat"})
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != hub.CodeReservationConflict || he.Field != "to" ||
		// The one time wording and the next step (issue 39), no raw timestamp.
		he.Message != "cannot reassign c/* to cat: dan actively holds c/d.go (it expires in 1h). Ask dan for it: send dan a BLOCKED message asking for c/d.go; or reassign c/* to another agent" ||
		len(he.Actions) != 1 || he.Actions[0].Do != hub.ActAskRelease || he.Actions[0].Args["from"] != "boss" {
		t.Fatalf("reassign over dan's hold: %#v", err)
	}
	if _, err := svc.Release(ctx, "dan", "", "c/d.go"); err != nil {
		t.Fatal(err)
	}
	res, err = oversight.New(svc).StepIn(ctx, oversight.StepInInput{Person: "boss", Holder: "bob", Scope: "c/*", To: "cat"})
	if err != nil || res.Reassigned == nil || res.Reassigned.Scope != res.Released.Scope || !res.Reassigned.Wildcard ||
		!res.Reassigned.ExpiresAt.Equal(clk.T.Add(hub.DefaultReserveTTL*time.Minute)) {
		t.Fatalf("reassign: %+v %v", res, err)
	}
	evs, _ = svc.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationReassigned}, Limit: &limit})
	var p map[string]any
	if len(evs.Events) != 1 || json.Unmarshal(evs.Events[0].Payload, &p) != nil {
		t.Fatalf("reassigned events: %+v", evs.Events)
	}
	mail, err := svc.Inbox(ctx, hub.InboxQuery{Agent: "cat", MailOnly: true})
	if err != nil || len(mail) != 1 || mail[0].ThreadID != "bead:bb-1" {
		t.Fatalf("cat's mail: %+v %v", mail, err)
	}
	for k, v := range map[string]any{"reassigned_to": "cat", "new_reservation_id": res.Reassigned.ID, "message_id": mail[0].UUID,
		"holder": "bob", "holder_presence": "offline", "expired": false, "by_person": true, "scope": "c/*"} {
		if p[k] != v {
			t.Errorf("payload %s = %v, want %v", k, p[k], v)
		}
	}
}
