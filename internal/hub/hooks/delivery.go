package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/voice"
)

// Delivery limits: what one hook injects stays short (tokens are the
// agent's budget).
const (
	deliverLimit      = 20
	briefAgentsLimit  = 10
	briefHoldsLimit   = 15
	briefSubjectChars = 120
)

// Delivery is what a hook injects into an agent's context. Text is empty
// when there is nothing new: the hook then prints nothing at all.
type Delivery struct {
	AgentID string   `json:"agent_id"`
	Text    hub.Text `json:"text"`
	// Delivered lists the message ids recorded as delivered by this call.
	Delivered []string `json:"delivered"`
	// From says, for each delivered message in Text's order, who sent it
	// and whose words it is (Text words it with voice).
	From []Sender `json:"from,omitempty"`
	// Escalations are the agent's own HANDOFF and BLOCKED messages that
	// escalated unaccepted since its last delivery (escalation.go), each
	// told once; the hook surface words them after Text.
	Escalations []Escalation `json:"escalations,omitempty"`
}

// Sender is who sent one delivered message and whose words it is.
type Sender struct {
	MessageID string      `json:"message_id"`
	Agent     string      `json:"agent"`
	Speaker   hub.Speaker `json:"speaker"`
}

// sendersOf lists who sent ms.
func sendersOf(ms []hub.Message) []Sender {
	out := make([]Sender, 0, len(ms))
	for _, m := range ms {
		out = append(out, Sender{MessageID: m.UUID, Agent: m.From, Speaker: hub.SpeakerOrAgent(m.SpokenBy)})
	}
	return out
}

// SessionBrief is the session-start delivery: who the agent is, who else
// is active and on what, its unread direct mail (handoffs and blockers
// first, with their next/requested action and urgency), acks it owes,
// the reservations held in the project and its focus task. The mail it
// shows (and any urgent broadcast) is recorded as delivered.
func (s *Service) SessionBrief(ctx context.Context, in BriefInput) (Delivery, error) {
	agent := in.Agent
	if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
		return Delivery{}, err
	}
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return Delivery{}, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return Delivery{}, err
	}
	return hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) (Delivery, error) {
		now := s.kernel.Now()
		me, err := tx.GetAgent(ctx, agent)
		if err != nil {
			return Delivery{}, err
		}
		if me == nil {
			return Delivery{}, hub.AgentNotFound("agent", agent)
		}
		var b hub.Text
		s.briefIdentity(&b, me, in.Adopted)
		if err := s.briefOthers(ctx, tx, &b, me, now, stale); err != nil {
			return Delivery{}, err
		}
		if err := s.briefHolds(ctx, tx, &b, me, now); err != nil {
			return Delivery{}, err
		}
		briefFocus(ctx, tx, &b, me)
		unread, err := s.briefMail(ctx, tx, &b, me)
		if err != nil {
			return Delivery{}, err
		}
		set, err := s.hookSettingsTx(ctx, tx)
		if err != nil {
			return Delivery{}, err
		}
		es, err := s.escalationsDue(ctx, tx, agent, set.EscalateAfter, now)
		if err != nil {
			return Delivery{}, err
		}
		if err := markEscalationsTold(ctx, tx, agent, es, now); err != nil {
			return Delivery{}, err
		}
		d := Delivery{AgentID: agent, Text: b, Delivered: hub.MessageIDs(unread), From: sendersOf(unread), Escalations: es}
		if len(unread) > 0 {
			if err := s.recordDelivery(ctx, tx, agent, ViaSessionStart, unread); err != nil {
				return Delivery{}, err
			}
		}
		return d, tx.MarkDelivered(ctx, agent, d.Delivered, now, string(ViaSessionStart))
	})
}

// BriefInput names the agent whose session starts and, when the session
// took over an earlier session's identity (SessionResult.Adopted), the
// evidence it was resumed on.
type BriefInput struct {
	Agent string `json:"agent"`
	// Adopted is the adoption's evidence ("" when none): the brief says,
	// after its first line, that this session resumed that work.
	Adopted string `json:"adopted,omitempty"`
}

