package leases

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
)

// attempt is the outcome of one try at a lease inside a transaction: the
// grant, or why not (the refusal, and for a waiter its place in the queue
// and when the state may change without an event: an expiry, a holder
// turning stale).
type attempt struct {
	Grant    *Grant `json:"grant,omitempty"`
	Refusal  error  `json:"-"`
	Position int    `json:"position"`
	// Next is the earliest time a holder's grant expires or its holder
	// turns stale (zero: none).
	Next time.Time `json:"next"`
}

// acquireTx is the one rule of grant, queue and takeover, for every
// surface. In order: grants that expired, or whose holder is evicted, end
// (lease.expired); the caller's own grant is renewed (same fence); a port
// or a name is handed out (its own to each holder); a lock or a slot is
// granted while fewer than its capacity hold it and no live waiter
// arrived before the caller; a full one is taken over from a stale or
// offline holder with TakeoverStale. A waiter that is not granted takes
// (or keeps) its place in the queue; anyone else is refused
// (LEASE_CONFLICT, or LEASE_STALE_FOUND when a takeover would do).
func (s *Service) acquireTx(ctx context.Context, tx Tx, in AcquireInput, kind Kind, ttl, stale int, waitUntil time.Time) (attempt, error) {
	var out attempt
	now := s.kernel.Now()
	rec, holders, err := s.leaseState(ctx, tx, in, kind, now, stale)
	if err != nil {
		return out, err
	}
	exp := now.Add(time.Duration(ttl) * time.Minute)
	if holders, err = s.dropAvoidedPort(ctx, tx, in, kind, holders, now); err != nil {
		return out, err
	}
	if renewed, err := s.renewOwnTx(ctx, tx, in, kind, holders, exp); err != nil || renewed != nil {
		out.Grant = renewed
		return out, err
	}
	if c := in.Capacity; c != nil && *c != rec.Capacity {
		if len(holders) > 0 {
			return out, hub.FieldErr(hub.CodeInvalidArgs, "capacity", "%s has {field} %d and is held: it changes to %d once no one holds it", in.Name, rec.Capacity, *c)
		}
		rec.Capacity = *c
	}
	g := Lease{ID: uuid.NewString(), Name: in.Name, Kind: kind, Agent: in.Agent, Worktree: in.Worktree, Host: s.hostOf(in),
		Session: in.Session, State: StateActive, AcquiredAt: now, ExpiresAt: exp}
	grant := &Grant{TakenOver: []Lease{}}
	switch kind {
	case KindPort:
		if g.Value, grant.Probed, err = s.pickPort(ctx, tx, in, now, stale); err != nil {
			return out, err
		}
	case KindName:
		g.Value = nameValue(in.Name, in.Agent)
	default:
		ok, err := s.slotFor(ctx, tx, in, rec, holders, now, waitUntil, grant, &out)
		if err != nil || !ok {
			return out, err
		}
	}
	if err := s.grantTx(ctx, tx, in, rec, g, holders, now, grant); err != nil {
		return out, err
	}
	out.Grant = grant
	return out, nil
}

// leaseState is what an acquisition decides on: the lease's record (a new
// one when it was never held) and its live holders, once the caller's sign
// of life is recorded.
func (s *Service) leaseState(ctx context.Context, tx Tx, in AcquireInput, kind Kind, now time.Time, stale int) (*Record, []Holder, error) {
	// Asking for a lease is a sign of life: a new agent is recorded, a
	// known one refreshed (a holder's liveness decides takeovers).
	if err := tx.TouchAgent(ctx, in.Agent, now); err != nil {
		return nil, nil, err
	}
	rec, err := tx.LeaseRecord(ctx, in.Name)
	if err != nil {
		return nil, nil, err
	}
	if rec == nil {
		rec = &Record{Name: in.Name, Kind: kind, Capacity: 1, CreatedAt: now}
	}
	holders, err := s.liveHolders(ctx, tx, HolderFilter{Name: in.Name}, now, stale)
	if err != nil {
		return nil, nil, err
	}
	return rec, holders, nil
}

