package oversight

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
)

// StepInInput is a person releasing, or handing to another agent, a
// reservation whose holder is past the takeover threshold.
type StepInInput struct {
	// Person acts: an agent registered with role RolePerson.
	Person string
	// Holder and Scope name the reservation (the holder's active
	// reservation of exactly this scope; relative scopes resolve
	// against Wd).
	Holder string
	Scope  string
	Wd     string
	// To is the agent that gets the reservation; empty releases it.
	To string
}

// StepInResult is what a person's step-in did.
type StepInResult struct {
	// Released is the holder's reservation, now released.
	Released hub.Reservation
	// Reassigned is the new holder's reservation (nil on a release).
	Reassigned *hub.Reservation
	// HolderPresence is the holder's presence when the person stepped in.
	HolderPresence hub.Presence
}

// StepIn lets a person release or reassign another agent's reservation,
// only past the takeover threshold (TakeoverAllowed): the holder is stale
// or offline, or the reservation expired. Anyone else, or a holder still
// active, is RELEASE_FORBIDDEN. A reassignment gives the new holder the same
// scope and bead for the default TTL (renewing its own reservation of that
// scope if it has one) and is refused like a reserve when another active
// agent holds an overlapping scope. One event records it under the
// person's name (reservation.released or reservation.reassigned, addressed
// to the agent concerned); a reassignment also mails the new holder (INFO,
// from the person), which its hooks deliver like any mail.
func (s *Service) StepIn(ctx context.Context, in StepInInput) (StepInResult, error) {
	if err := hub.Allow(ctx, hub.Act(in.Person)); err != nil {
		return StepInResult{}, err
	}
	sc, err := s.prepareStepIn(ctx, in)
	if err != nil {
		return StepInResult{}, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return StepInResult{}, err
	}
	req := []string{in.Person, in.Holder, sc.Path, strconv.FormatBool(sc.Wildcard), in.To}
	return hub.Write(ctx, s.kernel, req, func(tx hub.Tx) (StepInResult, error) { return s.stepInTx(ctx, tx, in, sc, stale) })
}

// prepareStepIn is what a step-in checks before its transaction: that
// the caller's credential may release or reassign the holder's
// reservation, the agents it names (checkStepIn), and its scope, resolved
// against in.Wd.
func (s *Service) prepareStepIn(ctx context.Context, in StepInInput) (hub.Scope, error) {
	verb := hub.VerbRelease
	if in.To != "" {
		verb = hub.VerbReassign
	}
	// The step-in's own event (reservation.released or .reassigned) names
	// the person, the holder and the credential: no override event.
	if _, err := hub.Authorize(ctx, hub.Target{Thing: hub.ThingReservation, Verb: verb, Owner: in.Holder, Name: "the reservation of " + in.Scope}); err != nil {
		return hub.Scope{}, err
	}
	if err := checkStepIn(in); err != nil {
		return hub.Scope{}, err
	}
	return s.kernel.ScopeOf(in.Wd, in.Scope)
}

// checkStepIn validates the agents a step-in names: the person, the
// holder and the new holder (another agent than the holder), if any.
func checkStepIn(in StepInInput) error {
	if err := hub.ValidateAgentRef("person", in.Person); err != nil {
		return err
	}
	if err := hub.ValidateAgentRef("holder", in.Holder); err != nil {
		return err
	}
	if in.To == "" {
		return nil
	}
	if err := hub.ValidateAgentRef("to", in.To); err != nil {
		return err
	}
	if in.To == in.Holder {
		return hub.FieldErr(hub.CodeInvalidArgs, "to", "%s already holds it: reassign to another agent", in.To)
	}
	return nil
}

