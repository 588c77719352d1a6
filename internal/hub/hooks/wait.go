package hooks

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Between turns. A hook delivers only while a turn runs; an idle session
// hears the team through a waiter (the client's own wake: Claude Code's
// asyncRewake hook, OpenCode's plugin), and an agent that needs an answer
// waits for it instead of polling (bb agent wait, MCP bb_wait, HTTP).
// Both are Wait: it blocks on the board's own commit signal (the feed of
// hub.Follow: the SQLite watcher, PostgreSQL LISTEN/NOTIFY), so a waiter
// reads nothing while nothing happens, and it delivers what it returns
// exactly as a hook does (under the write lock, recorded once, with how
// it arrived), so the next hook never repeats it and two waiters never
// deliver one item twice.

// DeliveryVia is how an item reached an agent's context.
type DeliveryVia string

// The ways an item reaches an agent.
const (
	ViaSessionStart DeliveryVia = "session_start" // the session's brief
	ViaPrompt       DeliveryVia = "prompt"        // before the person's prompt
	ViaTool         DeliveryVia = "tool"          // around a tool call
	ViaWake         DeliveryVia = "wake"          // an idle session woken
	ViaWait         DeliveryVia = "wait"          // a wait the agent asked for
)

// EventMailDelivered records what reached an agent's context, how and
// when (the timeline's "who heard what").
const EventMailDelivered = hub.EventMailDelivered

// EventSessionWaiting records that a session's waiter is armed: the
// session is idle and will be woken by what arrives. A newer waiter of
// the same session supersedes the older one (one waiter per session).
const EventSessionWaiting = hub.EventSessionWaiting

// EventSessionUnheard records that a session whose client cannot be woken
// ended its turn with items waiting for its agent.
const EventSessionUnheard = hub.EventSessionUnheard

// Limits of a wait.
const (
	// MaxWait caps one wait: a client's waiter waits again after it.
	MaxWait = time.Hour
	// waitRecheck bounds how long a wait on a time-bound condition (a
	// reservation that expires, a holder that turns stale) goes without
	// looking again. A wait for mail has no such timer: only a commit or
	// an escalation falling due wakes it.
	waitRecheck = time.Minute
)

// WaitInput is what to wait for.
type WaitInput struct {
	// Agent is who waits ("" with Session: the session's agent).
	Agent string
	// Session, when set, is the client session an idle-session waiter
	// serves: it is resolved to its agent, and the wait ends (Superseded)
	// when a newer waiter of the same session is armed.
	Session *SessionInput
	// At most one condition; none = any new item for the agent.
	// ForReply is a message id (or unique handle) the agent sent: a reply
	// to it, or its ack, ends the wait.
	ForReply string
	// ForScope is a path (relative to Wd): the wait ends when the agent
	// may reserve it (no active holder blocks it).
	ForScope string
	Wd       string
	// ForTask is a task id or handle: the wait ends when every task it
	// depends on is completed.
	ForTask string
	// Timeout is how long to wait, in (0, MaxWait].
	Timeout time.Duration
	// Via is how the items returned reached the agent (ViaWait, ViaWake).
	Via DeliveryVia
}

// WaitProgress is told to a waiter's progress callback while it waits.
type WaitProgress struct {
	Elapsed time.Duration
	Timeout time.Duration
}

// WaitResult is how a wait ended.
type WaitResult struct {
	AgentID string `json:"agent_id"`
	// Condition is reply, scope, task, or "" (any item).
	Condition string `json:"condition"`
	// Met is true when the condition holds (or, without one, items came).
	Met bool `json:"met"`
	// TimedOut is true when the time ran out first.
	TimedOut bool `json:"timed_out"`
	// Superseded is true when a newer waiter of the same session took
	// over (an idle-session waiter only).
	Superseded bool `json:"superseded,omitempty"`
	// Delivery holds the items, recorded delivered once.
	Delivery Delivery `json:"delivery"`
	// AckedAt is when the message waited on was acknowledged (reply).
	AckedAt *time.Time `json:"acked_at,omitempty"`
	// Scope is the scope waited on, canonical (scope).
	Scope string `json:"scope,omitempty"`
	// Task is the task waited on (task).
	Task *hub.Task `json:"task,omitempty"`
	// Waited is how long the wait lasted.
	Waited time.Duration `json:"waited_ns"`
}

// waitPlan is a validated wait.
type waitPlan struct {
	agent     string
	condition string
	replyTo   *hub.Message
	scope     hub.Scope
	task      string
	session   string // the session's key ("" without one)
	token     string // this waiter's id (with a session)
}

