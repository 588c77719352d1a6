package hooks

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Unheard: a session whose turn ended hears nothing more until its next
// turn unless its client can be woken. While such a session holds items a
// hook would deliver, the person is told (the attention list), from the
// first item on when its client cannot be woken; when it can, once an
// item has waited longer than a wake takes (WakeGrace): then no waiter
// runs for it (installed without its wake, a headless run, a waiter
// killed).

// WakeGrace is how long an item may wait in an idle session whose client
// can be woken before the person is told that it was not: a waiter
// delivers within seconds.
const WakeGrace = time.Minute

// unheardMax bounds the idle sessions looked at.
const unheardMax = 100

// UnheardSession is an idle session with items waiting for its agent that
// nothing will deliver before its next turn.
type UnheardSession struct {
	Agent     string
	Client    hub.ClientFacts
	SessionID string
	// IdleSince is when its turn ended: one idle stretch, one item.
	IdleSince time.Time
	// Items is how many items wait (mail and escalations a hook would
	// deliver); Oldest is when the first of them began waiting on the
	// idle session (the later of its arrival and IdleSince).
	Items  int
	Oldest time.Time
}

// Unheard lists, the most recently idle first, the sessions idle since
// since with items waiting unheard: every one whose client cannot be
// woken, and those whose client can but whose oldest item has waited
// WakeGrace or more. An agent is listed once, for its most recent idle
// session, and not when it was seen since that session went idle (it
// works in another session or a shell, where its replies carry its
// unread mail). A session
// whose client was closed stays idle: what waits for its agent is indeed
// unheard until it is started again. next is when a wakeable session's
// mail will have waited WakeGrace (zero: none will), so a watcher looks
// again then. It reads only, in tx.
func (s *Service) Unheard(ctx context.Context, tx Tx, since time.Time) (out []UnheardSession, next time.Time, err error) {
	idle, err := tx.IdleHookSessions(ctx, since, unheardMax)
	if err != nil || len(idle) == 0 {
		return nil, time.Time{}, err
	}
	now := s.kernel.Now()
	seen := map[string]bool{}
	for _, hs := range idle {
		if seen[hs.AgentID] {
			continue
		}
		seen[hs.AgentID] = true
		if busy, err := s.busyElsewhere(ctx, tx, hs); err != nil || busy {
			if err != nil {
				return nil, time.Time{}, err
			}
			continue
		}
		p, err := s.pendingDelivery(ctx, tx, hs.AgentID)
		if err != nil {
			return nil, time.Time{}, err
		}
		if p.empty() {
			continue
		}
		u := UnheardSession{Agent: hs.AgentID, Client: hub.Client(hs.Client), SessionID: hs.SessionID, IdleSince: hs.IdleSince,
			Items: len(p.mail) + len(p.escalations), Oldest: now}
		for _, m := range p.mail {
			u.Oldest = minTime(u.Oldest, m.CreatedAt)
		}
		for _, e := range p.escalations {
			u.Oldest = minTime(u.Oldest, e.SentAt.Add(time.Duration(e.EscalateAfter)*time.Minute))
		}
		if u.Oldest.Before(hs.IdleSince) {
			u.Oldest = hs.IdleSince
		}
		if due := u.Oldest.Add(WakeGrace); u.Client.Wakes && now.Before(due) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue // its waiter is about to deliver it
		}
		out = append(out, u)
	}
	return out, next, nil
}

// busyElsewhere reports whether hs's agent was seen after the idle
// session last was (its own hooks touch both): it works elsewhere (a
// session resumed under a new id, a shell as the same agent), where its
// replies carry its unread mail.
func (s *Service) busyElsewhere(ctx context.Context, tx Tx, hs hub.HookSession) (bool, error) {
	a, err := tx.GetAgent(ctx, hs.AgentID)
	if err != nil || a == nil {
		return a == nil, err
	}
	return a.LastSeen.After(hs.LastSeen.Add(time.Second)), nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
