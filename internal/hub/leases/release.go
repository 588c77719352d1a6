package leases

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
)

// ReleaseLease ends a grant of in.Name. The holder ends its own
// (Holder "" or itself); anyone else is RELEASE_FORBIDDEN unless mayEnd
// lets a person step in, who may also hand the grant over (To): the new
// holder gets the same value (port, name) under a new fencing number, for
// the default TTL.
func (s *Service) ReleaseLease(ctx context.Context, in ReleaseInput) (ReleaseResult, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return ReleaseResult{}, err
	}
	if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return ReleaseResult{}, err
	}
	kind, err := ValidateName(in.Name)
	if err != nil {
		return ReleaseResult{}, err
	}
	holder := in.Holder
	if holder == "" {
		holder = in.Agent
	}
	if err := hub.ValidateAgentRef("holder", holder); err != nil {
		return ReleaseResult{}, err
	}
	if in.To != "" {
		if err := hub.ValidateAgentRef("to", in.To); err != nil {
			return ReleaseResult{}, err
		}
		if in.To == holder {
			return ReleaseResult{}, hub.FieldErr(hub.CodeInvalidArgs, "to", "%s already holds it: hand it over to another agent", in.To)
		}
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return ReleaseResult{}, err
	}
	return write(ctx, s, []string{in.Agent, in.Name, holder, in.To}, func(tx Tx) (ReleaseResult, error) {
		return s.releaseTx(ctx, tx, in, holder, kind, stale)
	})
}

func (s *Service) releaseTx(ctx context.Context, tx Tx, in ReleaseInput, holder string, kind Kind, stale int) (ReleaseResult, error) {
	var out ReleaseResult
	now := s.kernel.Now()
	rows, err := tx.ActiveHolders(ctx, HolderFilter{Name: in.Name})
	if err != nil {
		return out, err
	}
	hs, err := s.withLiveness(ctx, tx, rows, now, stale)
	if err != nil {
		return out, err
	}
	i := slices.IndexFunc(hs, func(h Holder) bool { return h.Agent == holder })
	if i < 0 {
		if holder == in.Agent && len(hs) > 0 {
			return out, hub.FieldErr(hub.CodeReleaseForbidden, "lease", "%s is held by %s, not %s: only its holder, or a person once its holder is stale, may release it", in.Name, hs[0].Agent, in.Agent)
		}
		return out, hub.FieldErr(CodeLeaseNotFound, "lease", "%s holds no active lease %s", holder, in.Name)
	}
	h := hs[i]
	if holder != in.Agent || in.To != "" {
		if err := mayEnd(ctx, tx, in.Agent, h, stale, now); err != nil {
			return out, err
		}
		out.ByPerson, out.HolderPresence = true, h.Presence
	}
	if in.To == "" {
		out.Released, err = s.endTx(ctx, tx, h, StateReleased, in.Agent, now)
		return out, err
	}
	if out.Released, err = s.endTx(ctx, tx, h, StateTakenOver, in.Agent, now); err != nil {
		return out, err
	}
	out.HandedOver, err = s.handOverTx(ctx, tx, in, h, kind, now)
	return out, err
}

// handOverTx gives h's value to in.To under the next fencing number.
func (s *Service) handOverTx(ctx context.Context, tx Tx, in ReleaseInput, h Holder, kind Kind, now time.Time) (*Lease, error) {
	if _, err := hub.RequireAgent(ctx, tx, in.To, hub.CodeAgentNotFound, "to"); err != nil {
		return nil, err
	}
	rec, err := tx.LeaseRecord(ctx, in.Name)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, hub.Errorf(hub.CodeInternal, "lease %s has grants but no record", in.Name)
	}
	mine, err := tx.ActiveHolders(ctx, HolderFilter{Name: in.Name, Agent: in.To})
	if err != nil {
		return nil, err
	}
	for _, m := range mine {
		// The new holder's own grant gives way to the one handed over.
		m.State, m.ReleasedAt, m.EndedBy = StateReleased, &now, in.Agent
		if err := tx.UpdateHolder(ctx, &m); err != nil {
			return nil, err
		}
	}
	rec.Fence++
	rec.UpdatedAt = now
	value := h.Value
	if kind == KindName {
		value = nameValue(in.Name, in.To)
	}
	g := Lease{ID: uuid.NewString(), Name: in.Name, Kind: kind, Agent: in.To, Fence: rec.Fence, Value: value, Host: h.Host,
		State: StateActive, AcquiredAt: now, ExpiresAt: now.Add(DefaultTTL * time.Minute), Env: EnvName(in.Name)}
	if err := tx.PutLeaseRecord(ctx, rec); err != nil {
		return nil, err
	}
	if err := tx.InsertHolder(ctx, &g); err != nil {
		return nil, err
	}
	e := s.kernel.Event(EventAcquired, in.Agent, leasePayload(g, rec.Capacity))
	e.ToAgent = in.To
	e.Message = fmt.Sprintf("%s handed %s from %s (%s) to %s (fence %d)", in.Agent, in.Name, h.Agent, h.Presence, in.To, g.Fence)
	return &g, tx.AppendEvent(ctx, e)
}

