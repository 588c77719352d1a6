package hub

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Reservation TTL bounds (seed 000 §7.1), in minutes.
const (
	DefaultReserveTTL = 120
	MinReserveTTL     = 5
	MaxReserveTTL     = 1440
	// MaxOverlapRows bounds the rows one conflict check reads; maxIncursions
	// bounds the INCURSION events one attempt records.
	MaxOverlapRows = 1000
	MaxIncursions  = 20
)

// ReserveInput is `bb agent reserve`.
type ReserveInput struct {
	Agent string
	// Scope as typed; relative scopes resolve against Wd.
	Scope  string
	Wd     string
	BeadID string
	// TTLMinutes is nil when not given: DefaultReserveTTL.
	TTLMinutes    *int
	TakeoverStale bool
}

// ReserveResult is a successful reservation.
type ReserveResult struct {
	Reservation Reservation
	// Renewed is true when the agent already held this exact scope.
	Renewed bool
	// TakenOver lists the stale reservations archived as expired.
	TakenOver []Reservation
	// Incursions are the protocol events recorded by this attempt.
	Incursions []Event
}

// DisplayScope renders a stored scope relative to the project root.
func (s *Service) DisplayScope(r Reservation) string {
	return Scope{Path: r.Scope, Wildcard: r.Wildcard}.Display(s.ProjectRoot)
}

// OverlapDecision is how one reservation of another agent meets a scope:
// the overlap kind, the holder's liveness, whether it expired, and whether
// it blocks (unexpired with an active owner: never taken over).
type OverlapDecision struct {
	Reservation Reservation
	Kind        Overlap
	Liveness    Liveness
	Expired     bool
	Blocking    bool // unexpired and owner active: never taken over
	// Where is where its owner works (work tree, branch, host).
	Where Where
}

// Reserve claims a scope for an agent. Against another agent's active
// reservation that overlaps exactly or partially: unexpired with an active
// owner is RESERVATION_CONFLICT; expired, or owned by a stale or evicted
// agent, is RESERVATION_STALE_FOUND unless TakeoverStale, which archives it
// as expired. Re-reserving one's own exact scope renews it. Every attempt
// that overlaps another agent's reservation records an INCURSION event —
// committed even when the reserve itself is refused.
func (s *Service) Reserve(ctx context.Context, in ReserveInput) (ReserveResult, error) {
	if err := Allow(ctx, Act(in.Agent)); err != nil {
		return ReserveResult{}, err
	}
	if err := ValidateAgentRef("agent", in.Agent); err != nil {
		return ReserveResult{}, err
	}
	sc, err := s.ScopeOf(in.Wd, in.Scope)
	if err != nil {
		return ReserveResult{}, err
	}
	if err := ValidateBead(in.BeadID); err != nil {
		return ReserveResult{}, err
	}
	ttl := DefaultReserveTTL
	if in.TTLMinutes != nil {
		ttl = *in.TTLMinutes
	}
	if ttl < MinReserveTTL || ttl > MaxReserveTTL {
		return ReserveResult{}, FieldErr(CodeInvalidArgs, "ttl_minutes", "{field} must be between %d and %d minutes, got %d", MinReserveTTL, MaxReserveTTL, ttl)
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return ReserveResult{}, err
	}
	// The request, normalized: the same scope from another directory is the
	// same request.
	req := struct {
		Agent, Scope, BeadID string
		Wildcard, Takeover   bool
		TTL                  int
	}{in.Agent, sc.Path, in.BeadID, sc.Wildcard, in.TakeoverStale, ttl}
	// A refusal (conflict, stale found) still commits its INCURSION events.
	return Write(ctx, s, req, func(tx Tx) (ReserveResult, error) { return s.ReserveTx(ctx, tx, in, sc, ttl, stale) })
}