// Wait blocks until something arrives for the agent (or the condition
// holds), the timeout passes, or ctx ends; see WaitInput. progress, when
// set, is called about every few seconds while nothing has happened (MCP
// sends it as progress notifications).
func (s *Service) Wait(ctx context.Context, in WaitInput, progress func(WaitProgress)) (WaitResult, error) {
	started := time.Now()
	p, err := s.planWait(ctx, &in)
	if err != nil {
		return WaitResult{}, err
	}
	res := WaitResult{AgentID: p.agent, Condition: p.condition, Delivery: Delivery{AgentID: p.agent, Delivered: []string{}}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	feed, err := s.followFor(ctx, p)
	if err != nil {
		return WaitResult{}, err
	}
	if p.session != "" {
		if err := s.armWaiter(ctx, in.Session, p); err != nil {
			return WaitResult{}, err
		}
	}
	deadline := started.Add(in.Timeout)
	var tick <-chan time.Time
	onTick := func() {}
	if progress != nil {
		t := time.NewTicker(ProgressEvery(in.Timeout))
		defer t.Stop()
		tick = t.C
		onTick = func() { progress(WaitProgress{Elapsed: time.Since(started), Timeout: in.Timeout}) }
	}
	woken := false
	for {
		next, done, err := s.checkWait(ctx, p, in.Via, woken, &res)
		if err != nil || done {
			res.Met = done && err == nil
			res.Waited = time.Since(started)
			return res, err
		}
		until := deadline
		if !next.IsZero() && next.Before(until) {
			until = next
		}
		if woken, err = feed.sleep(ctx, until, tick, onTick); err != nil {
			if err == errSuperseded {
				res.Superseded, res.Waited = true, time.Since(started)
				return res, nil
			}
			return WaitResult{}, err
		}
		if !time.Now().Before(deadline) {
			// One last look: what committed at the deadline counts.
			if _, done, err := s.checkWait(ctx, p, in.Via, false, &res); err != nil || done {
				res.Met = done && err == nil
				res.Waited = time.Since(started)
				return res, err
			}
			res.TimedOut, res.Waited = true, time.Since(started)
			return res, nil
		}
	}
}

// waitFeed is what a waiter hears of the timeline: a wake for each event
// relevant to its plan, the close of superseded when a newer waiter of its
// session arms, and the end of the feed.
type waitFeed struct {
	wake       chan struct{}
	superseded chan struct{}
	ended      chan error
}

// followFor follows the timeline for p from now and returns once the
// feed runs, so that nothing committed after the first check is missed.
func (s *Service) followFor(ctx context.Context, p waitPlan) (*waitFeed, error) {
	f := &waitFeed{wake: make(chan struct{}, 1), superseded: make(chan struct{}), ended: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		f.ended <- s.kernel.Follow(ctx, hub.FollowInput{Started: func(int64) error { close(ready); return nil }}, func(e hub.Event) error {
			if p.session != "" && e.Type == EventSessionWaiting {
				if key, token := waitingSession(e); key != p.session || token == p.token {
					return nil
				}
				close(f.superseded)
				return errSuperseded
			}
			if p.relevant(e) {
				select {
				case f.wake <- struct{}{}:
				default:
				}
			}
			return nil
		})
	}()
	select {
	case <-ready:
		return f, nil
	case err := <-f.ended:
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
}

// sleep waits until until, a wake (woken) or the end of the wait: an
// error, errSuperseded when a newer waiter took over. onTick runs on every
// tick meanwhile.
func (f *waitFeed) sleep(ctx context.Context, until time.Time, tick <-chan time.Time, onTick func()) (woken bool, err error) {
	timer := time.NewTimer(time.Until(until))
	defer timer.Stop()
	for {
		select {
		case <-f.wake:
			return true, nil
		case <-timer.C:
			return false, nil
		case <-f.superseded:
			return false, errSuperseded
		case err := <-f.ended:
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			if err == nil {
				err = hub.Errorf(hub.CodeInternal, "the board's change feed ended")
			}
			return false, err
		case <-ctx.Done():
			return false, ctx.Err()
		case <-tick:
			onTick()
		}
	}
}

var errSuperseded = hub.Errorf(hub.CodeConflict, "superseded by a newer waiter of this session")

// ProgressEvery is how often a waiter's progress is told: a tenth of its
// timeout, between 1 s and 10 s.
func ProgressEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/10, time.Second), 10*time.Second)
}