// IdentityLine is the first line of what a session is told: who the
// agent is, on which board (its root, with forward slashes).
func IdentityLine(agent, slashRoot string) string {
	return fmt.Sprintf("[Blackboard] You are agent %s on this project's board (%s).\n", agent, slashRoot)
}

// briefIdentity is the brief's first lines: who the agent is, and where
// (and, after an adoption, whose work this session resumed).
func (s *Service) briefIdentity(b *hub.Text, me *hub.Agent, adopted string) {
	agent := me.ID
	b.Add(IdentityLine(agent, s.kernel.SlashRoot()))
	if adopted != "" {
		fmt.Fprintf(b, "This session resumed %s's work: %s.\n", agent, adopted)
	}
	b.Add("Use this id for every board action: ", hub.Do(ActActAs, "agent", agent), ".\n")
	if w := me.Where.Describe(); w != "" {
		fmt.Fprintf(b, "You work %s; the board is shared by every work tree and clone of this repository, and file scopes are relative to the top of your work tree.\n", w)
	}
}

// briefOthers says who else is active, and on what.
func (s *Service) briefOthers(ctx context.Context, tx Tx, b *hub.Text, me *hub.Agent, now time.Time, stale int) error {
	agents, err := tx.ListAgents(ctx)
	if err != nil {
		return err
	}
	work, err := s.kernel.WorkOf(ctx, tx, agents, now)
	if err != nil {
		return err
	}
	var others []string
	for _, a := range agents {
		if a.ID == me.ID || hub.LiveOf(a.LastSeen, now, stale).Agent != hub.LiveActive || a.ID == "human" {
			continue
		}
		others = append(others, peerLine(a, work[a.ID]))
		if len(others) == briefAgentsLimit {
			break
		}
	}
	if len(others) == 0 {
		b.WriteString("No other agent is active.\n")
	} else {
		fmt.Fprintf(b, "Also active: %s.\n", strings.Join(others, "; "))
	}
	return nil
}

// peerLine is one active agent in the brief: its id, branch and what the
// board shows it doing. What agents wrote themselves (a task's title, a
// status) is quoted (voice.Inline): the line is the board's.
func peerLine(a hub.Agent, w *hub.Work) string {
	line := voice.Name(a.ID)
	if a.Where.Branch != "" {
		line += " (branch " + voice.Name(a.Where.Branch) + ")"
	}
	switch {
	case w != nil && w.Task != nil:
		line += ": task " + voice.Name(w.Task.Handle) + " " + voice.Inline(w.Task.Title, 80)
		if n := len(w.Reservations); n > 0 {
			rs := make([]string, 0, 3)
			for _, r := range w.Reservations[:min(n, 3)] {
				rs = append(rs, voice.Name(r))
			}
			line += fmt.Sprintf(", reserves %s", strings.Join(rs, ", "))
		}
	case a.CurrentTask != "":
		line += ": working on " + voice.Inline(a.CurrentTask, 80)
	case a.Status != "" && a.Status != "idle":
		line += ": status " + voice.Inline(a.Status, 40)
	}
	return line
}

// briefHolds lists the reservations held in the project.
func (s *Service) briefHolds(ctx context.Context, tx Tx, b *hub.Text, me *hub.Agent, now time.Time) error {
	holds, err := tx.ListReservations(ctx, hub.ReservationFilter{States: []string{hub.ResActive}, Limit: briefHoldsLimit + 1})
	if err != nil {
		return err
	}
	var hl []string
	for i, r := range holds {
		if i == briefHoldsLimit || !now.Before(r.ExpiresAt) {
			continue
		}
		owner := r.AgentID
		if owner == me.ID {
			owner = "you"
		}
		hl = append(hl, fmt.Sprintf("%s (%s, expires %s, bead %s)", voice.Name(s.kernel.DisplayScope(r)), voice.Name(owner), hub.WhenText(now, r.ExpiresAt), voice.Name(r.BeadID)))
	}
	if len(hl) > 0 {
		fmt.Fprintf(b, "Reserved files: %s. Edits to files another active agent holds are refused; ask the holder.\n", strings.Join(hl, "; "))
	}
	return nil
}

