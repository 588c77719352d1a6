package hub

import (
	"context"
	"time"
)

// Decision is the one answer to "may agent change this scope?": every
// surface that asks (reserve, the scope check, the edit hook, the git
// guard, incursions, auto-reserve, the dashboard) reads it instead of
// deciding again. It carries the reservations it was decided on.
type Decision struct {
	Scope Scope
	// Outcome is CheckClear, CheckConflict (another active agent holds an
	// unexpired overlapping reservation) or CheckStale (only expired ones,
	// or ones of stale or evicted owners, overlap: a takeover).
	Outcome string
	// Mine is agent's own active reservation of exactly this scope (to
	// renew), expired or not.
	Mine *Reservation
	// Held is agent's own unexpired reservation covering the scope (the
	// scope itself or an ancestor; the exact one when both).
	Held *Reservation
	// Others are the other agents' overlapping reservations, each with its
	// owner's liveness and whether it blocks.
	Others []OverlapDecision
}

// Blocking reports whether another active agent holds the scope.
func (d Decision) Blocking() bool { return d.Outcome == CheckConflict }

// Decide reads the active reservations overlapping sc (exactly or
// partially) in tx and decides for agent ("" = anyone) at now: the rule of
// seed 001 §5 (one's own reservations never conflict; another agent's
// blocks while unexpired with an active owner, else it may be taken over).
// owners caches agent rows across calls of one transaction (nil: none).
func (s *Service) Decide(ctx context.Context, tx Tx, agent string, sc Scope, now time.Time, stale int, owners map[string]*Agent) (Decision, error) {
	rows, err := tx.OverlappingActive(ctx, sc.Path, Ancestors(sc.Path), MaxOverlapRows)
	if err != nil {
		return Decision{}, err
	}
	if owners == nil {
		owners = map[string]*Agent{}
	}
	d := Decision{Scope: sc, Outcome: CheckClear}
	for _, r := range rows {
		kind := ClassifyOverlap(r.Scope, sc.Path)
		if kind == OverlapDisjoint {
			continue // the top's range holds every row; only relative ones overlap it
		}
		if r.AgentID == agent {
			r := r
			if r.Scope == sc.Path && d.Mine == nil {
				d.Mine = &r
			}
			if now.Before(r.ExpiresAt) && IsWithin(r.Scope, sc.Path) && (d.Held == nil || r.Scope == sc.Path) {
				d.Held = &r
			}
			continue // one's own overlapping reservations never conflict
		}
		owner, ok := owners[r.AgentID]
		if !ok {
			if owner, err = tx.GetAgent(ctx, r.AgentID); err != nil {
				return Decision{}, err
			}
			owners[r.AgentID] = owner
		}
		l := HolderLive(owner, now, stale)
		expired := r.Expired(now)
		od := OverlapDecision{Reservation: r, Kind: kind, Liveness: l.Agent, Expired: expired, Blocking: !TakeoverAllowed(l.Presence, expired)}
		if owner != nil {
			od.Where = owner.Where
		}
		d.Others = append(d.Others, od)
		switch {
		case od.Blocking:
			d.Outcome = CheckConflict
		case d.Outcome == CheckClear:
			d.Outcome = CheckStale
		}
	}
	return d, nil
}

// Outcomes of a scope check.
const (
	// CheckClear: no other agent holds an overlapping reservation.
	CheckClear = "clear"
	// CheckConflict: another active agent holds an unexpired overlapping
	// reservation; reserving would fail with RESERVATION_CONFLICT.
	CheckConflict = "conflict"
	// CheckStale: only expired reservations or ones of stale/evicted
	// owners overlap; reserving needs takeover (RESERVATION_STALE_FOUND).
	CheckStale = "stale"
)

// ScopeHolder is another agent's reservation overlapping a checked scope.
type ScopeHolder struct {
	Reservation Reservation
	Overlap     Overlap
	Liveness    Liveness
	Expired     bool
	// Blocking is true when it is unexpired and its owner active.
	Blocking bool
}

// ScopeCheck is the read-only answer to "may agent touch this scope?".
type ScopeCheck struct {
	Scope   Scope
	Outcome string
	// Held is true when agent holds an active reservation covering the
	// scope (the scope itself or an ancestor).
	Held    bool
	Holders []ScopeHolder
}

// CheckScope tells, without writing anything (no reservation, no
// INCURSION event), whether agent's reserving or editing scope would
// collide with other agents' reservations, by the rule Reserve applies.
// It is meant for pre-edit hooks; agent may be "" (anyone).
func (s *Service) CheckScope(ctx context.Context, agent, wd, raw string) (ScopeCheck, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return ScopeCheck{}, err
	}
	if agent != "" {
		if err := ValidateStoredAgentID(agent); err != nil {
			return ScopeCheck{}, err
		}
	}
	sc, err := s.ScopeOf(wd, raw)
	if err != nil {
		return ScopeCheck{}, err
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return ScopeCheck{}, err
	}
	return Read(ctx, s, func(tx Tx) (ScopeCheck, error) {
		d, err := s.Decide(ctx, tx, agent, sc, s.Now(), stale, nil)
		if err != nil {
			return ScopeCheck{}, err
		}
		out := ScopeCheck{Scope: sc, Outcome: d.Outcome, Held: agent != "" && d.Held != nil, Holders: []ScopeHolder{}}
		for _, o := range d.Others {
			out.Holders = append(out.Holders, ScopeHolder{Reservation: o.Reservation, Overlap: o.Kind, Liveness: o.Liveness, Expired: o.Expired, Blocking: o.Blocking})
		}
		return out, nil
	})
}

// maxOverlapView bounds the active reservations ActiveOverlaps decides
// for (one indexed lookup each).
const maxOverlapView = 500

// ReservationOverlaps is one active reservation with the decision for its
// holder on its own scope: the other agents' overlapping reservations.
type ReservationOverlaps struct {
	Reservation Reservation
	Others      []OverlapDecision
}

// ActiveOverlaps returns the active reservations (newest first, at most
// 500) each with the core's decision for its holder on its scope, so a
// view (the dashboard) shows who overlaps whom by the one rule.
func (s *Service) ActiveOverlaps(ctx context.Context) ([]ReservationOverlaps, error) {
	stale, err := s.StaleMinutes()
	if err != nil {
		return nil, err
	}
	return Read(ctx, s, func(tx Tx) ([]ReservationOverlaps, error) {
		rows, err := tx.ListReservations(ctx, ReservationFilter{States: []string{ResActive}, Limit: maxOverlapView})
		if err != nil {
			return nil, err
		}
		now := s.Now()
		owners := map[string]*Agent{}
		out := make([]ReservationOverlaps, 0, len(rows))
		for _, r := range rows {
			d, err := s.Decide(ctx, tx, r.AgentID, Scope{Path: r.Scope, Wildcard: r.Wildcard}, now, stale, owners)
			if err != nil {
				return nil, err
			}
			out = append(out, ReservationOverlaps{Reservation: r, Others: d.Others})
		}
		return out, nil
	})
}