// planWait validates in and resolves what it names: nothing is written.
func (s *Service) planWait(ctx context.Context, in *WaitInput) (waitPlan, error) {
	if in.Timeout <= 0 {
		return waitPlan{}, hub.FieldErr(hub.CodeInvalidInput, "timeout", "{field} must be more than 0 (at most %s)", hub.DurationText(MaxWait))
	}
	if in.Timeout > MaxWait {
		return waitPlan{}, hub.FieldErr(hub.CodeInvalidInput, "timeout", "{field} %s is more than the limit of %s: wait again after it", hub.DurationText(in.Timeout), hub.DurationText(MaxWait))
	}
	n := 0
	for _, c := range []string{in.ForReply, in.ForScope, in.ForTask} {
		if c != "" {
			n++
		}
	}
	if n > 1 {
		return waitPlan{}, hub.FieldErr(hub.CodeInvalidInput, "condition", "wait for one thing at a time: a reply, a scope or a task")
	}
	switch in.Via {
	case "":
		in.Via = ViaWait
	case ViaWait, ViaWake:
	default:
		return waitPlan{}, hub.FieldErr(hub.CodeInvalidInput, "via", "{field} must be wait or wake, not %q", string(in.Via))
	}
	var p waitPlan
	if in.Session != nil {
		if err := validateSessionInput(*in.Session); err != nil {
			return waitPlan{}, err
		}
		sess := *in.Session
		sess.Idle = true // a waiter runs between turns only
		in.Session = &sess
		res, err := s.ResolveSession(ctx, sess)
		if err != nil {
			return waitPlan{}, err
		}
		in.Agent = res.AgentID
		p.session = in.Session.Client + "\x00" + in.Session.key()
		var b [8]byte
		_, _ = rand.Read(b[:])
		p.token = "waiter-" + hex.EncodeToString(b[:])
	}
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return waitPlan{}, err
	}
	if err := hub.ValidateStoredAgentID(in.Agent); err != nil {
		return waitPlan{}, err
	}
	p.agent = in.Agent
	_, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (struct{}, error) {
		if _, err := hub.RequireAgent(ctx, tx, in.Agent, hub.CodeAgentNotFound, "agent"); err != nil {
			return struct{}{}, err
		}
		switch {
		case in.ForReply != "":
			p.condition = "reply"
			id, err := hub.ResolveID(ctx, tx, "messages", "message", in.ForReply)
			if err != nil {
				return struct{}{}, err
			}
			m, err := tx.MessageByUUID(ctx, id)
			if err != nil {
				return struct{}{}, err
			}
			if m == nil || m.From != in.Agent {
				return struct{}{}, hub.FieldErr(hub.CodeMessageNotFound, "message", "message %q is not one %s sent: wait for a reply to your own message", in.ForReply, in.Agent)
			}
			p.replyTo = m
		case in.ForTask != "":
			p.condition = "task"
			t, err := hub.MustTask(ctx, tx, in.ForTask)
			if err != nil {
				return struct{}{}, err
			}
			p.task = t.ID
		}
		return struct{}{}, nil
	})
	if err != nil {
		return waitPlan{}, err
	}
	if in.ForScope != "" {
		p.condition = "scope"
		sc, err := s.kernel.ScopeOf(in.Wd, in.ForScope)
		if err != nil {
			return waitPlan{}, err
		}
		p.scope = sc
	}
	return p, nil
}

// relevant says whether event e may change what p waits for: only such
// events make it look again.
func (p waitPlan) relevant(e hub.Event) bool {
	switch p.condition {
	case "scope":
		return strings.HasPrefix(e.Type, "reservation.") || e.Type == hub.EventAgentCleared || e.Type == hub.EventBoardCleared
	case "task":
		// Every task event (task_status, task_closed, task_dependency_removed,
		// task_deleted, …) may change whether the task is ready.
		return strings.HasPrefix(e.Type, "task")
	}
	if e.Agent == p.agent && e.Type != hub.EventMailAcked {
		return false // its own doing
	}
	switch e.Type {
	case hub.EventMessagePosted, hub.EventMailSent, hub.EventHandoff, hub.EventBlocked, hub.EventMailAcked:
		return e.ToAgent == "" || e.ToAgent == p.agent
	case hub.EventBoardCleared, "config.set":
		return true
	}
	return false
}