// briefFocus names the agent's focus task, or its tasks in progress (a
// failed read leaves the line out).
func briefFocus(ctx context.Context, tx Tx, b *hub.Text, me *hub.Agent) {
	agent := me.ID
	if me.FocusTaskID != "" {
		if t, err := tx.GetTask(ctx, me.FocusTaskID); err == nil && t != nil {
			fmt.Fprintf(b, "Your focus task: %s %s (%s, id %s); when done: ", hub.TaskHandle(t.ID), voice.Inline(t.Title, 100), t.Status, t.ID)
			b.Add(hub.Do(ActCompleteTask, "agent", agent, "task", hub.TaskHandle(t.ID)), ".\n")
		}
	} else if ids, err := tx.InProgressTasksOwnedBy(ctx, agent, 3); err == nil && len(ids) > 0 {
		fmt.Fprintf(b, "Your in-progress tasks: %s.\n", strings.Join(ids, ", "))
	}
}

// briefMail writes the agent's unread mail (handoffs and blockers first)
// and the acks it owes, and returns the mail shown.
func (s *Service) briefMail(ctx context.Context, tx Tx, b *hub.Text, me *hub.Agent) ([]hub.Message, error) {
	agent := me.ID
	cursor, err := tx.ReadCursor(ctx, agent)
	if err != nil {
		return nil, err
	}
	entries, err := tx.Inbox(ctx, hub.InboxFilter{Agent: agent, Limit: hub.DefaultInboxLimit, Cursor: cursor})
	if err != nil {
		return nil, err
	}
	var unread []hub.Message
	var owed []hub.Text
	for _, e := range entries {
		st := hub.StateOf(&e.Message, e.Receipt, cursor)
		fresh := !e.IsBroadcast() || (hub.UrgentBroadcast(&e.Message) && !e.CreatedAt.Before(me.CreatedAt.Add(-time.Second)))
		if st == hub.StateUnread && fresh {
			unread = append(unread, e.Message)
		} else if st == hub.StateRead && e.RequiresAck {
			owed = append(owed, hub.TextOf(hub.CategoryOr(&e.Message)+" from "+e.From+" (ack: ", hub.Do(ActAck, "agent", agent, "message", e.UUID), ")"))
		}
	}
	sortDeliveries(unread)
	if len(unread) > deliverLimit {
		unread = unread[:deliverLimit]
	}
	if len(unread) == 0 {
		b.WriteString("No unread mail for you.\n")
	} else {
		fmt.Fprintf(b, "Unread mail for you (%d). %s\n", len(unread), voice.Legend)
		if err := s.writeMail(ctx, tx, b, agent, unread); err != nil {
			return nil, err
		}
	}
	if len(owed) > 0 {
		b.Add("Acks you owe: ", hub.JoinText(owed, "; "), ".\n")
	}
	return unread, nil
}

// DeliverNew returns what reached the agent since its last delivery: mail
// addressed to it and urgent broadcasts it has not read, each delivered
// once (recorded per recipient), and the escalations of what the agent
// sent that fell due since (Escalations), each marked told by this call:
// a surface words both, or the escalation is lost. Nothing new and
// nothing due, or delivery turned off (hooks.delivery off) → empty Text,
// no Escalations, nothing written.
func (s *Service) DeliverNew(ctx context.Context, agent string) (Delivery, error) {
	return s.deliverNew(ctx, agent, "")
}

