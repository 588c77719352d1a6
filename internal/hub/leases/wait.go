package leases

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// AcquireLease grants in.Name to in.Agent (acquireTx is the rule). With
// Wait, a caller that is not granted at once queues in order of arrival
// and tries again whenever the lease may have changed: a lease event of
// the timeline (a release, an expiry, a takeover, a waiter leaving: the
// board's own commit signal wakes the feed, no polling) or the moment a
// holder's grant expires or its holder turns stale. It returns once
// granted, or, when the wait is over, LEASE_CONFLICT after leaving the
// queue. A request id makes an acquire without Wait idempotent; a wait's
// outcome depends on time and is never replayed.
func (s *Service) AcquireLease(ctx context.Context, in AcquireInput) (Grant, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return Grant{}, err
	}
	kind, ttl, err := checkAcquire(in)
	if err != nil {
		return Grant{}, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return Grant{}, err
	}
	if in.Wait == 0 {
		req := in
		req.Host = s.hostOf(in)
		a, err := write(ctx, s, req, func(tx Tx) (attempt, error) { return s.acquireTx(ctx, tx, in, kind, ttl, stale, time.Time{}) })
		if err != nil {
			return Grant{}, err
		}
		if a.Grant == nil {
			return Grant{}, a.Refusal
		}
		return *a.Grant, nil
	}
	return s.waitFor(ctx, in, kind, ttl, stale)
}

// wakeTypes are the events after which a waiter tries again.
var wakeTypes = []string{EventReleased, EventExpired, EventTakenOver, EventUnqueued}

// safetyRetry bounds the time between two tries of a waiter even when no
// event comes: a waiter ahead that died on another host, or a lost
// signal, delays a grant by at most this.
const safetyRetry = 10 * time.Second

// waiterSilence is how long a waiter may go without writing its place
// before the others pass it over (liveWaiters): a waiting process writes
// at least every safetyRetry, so three missed writes mean it is gone.
const waiterSilence = 3 * safetyRetry

// waitFor is AcquireLease with a wait: follow the timeline's lease events
// from before the first try, then try on every wake until granted or the
// wait is over.
func (s *Service) waitFor(ctx context.Context, in AcquireInput, kind Kind, ttl, stale int) (Grant, error) {
	start := time.Now()
	deadline := start.Add(in.Wait)
	wake := make(chan struct{}, 1)
	started := make(chan error, 1)
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		err := s.kernel.Follow(fctx, hub.FollowInput{Filter: hub.EventFilter{Types: wakeTypes},
			Started: func(int64) error { started <- nil; return nil }}, func(e hub.Event) error {
			var p struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(e.Payload, &p) == nil && p.Name == in.Name {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
			return nil
		})
		select {
		case started <- err:
		default:
		}
	}()
	if err := <-started; err != nil {
		return Grant{}, err
	}
	noIdem := hub.SideEffectRead{} // a wait's outcome is never replayed
	try := true
	var a attempt
	var wrote time.Time
	for {
		left := time.Until(deadline)
		var err error
		if !try && time.Since(wrote) >= safetyRetry {
			try = true // write the place again: others know it still waits
		}
		if !try {
			// Woken: a read says whether a write could grant now, so that
			// a release wakes many waiters but only those it may serve
			// write.
			try, a, err = s.worthTrying(ctx, in, a, stale)
			if err != nil {
				s.leaveQueue(ctx, in)
				return Grant{}, err
			}
		}
		if try {
			a, err = write(ctx, s, noIdem, func(tx Tx) (attempt, error) {
				return s.acquireTx(ctx, tx, in, kind, ttl, stale, s.kernel.Now().Add(left))
			})
			wrote = time.Now()
			if err != nil {
				s.leaveQueue(ctx, in)
				return Grant{}, err
			}
			if a.Grant != nil {
				a.Grant.Waited = time.Since(start).Round(time.Millisecond)
				return *a.Grant, nil
			}
		}
		try = false
		retry := min(left, safetyRetry)
		if !a.Next.IsZero() {
			retry = min(retry, max(a.Next.Sub(s.kernel.Now()), time.Millisecond))
		}
		timer := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			timer.Stop()
			s.leaveQueue(ctx, in)
			return Grant{}, ctx.Err()
		case <-wake:
			timer.Stop()
		case <-timer.C:
			try = true // a holder's time ran out, or the safety retry
		}
		if !time.Now().Before(deadline) {
			s.leaveQueue(ctx, in)
			return Grant{}, hub.FieldErr(CodeLeaseConflict, "wait", "%s is still held after waiting {field} %s (you were %s in line): try again later, or ask its holder", in.Name, in.Wait, ordinal(a.Position+1))
		}
	}
}

// leaveQueue takes the caller out of the queue (its wait is over) and
// records it, so that the waiters behind it try again. It runs even when
// ctx was cancelled.
func (s *Service) leaveQueue(ctx context.Context, in AcquireInput) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, _ = write(ctx, s, hub.SideEffectRead{}, func(tx Tx) (bool, error) {
		ws, err := tx.LeaseWaiters(ctx, in.Name)
		if err != nil {
			return false, err
		}
		for _, w := range ws {
			if w.Agent != in.Agent {
				continue
			}
			if err := tx.DeleteWaiter(ctx, in.Name, in.Agent); err != nil {
				return false, err
			}
			e := s.kernel.Event(EventUnqueued, in.Agent, map[string]any{"name": in.Name})
			e.Message = fmt.Sprintf("%s stopped waiting for %s", in.Agent, in.Name)
			return true, tx.AppendEvent(ctx, e)
		}
		return false, nil
	})
}

// worthTrying reads whether a write could grant in.Name to the waiter
// now: a grant ended (expired, holder evicted) that a write would end,
// a free slot with no live waiter ahead, or a stale holder to take over
// (TakeoverStale). Otherwise it returns the waiter's place and the next
// time a holder's state may change by itself.
func (s *Service) worthTrying(ctx context.Context, in AcquireInput, last attempt, stale int) (bool, attempt, error) {
	type verdict struct {
		try bool
		a   attempt
	}
	v, err := read(ctx, s, func(tx Tx) (verdict, error) {
		now := s.kernel.Now()
		rec, err := tx.LeaseRecord(ctx, in.Name)
		if err != nil || rec == nil {
			return verdict{try: true}, err
		}
		rows, err := tx.ActiveHolders(ctx, HolderFilter{Name: in.Name})
		if err != nil {
			return verdict{}, err
		}
		hs, err := s.withLiveness(ctx, tx, rows, now, stale)
		if err != nil {
			return verdict{}, err
		}
		for _, h := range hs {
			if h.Expired || h.evicted || h.Takeover && in.TakeoverStale {
				return verdict{try: true}, nil
			}
		}
		ws, err := s.liveWaiters(ctx, tx, in.Name, now)
		if err != nil {
			return verdict{}, err
		}
		ahead := 0
		for _, w := range ws {
			if w.Agent == in.Agent {
				break
			}
			ahead++
		}
		if ahead == len(ws) {
			return verdict{try: true}, nil // not in the queue (any more)
		}
		return verdict{try: rec.Capacity-len(hs) > ahead, a: attempt{Position: ahead, Next: nextChange(hs, now)}}, nil
	})
	if err != nil {
		return false, last, err
	}
	return v.try, v.a, nil
}