// ReserveTx is Reserve inside the caller's write transaction, for a scope
// already canonical and a TTL already checked (the edit check reserves
// every free file of one edit in one transaction). A refusal returns its
// error after appending the INCURSION events (commitRefusal).
func (s *Service) ReserveTx(ctx context.Context, tx Tx, in ReserveInput, sc Scope, ttl, stale int) (ReserveResult, error) {
	shown := sc.Display(s.ProjectRoot)
	var out ReserveResult
	if _, err := RequireAgent(ctx, tx, in.Agent, CodeAgentNotFound, "agent"); err != nil {
		return out, err
	}
	// The work item: a task named by id or handle is stored as its id (the
	// hooks' auto-reservations come through here too).
	var err error
	if in.BeadID, err = WorkItem(ctx, tx, in.BeadID); err != nil {
		return out, err
	}
	now := s.Now()
	dec, err := s.Decide(ctx, tx, in.Agent, sc, now, stale, nil)
	if err != nil {
		return out, err
	}
	outcome := reserveOutcome(dec.Others, in.TakeoverStale)
	if out.Incursions, err = s.appendIncursionsTx(ctx, tx, in, sc, shown, dec.Others, outcome); err != nil {
		return out, err
	}
	if refusal := s.reserveRefusal(outcome, shown, dec.Others); refusal != nil {
		return out, commitRefusal(refusal)
	}
	if out.TakenOver, err = archiveTakenOver(ctx, tx, dec.Others, now); err != nil {
		return out, err
	}
	exp := now.Add(time.Duration(ttl) * time.Minute)
	if out.Reservation, out.Renewed, err = holdScope(ctx, tx, in, sc, dec.Mine, now, exp); err != nil {
		return out, err
	}
	return out, tx.AppendEvent(ctx, s.reservedEvent(in, shown, out, exp, ttl))
}

// reserveOutcome is what a reserve attempt does about the other agents'
// overlapping reservations: conflict when any blocks, stale_found when
// some overlap and no takeover was asked, else takeover (also when none
// overlap).
func reserveOutcome(others []OverlapDecision, takeover bool) string {
	for _, d := range others {
		if d.Blocking {
			return "conflict"
		}
	}
	if len(others) > 0 && !takeover {
		return "stale_found"
	}
	return "takeover"
}

// appendIncursionsTx records one INCURSION per overlapping reservation (at
// most MaxIncursions) and returns them.
func (s *Service) appendIncursionsTx(ctx context.Context, tx Tx, in ReserveInput, sc Scope, shown string, others []OverlapDecision, outcome string) ([]Event, error) {
	var evs []Event
	for i, d := range others {
		if i == MaxIncursions {
			break
		}
		e := s.IncursionEvent(in, sc, shown, d, outcome)
		if err := tx.AppendEvent(ctx, e); err != nil {
			return evs, err
		}
		evs = append(evs, *e)
	}
	return evs, nil
}

// reserveRefusal words the refusal of a conflict (naming at most three
// active holders) or of stale holders found without a takeover; nil for
// a takeover.
func (s *Service) reserveRefusal(outcome, shown string, others []OverlapDecision) error {
	switch outcome {
	case "conflict":
		var b []string
		for _, d := range others {
			if d.Blocking {
				b = append(b, fmt.Sprintf("%s holds %s (%s overlap, expires %s)", d.Reservation.AgentID, s.DisplayScope(d.Reservation), d.Kind, FormatTime(d.Reservation.ExpiresAt)))
			}
			if len(b) == 3 {
				break
			}
		}
		return FieldErr(CodeReservationConflict, "scope", "cannot reserve %s: %s", shown, strings.Join(b, "; "))
	case "stale_found":
		d := others[0]
		why := "its owner is " + string(d.Liveness)
		if d.Expired {
			why = "it expired at " + FormatTime(d.Reservation.ExpiresAt)
		}
		return FieldErr(CodeReservationStaleFound, "scope", "cannot reserve %s: %s holds %s but %s; retry with {takeover_stale} to take it over", shown, d.Reservation.AgentID, s.DisplayScope(d.Reservation), why)
	}
	return nil
}

// archiveTakenOver archives the stale overlapping reservations as expired
// and returns them.
func archiveTakenOver(ctx context.Context, tx Tx, others []OverlapDecision, now time.Time) ([]Reservation, error) {
	var taken []Reservation
	for _, d := range others {
		r := d.Reservation
		r.State = ResExpired
		r.ReleasedAt = &now
		if err := tx.UpdateReservation(ctx, &r); err != nil {
			return taken, err
		}
		taken = append(taken, r)
	}
	return taken, nil
}

// holdScope gives the agent its reservation of sc until exp: its own
// (mine) renewed, else a new one.
func holdScope(ctx context.Context, tx Tx, in ReserveInput, sc Scope, mine *Reservation, now, exp time.Time) (r Reservation, renewed bool, err error) {
	if mine != nil {
		mine.Wildcard, mine.BeadID, mine.ExpiresAt = sc.Wildcard, in.BeadID, exp
		if err := tx.UpdateReservation(ctx, mine); err != nil {
			return Reservation{}, false, err
		}
		return *mine, true, nil
	}
	r = Reservation{ID: uuid.NewString(), Scope: sc.Path, Wildcard: sc.Wildcard, AgentID: in.Agent, BeadID: in.BeadID,
		State: ResActive, CreatedAt: now, ExpiresAt: exp}
	if err := tx.InsertReservation(ctx, &r); err != nil {
		return Reservation{}, false, err
	}
	return r, false, nil
}