// dropAvoidedPort releases the caller's port on its host when the caller
// found it in use (in.Avoid), so it gets another; it returns the holders
// left.
func (s *Service) dropAvoidedPort(ctx context.Context, tx Tx, in AcquireInput, kind Kind, holders []Holder, now time.Time) ([]Holder, error) {
	for i, h := range holders {
		if h.Agent == in.Agent && kind == KindPort && h.Host == s.hostOf(in) && slices.Contains(in.Avoid, portOf(h.Value)) {
			// The caller found its port in use on its host: it gives
			// that one up for another.
			if _, err := s.endTx(ctx, tx, h, StateReleased, in.Agent, now); err != nil {
				return nil, err
			}
			return slices.Delete(slices.Clone(holders), i, i+1), nil
		}
	}
	return holders, nil
}

// renewOwnTx renews the caller's own grant (a lock's anywhere, another
// kind's on its host) until exp, same fence, and ends its wait; nil when
// it holds none.
func (s *Service) renewOwnTx(ctx context.Context, tx Tx, in AcquireInput, kind Kind, holders []Holder, exp time.Time) (*Grant, error) {
	for _, h := range holders {
		if h.Agent == in.Agent && (kind == KindLock || h.Host == s.hostOf(in)) {
			g, err := s.renewTx(ctx, tx, h.Lease, exp, in)
			if err != nil {
				return nil, err
			}
			if err := tx.DeleteWaiter(ctx, in.Name, in.Agent); err != nil {
				return nil, err
			}
			return &Grant{Lease: g, Renewed: true, TakenOver: []Lease{}}, nil
		}
	}
	return nil, nil
}

// grantTx records the new grant g: the lease's next fence, the holder, the
// caller's wait ended, and the lease.acquired event; grant gets the lease.
func (s *Service) grantTx(ctx context.Context, tx Tx, in AcquireInput, rec *Record, g Lease, holders []Holder, now time.Time, grant *Grant) error {
	rec.Fence++
	rec.UpdatedAt = now
	g.Fence = rec.Fence
	g.Env = EnvName(in.Name)
	if err := tx.PutLeaseRecord(ctx, rec); err != nil {
		return err
	}
	if err := tx.InsertHolder(ctx, &g); err != nil {
		return err
	}
	if err := tx.DeleteWaiter(ctx, in.Name, in.Agent); err != nil {
		return err
	}
	grant.Lease = g
	return tx.AppendEvent(ctx, s.acquiredEvent(g, rec, len(holders)+1-len(grant.TakenOver)))
}

// hostOf is the host a caller works on ("": this process's).
func (s *Service) hostOf(in AcquireInput) string {
	if in.Host != "" {
		return in.Host
	}
	return s.machine.Host()
}

// slotFor decides whether the caller gets one of a lock's slots: a free
// one no live waiter arrived for before the caller, or, with
// TakeoverStale, one taken from a stale or offline holder. Not granted, a
// waiter (waitUntil set) takes or keeps its place in the queue; anyone
// else gets its refusal in out.
func (s *Service) slotFor(ctx context.Context, tx Tx, in AcquireInput, rec *Record, holders []Holder, now, waitUntil time.Time, grant *Grant, out *attempt) (bool, error) {
	waiters, err := s.liveWaiters(ctx, tx, in.Name, now)
	if err != nil {
		return false, err
	}
	ahead := 0
	for _, w := range waiters {
		if w.Agent == in.Agent {
			break
		}
		ahead++
	}
	free := rec.Capacity - len(holders)
	var stale []Holder
	for _, h := range holders {
		if h.Takeover {
			stale = append(stale, h)
		}
	}
	if free <= ahead && in.TakeoverStale && len(stale) > 0 {
		// The longest-held stale grant goes first.
		for _, h := range stale[:min(len(stale), ahead-free+1)] {
			taken, err := s.endTx(ctx, tx, h, StateTakenOver, in.Agent, now)
			if err != nil {
				return false, err
			}
			grant.TakenOver = append(grant.TakenOver, taken)
			free++
		}
	}
	if free > ahead {
		return true, nil
	}
	out.Next = nextChange(holders, now)
	if !waitUntil.IsZero() {
		pos, err := s.queueTx(ctx, tx, in, rec, waiters, now, waitUntil)
		out.Position = pos
		if err != nil {
			return false, err
		}
		return false, tx.PutLeaseRecord(ctx, rec)
	}
	out.Refusal = refusal(in.Name, rec.Capacity, holders, stale, ahead, now)
	return false, nil
}

