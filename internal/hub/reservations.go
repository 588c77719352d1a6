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
	// MaxOverlapRows bounds the rows one conflict check reads; MaxIncursions
	// bounds the INCURSION or reservation.conflict events one attempt
	// records.
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
	// Incursions are the INCURSION events recorded by this attempt:
	// always none, since a reserve attempt enters nobody's reservation (a
	// refused one records reservation.conflict events, a takeover archives
	// the stale reservation first). Kept for the reply's shape.
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
// as expired. Re-reserving one's own exact scope renews it. A refused
// attempt records what it was, a reservation.conflict event per
// overlapping reservation (committed although the reserve is refused):
// visible in the timeline, never paging a person. Nothing of it is an
// INCURSION, which is an edit or commit inside another's reservation.
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
	// A refusal (conflict, stale found) still commits its conflict events.
	return Write(ctx, s, req, func(tx Tx) (ReserveResult, error) { return s.ReserveTx(ctx, tx, in, sc, ttl, stale) })
}

// ReserveTx is Reserve inside the caller's write transaction, for a scope
// already canonical and a TTL already checked (the edit check reserves
// every free file of one edit in one transaction). A refusal returns its
// error after appending the reservation.conflict events (commitRefusal).
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
	out.Incursions = []Event{}
	if refusal := s.reserveRefusal(in, outcome, shown, dec.Others); refusal != nil {
		if err := s.appendConflictsTx(ctx, tx, in, sc, shown, dec.Others, outcome); err != nil {
			return out, err
		}
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

// appendConflictsTx records one reservation.conflict per overlapping
// reservation of a refused attempt (at most MaxIncursions).
func (s *Service) appendConflictsTx(ctx context.Context, tx Tx, in ReserveInput, sc Scope, shown string, others []OverlapDecision, outcome string) error {
	for i, d := range others {
		if i == MaxIncursions {
			break
		}
		if err := tx.AppendEvent(ctx, s.OverlapEvent(in, sc, shown, d, outcome, false)); err != nil {
			return err
		}
	}
	return nil
}

// reserveRefusal words the refusal of a conflict (naming at most three
// active holders) or of stale holders found without a takeover; nil for
// a takeover.
func (s *Service) reserveRefusal(in ReserveInput, outcome, shown string, others []OverlapDecision) error {
	switch outcome {
	case "conflict":
		var b []string
		var first *OverlapDecision
		for i, d := range others {
			if !d.Blocking {
				continue
			}
			if first == nil {
				first = &others[i]
			}
			who := d.Reservation.AgentID
			if w := d.Where.Describe(); w != "" {
				who += " (" + w + ")"
			}
			held := s.DisplayScope(d.Reservation)
			b = append(b, fmt.Sprintf("%s holds %s (%s overlap, for %s more, bead %s)", who, held, d.Kind,
				DurationText(d.Reservation.ExpiresAt.Sub(s.Now())), orNone(d.Reservation.BeadID)))
			if len(b) == 3 {
				break
			}
		}
		r := first.Reservation
		bead := in.BeadID
		if bead == "" {
			bead = r.BeadID
		}
		ask := Action{Do: ActAskRelease, Args: map[string]string{"from": in.Agent, "to": r.AgentID, "bead": bead, "scope": s.DisplayScope(r), "path": shown}}
		return FieldErr(CodeReservationConflict, "scope", "cannot reserve %s: %s. Ask for it: {do}, then wait for %s: {do}; or choose a disjoint scope, or wait for it to expire", shown, strings.Join(b, "; "), shown).With(ask, WaitForScopeAction(in.Agent, shown))
	case "stale_found":
		d := others[0]
		why := "its owner is " + string(d.Liveness)
		if d.Expired {
			why = "it expired " + DurationText(s.Now().Sub(d.Reservation.ExpiresAt)) + " ago"
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
	// How long, not until when: a stored text names no clock or zone.
	e.Message = fmt.Sprintf("%s %s %s for %s", in.Agent, verb, shown, DurationText(time.Duration(ttl)*time.Minute))
	if len(taken) > 0 {
		e.Message += fmt.Sprintf(" (took over %d stale reservation%s)", len(taken), map[bool]string{true: "", false: "s"}[len(taken) == 1])
	}
	return e
}

// DurationText is a span of time for people, in its two largest units
// ("1h58m", "12m", "3d4h", "under a minute"): how a core message says how
// long something lasts without naming a clock or a time zone.
func DurationText(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	m := int(d / time.Minute)
	switch {
	case m < 60:
		return fmt.Sprintf("%dm", m)
	case m < 24*60:
		if m%60 == 0 {
			return fmt.Sprintf("%dh", m/60)
		}
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	if h := (m / 60) % 24; h != 0 {
		return fmt.Sprintf("%dd%dh", m/(24*60), h)
	}
	return fmt.Sprintf("%dd", m/(24*60))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// IncursionEvent is the INCURSION of an edit or commit that went ahead
// inside d's reservation (seed 001 §6.2's payload).
func (s *Service) IncursionEvent(in ReserveInput, sc Scope, shown string, d OverlapDecision, outcome string) *Event {
	return s.OverlapEvent(in, sc, shown, d, outcome, true)
}

// OverlapEvent is the timeline's record of an attempt on a scope that
// overlaps d's reservation: an INCURSION when the edit or commit went
// ahead inside it (entered), else reservation.conflict (a reserve, edit
// or commit refused: nothing happened inside the reservation), with the
// same payload as a plain event.
func (s *Service) OverlapEvent(in ReserveInput, sc Scope, shown string, d OverlapDecision, outcome string, entered bool) *Event {
	ownerScope := s.DisplayScope(d.Reservation)
	var hint string
	switch outcome {
	// The hint is stored in the INCURSION payload (seed 001
	// resolution_hint) and read on every surface: it names no surface's
	// command or flag.
	case "conflict":
		if d.Blocking {
			// How long, not until when: a stored text names no clock or
			// zone (the expiry is the reservation's expires_at).
			hint = fmt.Sprintf("%s actively holds %s for %s more: coordinate with it (a BLOCKED message to %s) or choose a disjoint scope", d.Reservation.AgentID, ownerScope, DurationText(d.Reservation.ExpiresAt.Sub(s.Now())), d.Reservation.AgentID)
		} else {
			hint = fmt.Sprintf("%s's reservation of %s is stale, but another active owner overlaps too; resolve that one first", d.Reservation.AgentID, ownerScope)
		}
	case "stale_found":
		hint = fmt.Sprintf("%s's reservation of %s is stale (owner %s, expired: %t): retry with a stale takeover (takeover_stale) to take it over", d.Reservation.AgentID, ownerScope, d.Liveness, d.Expired)
	default:
		hint = fmt.Sprintf("taken over (takeover_stale): %s's reservation of %s was archived as expired", d.Reservation.AgentID, ownerScope)
	}
	p := IncursionPayload{
		IncursionKind: string(d.Kind), OwnerAgent: d.Reservation.AgentID, IncomingAgent: in.Agent, OwnerLiveness: string(d.Liveness),
		ResolutionHint: hint, Outcome: outcome, ReservationID: d.Reservation.ID, OwnerScope: ownerScope, OwnerExpired: d.Expired,
	}
	if !entered {
		msg := fmt.Sprintf("%s was refused %s: %s holds %s (%s overlap)", in.Agent, shown, d.Reservation.AgentID, ownerScope, d.Kind)
		e := s.Event(EventReservationConflict, in.Agent, p)
		e.ToAgent, e.BeadID, e.Scope, e.Message = d.Reservation.AgentID, in.BeadID, shown, msg
		return e
	}
	msg := fmt.Sprintf("%s edited %s inside %s's reservation of %s (%s overlap)", in.Agent, shown, d.Reservation.AgentID, ownerScope, d.Kind)
	return s.ProtocolEvent(EventIncursion, in.BeadID, in.Agent, d.Reservation.AgentID, shown, p, msg)
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

// HolderLive is a reservation holder's liveness (nil: gone, offline).
func HolderLive(a *Agent, now time.Time, stale int) Live {
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