// checkWait looks once: when the wait is over it fills res and reports
// done; else it returns when to look again at the latest (zero: only on a
// commit).
func (s *Service) checkWait(ctx context.Context, p waitPlan, via DeliveryVia, woken bool, res *WaitResult) (time.Time, bool, error) {
	switch p.condition {
	case "scope":
		stale, err := s.kernel.StaleMinutes()
		if err != nil {
			return time.Time{}, false, err
		}
		d, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (hub.Decision, error) {
			return s.kernel.Decide(ctx, tx, p.agent, p.scope, s.kernel.Now(), stale, nil)
		})
		if err != nil {
			return time.Time{}, false, err
		}
		res.Scope = p.scope.Display(s.kernel.ProjectRoot)
		next, blocked := time.Time{}, false
		for _, o := range d.Others {
			if !o.Blocking {
				continue
			}
			blocked = true
			// Look again when the reservation expires, or within
			// waitRecheck (its holder may turn stale).
			at := time.Now().Add(min(max(o.Reservation.ExpiresAt.Sub(s.kernel.Now()), 0)+time.Second, waitRecheck))
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
		return next, !blocked, nil
	case "task":
		t, ready, err := s.taskReady(ctx, p.task)
		if err != nil {
			return time.Time{}, false, err
		}
		res.Task = &t
		return time.Time{}, ready, nil
	case "reply":
		return s.checkReply(ctx, p, via, res)
	}
	// Any item: what a hook would deliver now. Woken by an event for the
	// agent, the delivery's own write goes first (it reads what is
	// pending in its transaction): the read before it only decides
	// whether to write, and a wake that names the agent almost always
	// brings something (issue 33's latency, a transaction less on
	// PostgreSQL). When it brought nothing, the read below finds the next
	// escalation to wait for.
	if woken {
		if done, err := s.deliverInto(ctx, p, via, res); err != nil || done {
			return time.Time{}, done, err
		}
	}
	var next time.Time
	pend, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (pending, error) {
		pd, err := s.pendingDelivery(ctx, tx, p.agent)
		if err != nil || !pd.empty() {
			return pd, err
		}
		next, err = s.nextEscalation(ctx, tx, p.agent)
		return pd, err
	})
	if err != nil || pend.empty() {
		return next, false, err
	}
	done, err := s.deliverInto(ctx, p, via, res)
	return time.Time{}, done, err
}

// deliverInto delivers what is pending for the waiting agent into res;
// false when there was nothing (another waiter or hook took it first).
func (s *Service) deliverInto(ctx context.Context, p waitPlan, via DeliveryVia, res *WaitResult) (bool, error) {
	d, err := s.deliver(ctx, p.agent, via, nil)
	if err != nil {
		return false, err
	}
	if len(d.Delivered) == 0 && len(d.Escalations) == 0 {
		return false, nil
	}
	res.Delivery = d
	return true, nil
}

// checkReply looks for a reply to the message waited on (delivering it
// alone) or its ack.
func (s *Service) checkReply(ctx context.Context, p waitPlan, via DeliveryVia, res *WaitResult) (time.Time, bool, error) {
	isReply := func(m hub.Message) bool { return m.ReplyTo == p.replyTo.UUID }
	type look struct {
		reply   bool
		ackedAt *time.Time
	}
	l, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (look, error) {
		pd, err := s.pendingDelivery(ctx, tx, p.agent)
		if err != nil {
			return look{}, err
		}
		if len(pd.selected(isReply).mail) > 0 {
			return look{reply: true}, nil
		}
		m, err := tx.MessageByUUID(ctx, p.replyTo.UUID)
		if err != nil || m == nil {
			return look{}, err
		}
		if m.IsBroadcast() {
			return look{}, nil
		}
		r, err := tx.ReceiptOf(ctx, m, m.To)
		return look{ackedAt: r.AckedAt}, err
	})
	if err != nil {
		return time.Time{}, false, err
	}
	if l.reply {
		d, err := s.deliver(ctx, p.agent, via, isReply)
		if err != nil {
			return time.Time{}, false, err
		}
		if len(d.Delivered) > 0 {
			res.Delivery = d
			return time.Time{}, true, nil
		}
	}
	if l.ackedAt != nil {
		res.AckedAt = l.ackedAt
		return time.Time{}, true, nil
	}
	return time.Time{}, false, nil
}

// taskReady reports whether every dependency of the task is completed.
func (s *Service) taskReady(ctx context.Context, id string) (hub.Task, bool, error) {
	type out struct {
		t     hub.Task
		ready bool
	}
	o, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (out, error) {
		t, err := hub.MustTask(ctx, tx, id)
		if err != nil {
			return out{}, err
		}
		for _, dep := range t.DependsOn {
			d, err := tx.GetTask(ctx, dep)
			if err != nil {
				return out{}, err
			}
			if d != nil && d.Status != hub.TaskCompleted {
				return out{t: *t}, nil
			}
		}
		return out{t: *t, ready: true}, nil
	})
	return o.t, o.ready, err
}