// stepInTx releases the holder's reservation of sc for the person, once
// past the takeover threshold, and records it, or hands it to in.To
// (reassignTx).
func (s *Service) stepInTx(ctx context.Context, tx hub.Tx, in StepInInput, sc hub.Scope, stale int) (StepInResult, error) {
	var out StepInResult
	shown := sc.Display(s.kernel.ProjectRoot)
	if err := requirePerson(ctx, tx, in.Person); err != nil {
		return out, err
	}
	rows, err := tx.ListReservations(ctx, hub.ReservationFilter{AgentID: in.Holder, Scope: sc.Path, States: []string{hub.ResActive}, Limit: 1})
	if err != nil {
		return out, err
	}
	if len(rows) == 0 {
		return out, hub.FieldErr(hub.CodeReservationNotFound, "scope", "%s holds no active reservation of %s", in.Holder, shown)
	}
	r := rows[0]
	now := s.kernel.Now()
	holder, err := tx.GetAgent(ctx, in.Holder)
	if err != nil {
		return out, err
	}
	out.HolderPresence = hub.HolderLive(holder, now, stale).Presence
	expired := r.Expired(now)
	if !hub.TakeoverAllowed(out.HolderPresence, expired) {
		ask := hub.Action{Do: hub.ActAskRelease, Args: map[string]string{"from": in.Person, "to": in.Holder, "bead": cmp.Or(r.BeadID, "none"), "scope": shown, "path": shown}}
		return out, hub.FieldErr(hub.CodeReleaseForbidden, "holder", "%s is %s and holds %s (it expires %s): a person may release or reassign it only once its holder is stale or offline (%d minutes without a sign of life) or it expired. Ask %s for it: {do}", in.Holder, out.HolderPresence, shown, hub.WhenText(now, r.ExpiresAt), stale, in.Holder).With(ask)
	}
	r.State, r.ReleasedAt = hub.ResReleased, &now
	if err := tx.UpdateReservation(ctx, &r); err != nil {
		return out, err
	}
	out.Released = r
	why := string(out.HolderPresence)
	if expired {
		why = "expired"
	}
	payload := map[string]any{"reservation_id": r.ID, "scope": shown, "holder": in.Holder, "holder_presence": out.HolderPresence,
		"expired": expired, "by_person": true}
	if in.To != "" {
		out.Reassigned, err = s.reassignTx(ctx, tx, in, sc, r, stepInNote{shown: shown, why: why, payload: payload}, now, stale)
		return out, err
	}
	e := s.kernel.Event(hub.EventReservationRelease, in.Person, payload)
	e.ToAgent, e.BeadID, e.Scope = in.Holder, r.BeadID, shown
	e.Message = fmt.Sprintf("%s released %s's reservation of %s (%s)", in.Person, in.Holder, shown, why)
	return out, tx.AppendEvent(ctx, e)
}

// requirePerson refuses a step-in by anyone but a person (an agent of role
// RolePerson, or a person's credential).
func requirePerson(ctx context.Context, tx hub.Tx, person string) error {
	p, err := hub.RequireAgent(ctx, tx, person, hub.CodeAgentNotFound, "person")
	if err != nil {
		return err
	}
	if p.Role != hub.RolePerson && !hub.CredentialIsPerson(ctx) {
		return hub.FieldErr(hub.CodeReleaseForbidden, "person", "only a person (an agent registered with role %s) may release or reassign another agent's reservation; %s has role %q", hub.RolePerson, person, p.Role)
	}
	return nil
}

// stepInNote is what a step-in's event and mail say: the scope as shown,
// why the person could step in (the holder's presence, or expired) and the
// event's payload so far.
type stepInNote struct {
	shown, why string
	payload    map[string]any
}

