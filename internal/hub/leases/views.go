package leases

import (
	"context"
	"slices"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// CheckLease says whether agent still holds name under fencing number
// fence: its active, unexpired grant carries exactly that number. A
// script checks before it acts on what the lease protects.
func (s *Service) CheckLease(ctx context.Context, agent, name string, fence int64) (CheckResult, error) {
	if err := hub.ValidateAgentRef("agent", agent); err != nil {
		return CheckResult{}, err
	}
	if _, err := ValidateName(name); err != nil {
		return CheckResult{}, err
	}
	if fence < 1 {
		return CheckResult{}, hub.FieldErr(hub.CodeInvalidArgs, "fence", "{field} must be a fencing number a grant gave (1 or more), got %d", fence)
	}
	return read(ctx, s, func(tx Tx) (CheckResult, error) {
		out := CheckResult{Name: name, Agent: agent, Fence: fence}
		rec, err := tx.LeaseRecord(ctx, name)
		if err != nil || rec == nil {
			out.Reason = "not_held"
			return out, err
		}
		out.Latest = rec.Fence
		rows, err := tx.ActiveHolders(ctx, HolderFilter{Name: name, Agent: agent, Limit: 1})
		if err != nil {
			return out, err
		}
		switch {
		case len(rows) == 0:
			out.Reason = "not_held"
			if fence <= rec.Fence {
				out.Reason = "released"
			}
		case rows[0].Expired(s.kernel.Now()):
			out.Current, out.Reason = rows[0].Fence, "expired"
		case rows[0].Fence != fence:
			out.Current, out.Reason = rows[0].Fence, "other_fence"
		default:
			out.Current, out.Held = rows[0].Fence, true
		}
		return out, nil
	})
}

// LeaseStatus is one lease: its holders with their liveness, its live
// waiters in order and how many slots are free. A name never granted is
// LEASE_NOT_FOUND.
func (s *Service) LeaseStatus(ctx context.Context, name string) (Status, error) {
	if _, err := ValidateName(name); err != nil {
		return Status{}, err
	}
	ss, err := s.statuses(ctx, []string{name}, true)
	if err != nil {
		return Status{}, err
	}
	if len(ss) == 0 {
		return Status{}, hub.FieldErr(CodeLeaseNotFound, "lease", "no lease %s was ever granted", name)
	}
	return ss[0], nil
}

// ListLeases lists the leases held or waited for (all with All), in name
// order, or those f.Agent holds or waits for.
func (s *Service) ListLeases(ctx context.Context, f ListFilter) ([]Status, error) {
	if f.Agent != "" {
		if err := hub.ValidateAgentRef("agent", f.Agent); err != nil {
			return nil, err
		}
	}
	ss, err := s.statuses(ctx, nil, f.All)
	if err != nil {
		return nil, err
	}
	if f.Agent == "" {
		return ss, nil
	}
	return slices.DeleteFunc(ss, func(st Status) bool {
		return !slices.ContainsFunc(st.Holders, func(h Holder) bool { return h.Agent == f.Agent }) &&
			!slices.ContainsFunc(st.Waiters, func(w Waiter) bool { return w.Agent == f.Agent })
	}), nil
}

// statuses reads the leases of names (all when empty); a read never ends
// a grant: one that expired shows Expired until the next write ends it.
func (s *Service) statuses(ctx context.Context, names []string, all bool) ([]Status, error) {
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return nil, err
	}
	return read(ctx, s, func(tx Tx) ([]Status, error) {
		recs, err := tx.LeaseRecords(ctx, names)
		if err != nil {
			return nil, err
		}
		now := s.kernel.Now()
		out := []Status{}
		for _, r := range recs {
			st, err := s.statusTx(ctx, tx, r, now, stale)
			if err != nil {
				return nil, err
			}
			if all || len(st.Holders) > 0 || len(st.Waiters) > 0 {
				out = append(out, st)
			}
		}
		return out, nil
	})
}

func (s *Service) statusTx(ctx context.Context, tx Tx, r Record, now time.Time, stale int) (Status, error) {
	st := Status{Record: r, Holders: []Holder{}, Waiters: []Waiter{}, Free: -1}
	rows, err := tx.ActiveHolders(ctx, HolderFilter{Name: r.Name})
	if err != nil {
		return st, err
	}
	hs, err := s.withLiveness(ctx, tx, rows, now, stale)
	if err != nil {
		return st, err
	}
	held := 0
	for _, h := range hs {
		if !h.Expired && !h.evicted {
			held++
		}
		st.Holders = append(st.Holders, h)
	}
	if st.Waiters, err = s.liveWaiters(ctx, tx, r.Name, now); err != nil {
		return st, err
	}
	if r.Kind == KindLock {
		st.Free = max(r.Capacity-held, 0)
	}
	return st, nil
}
