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