// reassignTx gives the released reservation r to in.To for the default TTL
// (renewing its own reservation of that scope if it has one), refused
// while another active agent holds an overlapping scope; the new holder is
// mailed, and one event records it.
func (s *Service) reassignTx(ctx context.Context, tx hub.Tx, in StepInInput, sc hub.Scope, r hub.Reservation, note stepInNote, now time.Time, stale int) (*hub.Reservation, error) {
	if _, err := hub.RequireAgent(ctx, tx, in.To, hub.CodeAgentNotFound, "to"); err != nil {
		return nil, err
	}
	dec, err := s.kernel.Decide(ctx, tx, in.To, sc, now, stale, nil)
	if err != nil {
		return nil, err
	}
	for _, d := range dec.Others {
		if d.Blocking {
			return nil, reassignConflict(s.kernel.DisplayScope(d.Reservation), in, note, d, now)
		}
	}
	given, err := giveReservation(ctx, tx, in.To, r, dec.Mine, now)
	if err != nil {
		return nil, err
	}
	note.payload["reassigned_to"], note.payload["new_reservation_id"] = in.To, given.ID
	note.payload["expires_at"] = hub.FormatTime(given.ExpiresAt)
	// The new holder is told by mail, so that its hook delivers the news
	// with the next prompt.
	m := reassignMail(in, r, note, given.ExpiresAt, now)
	if err := hub.StoreMessage(ctx, tx, &m); err != nil {
		return nil, err
	}
	note.payload["message_id"] = m.UUID
	e := s.kernel.Event(hub.EventReservationReassigned, in.Person, note.payload)
	e.ToAgent, e.BeadID, e.Scope = in.To, r.BeadID, note.shown
	// How long, not until when: a stored text names no clock or zone.
	e.Message = fmt.Sprintf("%s reassigned %s from %s (%s) to %s for %s", in.Person, note.shown, in.Holder, note.why, in.To, hub.DurationText(given.ExpiresAt.Sub(now)))
	return given, tx.AppendEvent(ctx, e)
}

// giveReservation gives agent r's scope and bead for the default TTL: its
// own reservation of the scope (mine) is kept, with the later expiry,
// else a new one is made.
func giveReservation(ctx context.Context, tx hub.Tx, agent string, r hub.Reservation, mine *hub.Reservation, now time.Time) (*hub.Reservation, error) {
	exp := now.Add(hub.DefaultReserveTTL * time.Minute)
	if mine != nil {
		if mine.ExpiresAt.Before(exp) {
			mine.ExpiresAt = exp
		}
		mine.BeadID = r.BeadID
		if err := tx.UpdateReservation(ctx, mine); err != nil {
			return nil, err
		}
		return mine, nil
	}
	n := hub.Reservation{ID: uuid.NewString(), Scope: r.Scope, Wildcard: r.Wildcard, AgentID: agent, BeadID: r.BeadID,
		State: hub.ResActive, CreatedAt: now, ExpiresAt: exp}
	if err := tx.InsertReservation(ctx, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// reassignMail is the INFO message from the person telling the new holder
// the reservation is its own until exp.
func reassignMail(in StepInInput, r hub.Reservation, note stepInNote, exp, now time.Time) hub.Message {
	m := hub.Message{UUID: uuid.NewString(), From: in.Person, To: in.To, Category: hub.CategoryInfo, BeadID: r.BeadID,
		Subject: fmt.Sprintf("%s is yours: reassigned from %s", note.shown, in.Holder),
		Body: fmt.Sprintf("%s reassigned the reservation of %s from %s (%s) to you; it is yours for %s: renew it before then, or release it when done.",
			in.Person, note.shown, in.Holder, note.why, hub.DurationText(exp.Sub(now))),
		Priority: hub.PriorityNormal, CreatedAt: now, SpokenBy: hub.SpeakerBoard}
	if r.BeadID != "" {
		m.ThreadID = "bead:" + r.BeadID
	}
	return m
}

// reassignConflict refuses a reassignment to an agent while another active
// agent holds an overlapping scope: who holds it and where, when it
// expires (the one time wording), and the next step — ask the holder for
// it, or reassign to another agent.
func reassignConflict(held string, in StepInInput, note stepInNote, d hub.OverlapDecision, now time.Time) error {
	who := d.Reservation.AgentID
	if w := d.Where.Describe(); w != "" {
		who += " (" + w + ")"
	}
	ask := hub.Action{Do: hub.ActAskRelease, Args: map[string]string{"from": in.Person, "to": d.Reservation.AgentID,
		"bead": cmp.Or(d.Reservation.BeadID, "none"), "scope": held, "path": note.shown}}
	return hub.FieldErr(hub.CodeReservationConflict, "to", "cannot reassign %s to %s: %s actively holds %s (it expires %s). Ask %s for it: {do}; or reassign %s to another agent",
		note.shown, in.To, who, held, hub.WhenText(now, d.Reservation.ExpiresAt), d.Reservation.AgentID, note.shown).With(ask)
}
