package hub

import (
	"context"
	"time"
)

// overlaps reads the active reservations overlapping sc (exactly or
// partially) and classifies them for agent: mine is agent's own reservation
// of exactly sc (if any); others are the other agents' overlapping
// reservations with their owners' liveness and whether they block (the
// reservation is unexpired and its owner active: never taken over).
func (s *Service) overlaps(ctx context.Context, tx Tx, agent string, sc Scope, now time.Time, stale int) (*Reservation, []OverlapDecision, error) {
	rows, err := tx.OverlappingActive(ctx, sc.Path, Ancestors(sc.Path), MaxOverlapRows)
	if err != nil {
		return nil, nil, err
	}
	var mine *Reservation
	var others []OverlapDecision
	owners := map[string]*Agent{}
	for _, r := range rows {
		if r.AgentID == agent {
			if r.Scope == sc.Path && mine == nil {
				r := r
				mine = &r
			}
			continue // one's own overlapping reservations never conflict
		}
		owner, ok := owners[r.AgentID]
		if !ok {
			if owner, err = tx.GetAgent(ctx, r.AgentID); err != nil {
				return nil, nil, err
			}
			owners[r.AgentID] = owner
		}
		l := holderLive(owner, now, stale)
		expired := r.Expired(now)
		others = append(others, OverlapDecision{Reservation: r, Kind: ClassifyOverlap(r.Scope, sc.Path), Liveness: l.Agent,
			Expired: expired, Blocking: !TakeoverAllowed(l.Presence, expired)})
	}
	return mine, others, nil
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
		now := s.Now()
		_, others, err := s.overlaps(ctx, tx, agent, sc, now, stale)
		if err != nil {
			return ScopeCheck{}, err
		}
		out := ScopeCheck{Scope: sc, Outcome: CheckClear, Holders: []ScopeHolder{}}
		if agent != "" {
			rows, err := tx.OverlappingActive(ctx, sc.Path, Ancestors(sc.Path), MaxOverlapRows)
			if err != nil {
				return ScopeCheck{}, err
			}
			for _, r := range rows {
				if r.AgentID == agent && now.Before(r.ExpiresAt) && IsWithin(r.Scope, sc.Path) {
					out.Held = true
					break
				}
			}
		}
		for _, d := range others {
			out.Holders = append(out.Holders, ScopeHolder{Reservation: d.Reservation, Overlap: d.Kind, Liveness: d.Liveness, Expired: d.Expired, Blocking: d.Blocking})
			if d.Blocking {
				out.Outcome = CheckConflict
			} else if out.Outcome == CheckClear {
				out.Outcome = CheckStale
			}
		}
		return out, nil
	})
}
