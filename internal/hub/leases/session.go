package leases

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// AcquireSessionLeases grants agent, in one transaction, every lease the
// board declares for sessions (hub.ConfigLeasesSession: ports and names)
// for SessionTTL, renewing those it holds already: the same agent gets
// the same port back. A port that cannot be granted fails the whole
// declaration and nothing is written. No declaration: none.
func (s *Service) AcquireSessionLeases(ctx context.Context, in SessionInput) ([]Lease, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return nil, err
	}
	if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return nil, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return nil, err
	}
	// Most boards declare none: a read says so without a write.
	declared, err := read(ctx, s, func(tx Tx) (string, error) { return s.setting(ctx, tx, hub.ConfigLeasesSession) })
	if err != nil || declared == "" {
		return []Lease{}, err
	}
	ttl := SessionTTL
	return write(ctx, s, in, func(tx Tx) ([]Lease, error) {
		v, err := s.setting(ctx, tx, hub.ConfigLeasesSession)
		if err != nil {
			return nil, err
		}
		decl, err := hub.ParseSessionLeases(v)
		if err != nil {
			return nil, err
		}
		out := []Lease{}
		for _, d := range decl {
			a := AcquireInput{Agent: in.Agent, Name: d.Lease(), TTLMinutes: &ttl, Worktree: in.Worktree, Host: in.Host, Session: in.Session}
			kind, _, err := checkAcquire(a)
			if err != nil {
				return nil, err
			}
			got, err := s.acquireTx(ctx, tx, a, kind, ttl, stale, time.Time{})
			if err != nil {
				return nil, err
			}
			if got.Grant == nil {
				return nil, got.Refusal
			}
			out = append(out, got.Grant.Lease)
		}
		return out, nil
	})
}

// EnvLines renders leases as the environment a session is handed
// (NAME=value, one a line, for the leases that have a value).
func EnvLines(ls []Lease) []string {
	out := []string{}
	for _, l := range ls {
		if env := EnvName(l.Name); env != "" && l.Value != "" {
			out = append(out, env+"="+l.Value)
		}
	}
	return out
}