// refusal words why a lock is not granted now.
func refusal(name string, capacity int, holders, stale []Holder, waiting int, now time.Time) error {
	who := make([]string, len(holders))
	for i, h := range holders {
		who[i] = fmt.Sprintf("%s (%s, fence %d, expires %s)", h.Agent, h.Presence, h.Fence, hub.WhenText(now, h.ExpiresAt))
	}
	slots := "is"
	if capacity > 1 {
		slots = fmt.Sprintf("has all %d slots", capacity)
	}
	queue := ""
	if waiting > 0 {
		queue = fmt.Sprintf("; %d waiting before you", waiting)
	}
	if len(stale) > 0 && len(holders) >= capacity {
		return hub.FieldErr(CodeLeaseStaleFound, "lease", "%s is held by %s, stale or offline%s: take it over with takeover_stale, or wait", name, strings.Join(who, ", "), queue)
	}
	if len(holders) < capacity {
		return hub.FieldErr(CodeLeaseConflict, "lease", "%s has a free slot, promised to the %d waiting before you: wait for your turn", name, waiting)
	}
	return hub.FieldErr(CodeLeaseConflict, "lease", "%s %s held by %s%s: wait for it (acquire with a wait), or ask %s to release it", name, slots, strings.Join(who, ", "), queue, holders[0].Agent)
}