// reservedEvent is the reservation.created (or .renewed) event of out.
func (s *Service) reservedEvent(in ReserveInput, shown string, out ReserveResult, exp time.Time, ttl int) *Event {
	typ, verb := EventReservationCreated, "reserved"
	if out.Renewed {
		typ, verb = EventReservationRenewed, "renewed"
	}
	var taken []string
	for _, r := range out.TakenOver {
		taken = append(taken, r.ID)
	}
	e := s.Event(typ, in.Agent, map[string]any{"reservation_id": out.Reservation.ID, "scope": shown,
		"expires_at": FormatTime(exp), "ttl_minutes": ttl, "taken_over": taken})
	e.BeadID, e.Scope = in.BeadID, shown
	e.Message = fmt.Sprintf("%s %s %s until %s", in.Agent, verb, shown, ClockText(exp))
	if len(taken) > 0 {
		e.Message += fmt.Sprintf(" (took over %d stale reservation%s)", len(taken), map[bool]string{true: "", false: "s"}[len(taken) == 1])
	}
	return e
}

func ClockText(t time.Time) string { return t.UTC().Format("15:04 UTC") }

func (s *Service) IncursionEvent(in ReserveInput, sc Scope, shown string, d OverlapDecision, outcome string) *Event {
	ownerScope := s.DisplayScope(d.Reservation)
	var hint string
	switch outcome {
	// The hint is stored in the INCURSION payload (seed 001
	// resolution_hint) and read on every surface: it names no surface's
	// command or flag.
	case "conflict":
		if d.Blocking {
			hint = fmt.Sprintf("%s actively holds %s until %s: coordinate with it (a BLOCKED message to %s) or choose a disjoint scope", d.Reservation.AgentID, ownerScope, FormatTime(d.Reservation.ExpiresAt), d.Reservation.AgentID)
		} else {
			hint = fmt.Sprintf("%s's reservation of %s is stale, but another active owner overlaps too; resolve that one first", d.Reservation.AgentID, ownerScope)
		}
	case "stale_found":
		hint = fmt.Sprintf("%s's reservation of %s is stale (owner %s, expired: %t): retry with a stale takeover (takeover_stale) to take it over", d.Reservation.AgentID, ownerScope, d.Liveness, d.Expired)
	default:
		hint = fmt.Sprintf("taken over (takeover_stale): %s's reservation of %s was archived as expired", d.Reservation.AgentID, ownerScope)
	}
	msg := fmt.Sprintf("%s → %s: %s overlap on %s (%s holds %s, %s)", in.Agent, d.Reservation.AgentID, d.Kind, shown, d.Reservation.AgentID, ownerScope, outcome)
	return s.ProtocolEvent(EventIncursion, in.BeadID, in.Agent, d.Reservation.AgentID, shown, IncursionPayload{
		IncursionKind: string(d.Kind), OwnerAgent: d.Reservation.AgentID, IncomingAgent: in.Agent, OwnerLiveness: string(d.Liveness),
		ResolutionHint: hint, Outcome: outcome, ReservationID: d.Reservation.ID, OwnerScope: ownerScope, OwnerExpired: d.Expired,
	}, msg)
}

// Release ends the agent's active reservation of exactly this scope. Only
// its owner may release it (RELEASE_FORBIDDEN); the row is kept, state
// released.
func (s *Service) Release(ctx context.Context, agent, wd, raw string) (Reservation, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return Reservation{}, err
	}
	if err := ValidateAgentRef("agent", agent); err != nil {
		return Reservation{}, err
	}
	sc, err := s.ScopeOf(wd, raw)
	if err != nil {
		return Reservation{}, err
	}
	shown := sc.Display(s.ProjectRoot)
	return Write(ctx, s, []string{agent, sc.Path, strconv.FormatBool(sc.Wildcard)}, func(tx Tx) (Reservation, error) {
		if _, err := RequireAgent(ctx, tx, agent, CodeAgentNotFound, "agent"); err != nil {
			return Reservation{}, err
		}
		rows, err := tx.ListReservations(ctx, ReservationFilter{Scope: sc.Path, States: []string{ResActive}, Limit: 10})
		if err != nil {
			return Reservation{}, err
		}
		var r *Reservation
		for i := range rows {
			if rows[i].AgentID == agent {
				r = &rows[i]
				break
			}
		}
		if r == nil {
			if len(rows) > 0 {
				return Reservation{}, FieldErr(CodeReleaseForbidden, "scope", "%s is reserved by %s, not %s: only the owner may release it", shown, rows[0].AgentID, agent)
			}
			return Reservation{}, FieldErr(CodeReservationNotFound, "scope", "no active reservation of %s", shown)
		}
		now := s.Now()
		r.State, r.ReleasedAt = ResReleased, &now
		if err := tx.UpdateReservation(ctx, r); err != nil {
			return Reservation{}, err
		}
		e := s.Event(EventReservationRelease, agent, map[string]any{"reservation_id": r.ID, "scope": shown})
		e.BeadID, e.Scope = r.BeadID, shown
		e.Message = fmt.Sprintf("%s released %s", agent, shown)
		return *r, tx.AppendEvent(ctx, e)
	})
}