func (s *Service) deliverNew(ctx context.Context, agent string, via DeliveryVia) (Delivery, error) {
	if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
		return Delivery{}, err
	}
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return Delivery{}, err
	}
	// The common case (nothing new) is one read transaction.
	p, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (pending, error) { return s.pendingDelivery(ctx, tx, agent) })
	if err != nil || p.empty() {
		return Delivery{AgentID: agent, Delivered: []string{}}, err
	}
	return s.deliver(ctx, agent, via, nil)
}

// SessionDelivery is a hook event's session and what was delivered to it.
type SessionDelivery struct {
	Session  SessionResult
	Delivery Delivery
}

// DeliverToSession is ResolveSession then DeliverNew, the work of a hook
// event during a turn (prompt, tool result): in the common case — a
// session already mapped and seen lately, nothing new — one read
// transaction instead of two.
func (s *Service) DeliverToSession(ctx context.Context, in SessionInput) (SessionDelivery, error) {
	if err := validateSessionInput(in); err != nil {
		return SessionDelivery{}, err
	}
	if err := bindSession(ctx, &in); err != nil {
		return SessionDelivery{}, err
	}
	now := s.kernel.Now()
	type fast struct {
		res     SessionResult
		known   bool
		pending pending
	}
	f, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (fast, error) {
		hs, err := in.freshSession(ctx, tx, now)
		if err != nil || hs == nil {
			return fast{}, err
		}
		p, err := s.pendingDelivery(ctx, tx, hs.AgentID)
		return fast{res: SessionResult{AgentID: hs.AgentID, Reminded: hs.Reminded}, known: true, pending: p}, err
	})
	if err != nil {
		return SessionDelivery{}, err
	}
	if f.known && f.pending.empty() {
		return SessionDelivery{Session: f.res, Delivery: Delivery{AgentID: f.res.AgentID, Delivered: []string{}}}, nil
	}
	if f.known { // something is new: record it under the write lock
		d, err := s.deliver(ctx, f.res.AgentID, in.Via, nil)
		return SessionDelivery{Session: f.res, Delivery: d}, err
	}
	res, err := s.ResolveSession(ctx, in)
	if err != nil {
		return SessionDelivery{}, err
	}
	d, err := s.deliverNew(ctx, res.AgentID, in.Via)
	return SessionDelivery{Session: res, Delivery: d}, err
}

// pending is what a hook would deliver to an agent now: its new mail and
// the escalations of what it sent.
type pending struct {
	mail        []hub.Message
	escalations []Escalation
}

func (p pending) empty() bool { return len(p.mail) == 0 && len(p.escalations) == 0 }

// selected keeps the mail keep selects, and no escalation.
func (p pending) selected(keep func(hub.Message) bool) pending {
	var out pending
	for _, m := range p.mail {
		if keep(m) {
			out.mail = append(out.mail, m)
		}
	}
	return out
}

// pendingDelivery lists what a hook would deliver to agent now (nothing
// when the board's delivery is off or the agent is unknown).
func (s *Service) pendingDelivery(ctx context.Context, tx Tx, agent string) (pending, error) {
	set, err := s.hookSettingsTx(ctx, tx)
	if err != nil || !set.Delivery {
		return pending{}, err
	}
	a, err := tx.GetAgent(ctx, agent)
	if err != nil || a == nil {
		return pending{}, err
	}
	es, err := s.escalationsDue(ctx, tx, agent, set.EscalateAfter, s.kernel.Now())
	if err != nil {
		return pending{}, err
	}
	// Broadcasts up to the read cursor were seen in bb log; up to the
	// delivery cursor, delivered by an earlier hook (or never due).
	cursor, err := tx.ReadCursor(ctx, agent)
	if err != nil {
		return pending{}, err
	}
	delivered, err := tx.DeliveryCursor(ctx, agent)
	if err != nil {
		return pending{}, err
	}
	ms, err := tx.Undelivered(ctx, agent, max(cursor, delivered), a.CreatedAt.Add(-time.Second), deliverLimit)
	return pending{mail: ms, escalations: es}, err
}