// RenewLease moves the caller's grant's expiry to now + TTL (the default
// when none is given), keeping its fencing number. A grant that expired
// is renewed while nobody else has taken its place (it is still active).
func (s *Service) RenewLease(ctx context.Context, in RenewInput) (Lease, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return Lease{}, err
	}
	if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return Lease{}, err
	}
	if _, err := ValidateName(in.Name); err != nil {
		return Lease{}, err
	}
	ttl, err := checkTTL(in.TTLMinutes)
	if err != nil {
		return Lease{}, err
	}
	return write(ctx, s, []string{in.Agent, in.Name, strconv.Itoa(ttl)}, func(tx Tx) (Lease, error) {
		rows, err := tx.ActiveHolders(ctx, HolderFilter{Name: in.Name, Agent: in.Agent, Limit: 1})
		if err != nil {
			return Lease{}, err
		}
		if len(rows) == 0 {
			return Lease{}, hub.FieldErr(CodeLeaseNotFound, "lease", "%s holds no active lease %s: acquire it again", in.Agent, in.Name)
		}
		l := rows[0]
		l.ExpiresAt = s.kernel.Now().Add(time.Duration(ttl) * time.Minute)
		l.Env = EnvName(l.Name)
		return l, tx.UpdateHolder(ctx, &l)
	})
}

// ReleaseAgentLeases ends every grant agent holds (its session ended) and
// takes it out of every queue.
func (s *Service) ReleaseAgentLeases(ctx context.Context, agent string) ([]Lease, error) {
	if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
		return nil, err
	}
	if err := hub.ValidateAgentRef("agent", agent); err != nil {
		return nil, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return nil, err
	}
	return write(ctx, s, []string{agent}, func(tx Tx) ([]Lease, error) {
		now := s.kernel.Now()
		rows, err := tx.ActiveHolders(ctx, HolderFilter{Agent: agent})
		if err != nil {
			return nil, err
		}
		hs, err := s.withLiveness(ctx, tx, rows, now, stale)
		if err != nil {
			return nil, err
		}
		out := []Lease{}
		for _, h := range hs {
			l, err := s.endTx(ctx, tx, h, StateReleased, agent, now)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
		names, err := tx.WaitingNames(ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if err := tx.DeleteWaiter(ctx, n, agent); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// ReleaseSessionLeases ends, as a client session ends (its SessionEnd
// hook), the grants its agent holds for that session: those
// AcquireSessionLeases gave it (Lease.Session), each recorded as
// lease.released. Leases the agent took otherwise stay. The agent is
// in.Agent, or else the one the client's hook mapped the session to; a
// session the board never mapped, or one that holds nothing, writes
// nothing (one read).
func (s *Service) ReleaseSessionLeases(ctx context.Context, in SessionEndInput) ([]Lease, error) {
	if err := hub.TextArg("session", in.Session, MaxSessionLen); err != nil {
		return nil, err
	}
	if in.Agent != "" {
		if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
			return nil, err
		}
	} else if err := hub.TextArg("client", in.Client, MaxSessionLen); err != nil {
		return nil, err
	}
	// Most sessions hold none: a read says so without a write.
	held, err := read(ctx, s, func(tx Tx) (sessionHeld, error) { return sessionHeldTx(ctx, tx, in) })
	if err != nil || len(held.rows) == 0 {
		return []Lease{}, err
	}
	if err := hub.Allow(ctx, hub.Act(held.agent)); err != nil {
		return nil, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return nil, err
	}
	return write(ctx, s, in, func(tx Tx) ([]Lease, error) {
		cur, err := sessionHeldTx(ctx, tx, in)
		if err != nil {
			return nil, err
		}
		now := s.kernel.Now()
		hs, err := s.withLiveness(ctx, tx, cur.rows, now, stale)
		if err != nil {
			return nil, err
		}
		out := []Lease{}
		for _, h := range hs {
			l, err := s.endTx(ctx, tx, h, StateReleased, cur.agent, now)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
		return out, nil
	})
}

// sessionHeld is a session's agent and the active grants it holds for the
// session.
type sessionHeld struct {
	agent string
	rows  []Lease
}

func sessionHeldTx(ctx context.Context, tx Tx, in SessionEndInput) (sessionHeld, error) {
	out := sessionHeld{agent: in.Agent}
	if out.agent == "" {
		hs, err := tx.GetHookSession(ctx, in.Client, in.Session)
		if err != nil || hs == nil {
			return out, err
		}
		out.agent = hs.AgentID
	}
	rows, err := tx.ActiveHolders(ctx, HolderFilter{Agent: out.agent})
	if err != nil {
		return out, err
	}
	for _, l := range rows {
		if l.Session == in.Session {
			out.rows = append(out.rows, l)
		}
	}
	return out, nil
}