// queueTx gives the caller its place in the queue of in.Name (the next
// queue number when it arrives; its own when it is there already) until
// waitUntil, and returns how many live waiters are before it.
func (s *Service) queueTx(ctx context.Context, tx Tx, in AcquireInput, rec *Record, waiters []Waiter, now, until time.Time) (int, error) {
	pos := 0
	for _, w := range waiters {
		if w.Agent == in.Agent {
			w.Until, w.Host, w.PID, w.HeardAt = until, s.machine.Host(), s.machine.PID(), now
			return pos, tx.PutWaiter(ctx, &w)
		}
		pos++
	}
	rec.QueueSeq++
	rec.UpdatedAt = now
	w := Waiter{Name: in.Name, Agent: in.Agent, Seq: rec.QueueSeq, Host: s.machine.Host(), PID: s.machine.PID(), Since: now, Until: until, HeardAt: now}
	if err := tx.PutWaiter(ctx, &w); err != nil {
		return pos, err
	}
	e := s.kernel.Event(EventQueued, in.Agent, map[string]any{"name": in.Name, "position": pos + 1, "capacity": rec.Capacity})
	e.Message = fmt.Sprintf("%s waits for %s (%s in line)", in.Agent, in.Name, ordinal(pos+1))
	return pos, tx.AppendEvent(ctx, e)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// pickPort hands the caller a port of the board's range on its host: one
// no active grant on that host holds and the caller did not find in use
// (Avoid); on this process's host, one that binds now (probed). The
// search starts at a hash of agent and name.
func (s *Service) pickPort(ctx context.Context, tx Tx, in AcquireInput, now time.Time, stale int) (string, bool, error) {
	lo, hi, err := s.portRange(ctx, tx)
	if err != nil {
		return "", false, err
	}
	host := s.hostOf(in)
	held, err := s.liveHolders(ctx, tx, HolderFilter{Kind: KindPort, Host: host}, now, stale)
	if err != nil {
		return "", false, err
	}
	used := map[int]bool{}
	for _, h := range held {
		used[portOf(h.Value)] = true
	}
	for _, p := range in.Avoid {
		used[p] = true
	}
	probe := host == s.machine.Host()
	size := hi - lo + 1
	start := portStart(in.Agent, in.Name, lo, hi)
	for i := range size {
		p := lo + (start-lo+i)%size
		if used[p] || probe && !s.machine.PortFree(p) {
			continue
		}
		return strconv.Itoa(p), probe, nil
	}
	return "", false, hub.FieldErr(CodePortsExhausted, "port_range", "no free port in {field} %d-%d on %s: %d held by leases, the others in use; widen the range or release a port", lo, hi, host, len(held))
}

// portRange is the board's port range (hub.ConfigLeasesPortRange).
func (s *Service) portRange(ctx context.Context, tx Tx) (int, int, error) {
	v, err := s.setting(ctx, tx, hub.ConfigLeasesPortRange)
	if err != nil {
		return 0, 0, err
	}
	return hub.ParsePortRange(v)
}

// setting is a board setting's effective value.
func (s *Service) setting(ctx context.Context, tx hub.Tx, key string) (string, error) {
	stored, err := tx.ListConfig(ctx)
	if err != nil {
		return "", err
	}
	for _, e := range s.kernel.ConfigEntries(stored) {
		if e.Key == key {
			return e.Value, nil
		}
	}
	return "", nil
}

// renewTx moves the caller's own grant's expiry to exp (never earlier).
func (s *Service) renewTx(ctx context.Context, tx Tx, l Lease, exp time.Time, in AcquireInput) (Lease, error) {
	if exp.After(l.ExpiresAt) {
		l.ExpiresAt = exp
	}
	if in.Worktree != "" {
		l.Worktree = in.Worktree
	}
	if in.Session != "" {
		l.Session = in.Session
	}
	l.Env = EnvName(l.Name)
	return l, tx.UpdateHolder(ctx, &l)
}

// acquiredEvent records a grant, naming its fencing number.
func (s *Service) acquiredEvent(g Lease, rec *Record, held int) *hub.Event {
	e := s.kernel.Event(EventAcquired, g.Agent, leasePayload(g, rec.Capacity))
	what := g.Name
	if g.Value != "" {
		what = fmt.Sprintf("%s = %s", g.Name, g.Value)
	}
	e.Message = fmt.Sprintf("%s acquired %s (fence %d", g.Agent, what, g.Fence)
	if g.Kind == KindLock && rec.Capacity > 1 {
		e.Message += fmt.Sprintf(", %d of %d slots", held, rec.Capacity)
	}
	e.Message += ")"
	return e
}

// leasePayload is what every lease event carries.
func leasePayload(g Lease, capacity int) map[string]any {
	p := map[string]any{"name": g.Name, "kind": g.Kind, "fence": g.Fence, "lease_id": g.ID, "holder": g.Agent,
		"expires_at": hub.FormatTime(g.ExpiresAt), "capacity": capacity}
	if g.Value != "" {
		p["value"] = g.Value
	}
	if g.Host != "" {
		p["host"] = g.Host
	}
	return p
}

// endTx ends a grant (released, expired or taken over) and records it.
func (s *Service) endTx(ctx context.Context, tx Tx, h Holder, state, by string, now time.Time) (Lease, error) {
	l := h.Lease
	l.State, l.ReleasedAt = state, &now
	if by != l.Agent {
		l.EndedBy = by
	}
	if err := tx.UpdateHolder(ctx, &l); err != nil {
		return l, err
	}
	typ := map[string]string{StateReleased: EventReleased, StateExpired: EventExpired, StateTakenOver: EventTakenOver}[state]
	p := leasePayload(l, 0)
	delete(p, "capacity")
	p["holder_presence"] = h.Presence
	actor := by
	if actor == "" {
		actor = l.Agent
	}
	e := s.kernel.Event(typ, actor, p)
	switch state {
	case StateExpired:
		why := "its time ran out"
		if !h.Expired {
			why = "its holder was evicted"
		}
		e.Message = fmt.Sprintf("%s's %s expired (fence %d): %s", l.Agent, l.Name, l.Fence, why)
	case StateTakenOver:
		p["taken_by"] = by
		e.Message = fmt.Sprintf("%s took %s over from %s (%s; its fence %d ended)", by, l.Name, l.Agent, h.Presence, l.Fence)
	default:
		e.Message = fmt.Sprintf("%s released %s (fence %d)", actor, l.Name, l.Fence)
		if actor != l.Agent {
			e.Message = fmt.Sprintf("%s released %s's %s (%s; fence %d)", actor, l.Agent, l.Name, h.Presence, l.Fence)
		}
	}
	if actor != l.Agent {
		e.ToAgent = l.Agent
	}
	e.Payload, _ = json.Marshal(p)
	return l, tx.AppendEvent(ctx, e)
}

// liveHolders returns the active grants f selects with their holders'
// liveness, after ending those that expired or whose holder is evicted
// (lease.expired): what is left still holds.
func (s *Service) liveHolders(ctx context.Context, tx Tx, f HolderFilter, now time.Time, stale int) ([]Holder, error) {
	rows, err := tx.ActiveHolders(ctx, f)
	if err != nil {
		return nil, err
	}
	hs, err := s.withLiveness(ctx, tx, rows, now, stale)
	if err != nil {
		return nil, err
	}
	out := hs[:0]
	for _, h := range hs {
		if h.Expired || h.evicted {
			if _, err := s.endTx(ctx, tx, h, StateExpired, "", now); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// withLiveness judges each grant by its holder's liveness now.
func (s *Service) withLiveness(ctx context.Context, tx hub.Tx, rows []Lease, now time.Time, stale int) ([]Holder, error) {
	out := make([]Holder, 0, len(rows))
	agents := map[string]*hub.Agent{}
	for _, l := range rows {
		a, seen := agents[l.Agent]
		if !seen {
			var err error
			if a, err = tx.GetAgent(ctx, l.Agent); err != nil {
				return nil, err
			}
			agents[l.Agent] = a
		}
		live := hub.HolderLive(a, now, stale)
		expired := l.Expired(now)
		l.Env = EnvName(l.Name)
		h := Holder{Lease: l, Presence: live.Presence, Expired: expired, Takeover: hub.TakeoverAllowed(live.Presence, expired),
			evicted: live.Agent == hub.LiveEvicted}
		if a != nil {
			h.staleAt = a.LastSeen.Add(time.Duration(max(stale, 1)) * time.Minute)
		}
		out = append(out, h)
	}
	return out, nil
}

// liveWaiters returns name's waiters whose wait has not ended, that were
// heard from within waiterSilence and whose process still runs (known on
// its own host only), in arrival order. The silence covers what the pid
// cannot: a waiter on another host, and a pid the system gave to a new
// process after the waiter died.
func (s *Service) liveWaiters(ctx context.Context, tx Tx, name string, now time.Time) ([]Waiter, error) {
	ws, err := tx.LeaseWaiters(ctx, name)
	if err != nil {
		return nil, err
	}
	host := s.machine.Host()
	return slices.DeleteFunc(ws, func(w Waiter) bool {
		return !w.Until.After(now) || now.Sub(w.HeardAt) > waiterSilence || w.Host == host && !s.machine.Alive(w.PID)
	}), nil
}

// nextChange is the earliest time one of holders expires or turns stale
// (zero when none will).
func nextChange(holders []Holder, now time.Time) time.Time {
	var next time.Time
	early := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, h := range holders {
		early(h.ExpiresAt)
		early(h.staleAt)
	}
	return next
}