// nextEscalation is when the agent's oldest unaccepted HANDOFF or BLOCKED
// not yet told falls due (zero: none), so an idle waiter wakes for it
// without looking in between.
func (s *Service) nextEscalation(ctx context.Context, tx Tx, agent string) (time.Time, error) {
	set, err := s.hookSettingsTx(ctx, tx)
	if err != nil || !set.Delivery || set.EscalateAfter <= 0 {
		return time.Time{}, err
	}
	now := s.kernel.Now()
	ms, err := tx.UnackedSentBy(ctx, agent, now.Add(MaxWait), escalationsLimit)
	if err != nil || len(ms) == 0 {
		return time.Time{}, err
	}
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, escalationNotice(m.UUID))
	}
	told, err := tx.DeliveredAt(ctx, agent, ids)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	for _, m := range ms {
		if _, ok := told[escalationNotice(m.UUID)]; ok {
			continue
		}
		due := m.CreatedAt.Add(time.Duration(set.EscalateAfter) * time.Minute)
		if next.IsZero() || due.Before(next) {
			next = due
		}
	}
	if next.IsZero() {
		return next, nil
	}
	// The board's clock may be fixed (BB_NOW); the timer runs on the
	// machine's: wake after the same span.
	return time.Now().Add(max(next.Sub(now), 0) + time.Second), nil
}

// armWaiter records that the session's waiter is armed: its event ends
// any older waiter of the same session, and tells the person the session
// is idle and listening.
func (s *Service) armWaiter(ctx context.Context, in *SessionInput, p waitPlan) error {
	_, err := hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) (struct{}, error) {
		e := s.kernel.Event(EventSessionWaiting, p.agent, map[string]any{"client": in.Client, "session_id": in.SessionID, "waiter": p.token})
		e.Message = fmt.Sprintf("%s is idle; its %s session wakes when something arrives for it", p.agent, in.Client)
		return struct{}{}, tx.AppendEvent(ctx, e)
	})
	return err
}

// waitingSession is the session key and the waiter a session.waiting
// event names.
func waitingSession(e hub.Event) (key, waiter string) {
	var pl struct {
		Client    string `json:"client"`
		SessionID string `json:"session_id"`
		Waiter    string `json:"waiter"`
	}
	if json.Unmarshal(e.Payload, &pl) != nil {
		return "", ""
	}
	return pl.Client + "\x00" + SessionInput{Client: pl.Client, SessionID: pl.SessionID}.key(), pl.Waiter
}

// recordDelivery appends the timeline's record of what reached agent and
// how.
func (s *Service) recordDelivery(ctx context.Context, tx Tx, agent string, via DeliveryVia, ms []hub.Message) error {
	ids := hub.MessageIDs(ms)
	e := s.kernel.Event(EventMailDelivered, agent, map[string]any{"via": viaName(via), "message_ids": ids})
	e.Message = DeliveredWords(agent, string(via)) + ": " + itemsWords(ms)
	return tx.AppendEvent(ctx, e)
}

func viaName(v DeliveryVia) string { return hub.DeliveryMark{Via: string(v)}.How() }

// viaWords says how an item arrived, for the timeline's line.
func viaWords(v DeliveryVia) string {
	switch v {
	case ViaSessionStart:
		return "the session's brief"
	case ViaPrompt:
		return "the prompt hook"
	case ViaTool:
		return "a tool call's hook"
	case ViaWake:
		return "a wake of its idle session"
	case ViaWait:
		return "a wait it asked for"
	}
	return "a hook"
}

// DeliveredWords says how an item reached agent's context, the same on
// every surface that shows it (the timeline, the dashboard's receipts):
// "delivered to bob by a wake". via is a DeliveryVia ("" or hook: a hook
// that did not say which).
func DeliveredWords(agent, via string) string {
	return "delivered to " + agent + " by " + viaWords(DeliveryVia(via))
}

// itemsNamed bounds the items a delivery's timeline line names.
const itemsNamed = 3

// itemsWords names delivered items: `BLOCKED "need src/a.go" from
// carol`, the first few, then how many more.
func itemsWords(ms []hub.Message) string {
	var parts []string
	for i, m := range ms {
		if i == itemsNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(ms)-i))
			break
		}
		what := m.Category
		if what == "" {
			what = "post"
		}
		parts = append(parts, fmt.Sprintf("%s %q from %s", what, hub.Preview(cmp.Or(m.Subject, m.Body), 60), m.From))
	}
	return strings.Join(parts, "; ")
}