// deliver renders and records, under the write lock, what is pending for
// agent, as reached via. only, when set, keeps the mail it selects and
// leaves the rest (and the escalations) for a later delivery: a wait for
// a reply delivers the reply alone.
func (s *Service) deliver(ctx context.Context, agent string, via DeliveryVia, only func(hub.Message) bool) (Delivery, error) {
	return hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) (Delivery, error) {
		p, err := s.pendingDelivery(ctx, tx, agent) // again, under the write lock: never twice
		if err == nil && only != nil {
			p = p.selected(only)
		}
		if err != nil || p.empty() {
			return Delivery{AgentID: agent, Delivered: []string{}}, err
		}
		ms := p.mail
		d := Delivery{AgentID: agent, Delivered: hub.MessageIDs(ms), Escalations: p.escalations}
		if err := markEscalationsTold(ctx, tx, agent, p.escalations, s.kernel.Now()); err != nil {
			return Delivery{}, err
		}
		if len(ms) == 0 {
			return d, nil
		}
		sortDeliveries(ms)
		var b hub.Text
		fmt.Fprintf(&b, "[Blackboard] New for %s (%d). %s\n", agent, len(ms), voice.Legend)
		if err := s.writeMail(ctx, tx, &b, agent, ms); err != nil {
			return Delivery{}, err
		}
		d.Text, d.From = b, sendersOf(ms)
		if err := tx.MarkDelivered(ctx, agent, d.Delivered, s.kernel.Now(), string(via)); err != nil {
			return Delivery{}, err
		}
		if err := s.recordDelivery(ctx, tx, agent, via, ms); err != nil {
			return Delivery{}, err
		}
		// Undelivered returns the due broadcasts oldest first, so those
		// delivered now are every one due up to the newest of them: the
		// next hook starts after it, however long the agent goes without
		// bb log.
		var last int64
		for _, m := range ms {
			if m.IsBroadcast() {
				last = max(last, m.Seq)
			}
		}
		if last > 0 && only == nil {
			return d, tx.RaiseDeliveryCursor(ctx, agent, last)
		}
		return d, nil
	})
}

// sortDeliveries puts the most pressing mail first: critical, then high,
// then the rest; within one priority handoffs and blockers first, then
// oldest first.
func sortDeliveries(ms []hub.Message) {
	rank := func(m *hub.Message) int {
		r := 2 * (hub.PriorityCritical.Level() - max(m.Priority.Level(), 0))
		if m.Category != hub.CategoryHandoff && m.Category != hub.CategoryBlocked {
			r++
		}
		return r
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ri, rj := rank(&ms[i]), rank(&ms[j]); ri != rj {
			return ri < rj
		}
		return ms[i].Seq < ms[j].Seq
	})
}

// writeMail renders messages for an agent's context, one short block
// each: who wrote it and whose words they are, the words fenced as that
// speaker's (voice), the intent of a handoff or blocker among them (the
// sender's words, never the board's instruction), then the board's own
// command that answers.
func (s *Service) writeMail(ctx context.Context, tx Tx, b *hub.Text, agent string, ms []hub.Message) error {
	for _, m := range ms {
		it, err := s.mailItem(ctx, tx, agent, &m)
		if err != nil {
			return err
		}
		voice.WriteItem(b, it)
	}
	return nil
}