// StatusLimit bounds each list of `bb agent status`.
const StatusLimit = 200

// TakeoverAllowed is the takeover threshold, the one rule for when another
// agent's reservation stops protecting its holder: the reservation expired,
// or its holder is stale or offline (a holder missing from the agents
// table counts as offline). Past it, an agent may take the reservation over
// (Reserve with TakeoverStale) and a person may release or reassign it
// (StepIn); before it, a reservation is its holder's alone.
func TakeoverAllowed(holder Presence, expired bool) bool {
	return expired || holder == PresStale || holder == PresOffline
}

// holderLive is a reservation holder's liveness (nil: gone, offline).
func holderLive(a *Agent, now time.Time, stale int) Live {
	if a == nil {
		return Live{Presence: PresOffline, Board: LiveOffline, Agent: LiveEvicted}
	}
	return LiveOf(a.LastSeen, now, stale)
}

// RolePerson is the role of a person (not an AI agent) on the board; the
// dashboard registers its viewer under it.
const RolePerson = "human"

// EventReservationReassigned records a person handing a reservation over.
const EventReservationReassigned = "reservation.reassigned"

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
	Released Reservation
	// Reassigned is the new holder's reservation (nil on a release).
	Reassigned *Reservation
	// HolderPresence is the holder's presence when the person stepped in.
	HolderPresence Presence
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
	if err := Allow(ctx, Act(in.Person), Needs(AccessOverseer, "stepping in on another agent's reservation")); err != nil {
		return StepInResult{}, err
	}
	if err := checkStepIn(in); err != nil {
		return StepInResult{}, err
	}
	sc, err := s.ScopeOf(in.Wd, in.Scope)
	if err != nil {
		return StepInResult{}, err
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return StepInResult{}, err
	}
	req := []string{in.Person, in.Holder, sc.Path, strconv.FormatBool(sc.Wildcard), in.To}
	return Write(ctx, s, req, func(tx Tx) (StepInResult, error) { return s.stepInTx(ctx, tx, in, sc, stale) })
}

// checkStepIn validates the agents a step-in names: the person, the
// holder and the new holder (another agent than the holder), if any.
func checkStepIn(in StepInInput) error {
	if err := ValidateAgentRef("person", in.Person); err != nil {
		return err
	}
	if err := ValidateAgentRef("holder", in.Holder); err != nil {
		return err
	}
	if in.To == "" {
		return nil
	}
	if err := ValidateAgentRef("to", in.To); err != nil {
		return err
	}
	if in.To == in.Holder {
		return FieldErr(CodeInvalidArgs, "to", "%s already holds it: reassign to another agent", in.To)
	}
	return nil
}

// stepInTx releases the holder's reservation of sc for the person, once
// past the takeover threshold, and records it, or hands it to in.To
// (reassignTx).
func (s *Service) stepInTx(ctx context.Context, tx Tx, in StepInInput, sc Scope, stale int) (StepInResult, error) {
	var out StepInResult
	shown := sc.Display(s.ProjectRoot)
	if err := requirePerson(ctx, tx, in.Person); err != nil {
		return out, err
	}
	rows, err := tx.ListReservations(ctx, ReservationFilter{AgentID: in.Holder, Scope: sc.Path, States: []string{ResActive}, Limit: 1})
	if err != nil {
		return out, err
	}
	if len(rows) == 0 {
		return out, FieldErr(CodeReservationNotFound, "scope", "%s holds no active reservation of %s", in.Holder, shown)
	}
	r := rows[0]
	now := s.Now()
	holder, err := tx.GetAgent(ctx, in.Holder)
	if err != nil {
		return out, err
	}
	out.HolderPresence = holderLive(holder, now, stale).Presence
	expired := r.Expired(now)
	if !TakeoverAllowed(out.HolderPresence, expired) {
		return out, FieldErr(CodeReleaseForbidden, "holder", "%s is %s and holds %s until %s: a person may release or reassign it only once its holder is stale or offline (%d minutes without a sign of life) or it expired", in.Holder, out.HolderPresence, shown, FormatTime(r.ExpiresAt), stale)
	}
	r.State, r.ReleasedAt = ResReleased, &now
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
	e := s.Event(EventReservationRelease, in.Person, payload)
	e.ToAgent, e.BeadID, e.Scope = in.Holder, r.BeadID, shown
	e.Message = fmt.Sprintf("%s released %s's reservation of %s (%s)", in.Person, in.Holder, shown, why)
	return out, tx.AppendEvent(ctx, e)
}