// mailItem is the delivery item of m for agent.
func (s *Service) mailItem(ctx context.Context, tx Tx, agent string, m *hub.Message) (voice.Item, error) {
	kind := hub.CategoryOr(m)
	if m.IsBroadcast() {
		kind = "broadcast " + kind
	}
	it := voice.Item{Kind: kind, From: m.From, Speaker: m.SpokenBy, Subject: m.Subject, Body: strings.TrimSpace(m.Body)}
	if m.BeadID != "" {
		it.Tags = append(it.Tags, "bead "+voice.Name(m.BeadID))
	}
	if m.Priority == hub.PriorityHigh || m.Priority == hub.PriorityCritical {
		it.Tags = append(it.Tags, "priority "+string(m.Priority))
	}
	next, urgency, err := s.intentOf(ctx, tx, m)
	if err != nil {
		return voice.Item{}, err
	}
	if urgency != "" {
		it.Tags = append(it.Tags, "urgency "+voice.Name(urgency))
	}
	switch m.Category {
	case hub.CategoryHandoff:
		it.Asks = append(it.Asks, voice.Ask{Label: "the next action it proposes", Text: next})
	case hub.CategoryBlocked:
		it.Asks = append(it.Asks, voice.Ask{Label: "the action it requests", Text: next})
	}
	if m.RequiresAck {
		it.Steps = append(it.Steps, hub.TextOf("Acknowledge: ", hub.Do(ActAck, "agent", agent, "message", m.UUID)))
	} else if !m.IsBroadcast() {
		it.Steps = append(it.Steps, hub.TextOf("Reply: ", hub.Do(ActReply, "agent", agent, "message", hub.ShortID(m.UUID))))
	}
	return it, nil
}

// intentOf is the next action (HANDOFF) or requested action and urgency
// (BLOCKED) of m: its stored intent, or for a message stored without one
// (written before intents were stored, or by another program) the
// protocol event that travelled with it.
func (s *Service) intentOf(ctx context.Context, tx Tx, m *hub.Message) (string, string, error) {
	if m.Category != hub.CategoryHandoff && m.Category != hub.CategoryBlocked {
		return "", "", nil
	}
	if in := m.Intent; in != nil {
		if m.Category == hub.CategoryHandoff {
			return in.NextAction, "", nil
		}
		return in.RequestedAction, in.Urgency, nil
	}
	evs, err := tx.ListEvents(ctx, hub.EventFilter{Types: []string{hub.EventHandoff, hub.EventBlocked}, Agent: m.From, BeadID: m.BeadID, Limit: 50, Desc: true})
	if err != nil {
		return "", "", err
	}
	for _, e := range evs {
		var env struct {
			Payload struct {
				MessageID       string `json:"message_id"`
				NextAction      string `json:"next_action"`
				RequestedAction string `json:"requested_action"`
				Urgency         string `json:"urgency"`
			} `json:"payload"`
		}
		if json.Unmarshal(e.Payload, &env) != nil || env.Payload.MessageID != m.UUID {
			continue
		}
		if env.Payload.NextAction != "" {
			return env.Payload.NextAction, "", nil
		}
		return env.Payload.RequestedAction, env.Payload.Urgency, nil
	}
	return "", "", nil
}

// DeliveryReceipt is when one message reached its recipient's context.
type DeliveryReceipt struct {
	MessageID   string    `json:"message_id"`
	DeliveredAt time.Time `json:"delivered_at"`
	// Via is how it got there (a DeliveryVia; hook when the board did
	// not record which); DeliveredWords says it.
	Via string `json:"via"`
}

// DeliveryTarget is the delivery receipts of agent's mail in the
// authority table (a person may see them; another agent may not).
func DeliveryTarget(agent string) hub.Target {
	return hub.Target{Thing: hub.ThingDelivery, Verb: hub.VerbRead, Owner: agent, Name: "the delivery receipts"}
}

// DeliveredTo returns, for those of the messages that reached agent's
// context, when and how (messages never delivered are absent).
func (s *Service) DeliveredTo(ctx context.Context, agent string, messageIDs []string) ([]DeliveryReceipt, error) {
	if _, err := hub.Authorize(ctx, DeliveryTarget(agent)); err != nil {
		return nil, err
	}
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return nil, err
	}
	m, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (map[string]hub.DeliveryMark, error) { return tx.DeliveredVia(ctx, agent, messageIDs) })
	if err != nil {
		return nil, err
	}
	out := []DeliveryReceipt{}
	for _, id := range messageIDs {
		if d, ok := m[id]; ok {
			out = append(out, DeliveryReceipt{MessageID: id, DeliveredAt: d.At, Via: viaName(DeliveryVia(d.Via))})
		}
	}
	return out, nil
}