// requirePerson refuses a step-in by anyone but a person (an agent of role
// RolePerson, or a person's credential).
func requirePerson(ctx context.Context, tx Tx, person string) error {
	p, err := RequireAgent(ctx, tx, person, CodeAgentNotFound, "person")
	if err != nil {
		return err
	}
	if p.Role != RolePerson && !credentialIsPerson(ctx) {
		return FieldErr(CodeReleaseForbidden, "person", "only a person (an agent registered with role %s) may release or reassign another agent's reservation; %s has role %q", RolePerson, person, p.Role)
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
func (s *Service) reassignTx(ctx context.Context, tx Tx, in StepInInput, sc Scope, r Reservation, note stepInNote, now time.Time, stale int) (*Reservation, error) {
	if _, err := RequireAgent(ctx, tx, in.To, CodeAgentNotFound, "to"); err != nil {
		return nil, err
	}
	dec, err := s.Decide(ctx, tx, in.To, sc, now, stale, nil)
	if err != nil {
		return nil, err
	}
	for _, d := range dec.Others {
		if d.Blocking {
			return nil, FieldErr(CodeReservationConflict, "to", "cannot reassign %s to %s: %s actively holds %s until %s", note.shown, in.To, d.Reservation.AgentID, s.DisplayScope(d.Reservation), FormatTime(d.Reservation.ExpiresAt))
		}
	}
	given, err := giveReservation(ctx, tx, in.To, r, dec.Mine, now)
	if err != nil {
		return nil, err
	}
	note.payload["reassigned_to"], note.payload["new_reservation_id"] = in.To, given.ID
	note.payload["expires_at"] = FormatTime(given.ExpiresAt)
	// The new holder is told by mail, so that its hook delivers the news
	// with the next prompt.
	m := reassignMail(in, r, note, given.ExpiresAt, now)
	if err := tx.InsertMessage(ctx, &m); err != nil {
		return nil, err
	}
	note.payload["message_id"] = m.UUID
	e := s.Event(EventReservationReassigned, in.Person, note.payload)
	e.ToAgent, e.BeadID, e.Scope = in.To, r.BeadID, note.shown
	e.Message = fmt.Sprintf("%s reassigned %s from %s (%s) to %s until %s", in.Person, note.shown, in.Holder, note.why, in.To, ClockText(given.ExpiresAt))
	return given, tx.AppendEvent(ctx, e)
}

// giveReservation gives agent r's scope and bead for the default TTL: its
// own reservation of the scope (mine) is kept, with the later expiry,
// else a new one is made.
func giveReservation(ctx context.Context, tx Tx, agent string, r Reservation, mine *Reservation, now time.Time) (*Reservation, error) {
	exp := now.Add(DefaultReserveTTL * time.Minute)
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
	n := Reservation{ID: uuid.NewString(), Scope: r.Scope, Wildcard: r.Wildcard, AgentID: agent, BeadID: r.BeadID,
		State: ResActive, CreatedAt: now, ExpiresAt: exp}
	if err := tx.InsertReservation(ctx, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// reassignMail is the INFO message from the person telling the new holder
// the reservation is its own until exp.
func reassignMail(in StepInInput, r Reservation, note stepInNote, exp, now time.Time) Message {
	m := Message{UUID: uuid.NewString(), From: in.Person, To: in.To, Category: CategoryInfo, BeadID: r.BeadID,
		Subject: fmt.Sprintf("%s is yours: reassigned from %s", note.shown, in.Holder),
		Body: fmt.Sprintf("%s reassigned the reservation of %s from %s (%s) to you; it is yours until %s: renew it before then, or release it when done.",
			in.Person, note.shown, in.Holder, note.why, ClockText(exp)),
		Priority: PriorityNormal, CreatedAt: now}
	if r.BeadID != "" {
		m.ThreadID = "bead:" + r.BeadID
	}
	return m
}
