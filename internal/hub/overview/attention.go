package overview

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// The kinds of "needs attention" items: what a person watching the team
// should look at, on every surface that shows them (bb top).
const (
	// AttentionHandoff is a HANDOFF its recipient has not accepted.
	AttentionHandoff = "handoff"
	// AttentionBlocked is a BLOCKED message nobody has accepted.
	AttentionBlocked = "blocked"
	// AttentionStuck is an agent whose own status is blocked.
	AttentionStuck = "stuck"
	// AttentionCritical is a critical message of the attention window.
	AttentionCritical = "critical"
	// AttentionIncursion is an edit inside another agent's reservation,
	// recorded within the attention window.
	AttentionIncursion = "incursion"
	// AttentionUnheard is an idle session with items waiting for its
	// agent that nothing delivers before its next turn: its client cannot
	// be woken, or no waiter woke it (hooks.Unheard).
	AttentionUnheard = "unheard"
)

// AttentionWindow is how far back critical messages and incursions count.
const AttentionWindow = 24 * time.Hour

// attentionMax bounds each source of items.
const attentionMax = 100

// AttentionItem is one thing waiting for a person. Fields are in JSON key
// order.
type AttentionItem struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	// Agent raised it: the sender of a message, the blocked agent, the
	// agent that edited.
	Agent string `json:"agent"`
	// To is who it waits on: a message's recipient ("" for a broadcast),
	// the holder of the reservation an incursion entered.
	To      string `json:"to"`
	BeadID  string `json:"bead_id"`
	Subject string `json:"subject"`
	// MessageID is the message's id (HANDOFF, BLOCKED, critical): what an
	// ack or a reply names; "" for the others.
	MessageID string `json:"message_id"`
	// Seq is the message's number, or the event's for an incursion.
	Seq int64 `json:"seq"`
	// WaitingMinutes is how long it has waited.
	WaitingMinutes int `json:"waiting_minutes"`
	// Escalated marks a HANDOFF or BLOCKED that has waited unaccepted
	// for the board's attention.escalate_after minutes or more: Agent
	// waits on To for WaitingMinutes.
	Escalated bool `json:"escalated"`
	// Asked is what the item asks of the one it waits on: a BLOCKED's
	// requested action, a HANDOFF's next action, a blocked agent's
	// blockers; "" when nothing is asked (a critical post, an incursion).
	Asked string `json:"asked"`
	// Urgency is a BLOCKED's urgency (low, medium, high); "" otherwise.
	Urgency string `json:"urgency"`
	// Files are the files concerned, as scopes relative to the work
	// tree: the scopes a BLOCKED's sender was refused because its
	// recipient holds them (what it waits for), the files a HANDOFF's
	// sender or a blocked agent holds for the work item, the scope an
	// incursion edited. Never null.
	Files []string `json:"files"`
	// Task is the task the item is about (a BeadID naming a task, a
	// blocked agent's focus task), by id, handle and title; nil when the
	// work item is no task.
	Task *hub.TaskRef `json:"task,omitempty"`
	// Reassign are the reservations concerned by a HANDOFF or BLOCKED
	// between two agents that a person may hand to the other agent
	// (ChoiceReassign): those whose holder is past the takeover threshold
	// (hub.TakeoverAllowed: stale or offline, or the reservation
	// expired). A BLOCKED's are its recipient's reservations its sender
	// was refused, to its sender; a HANDOFF's its sender's reservations
	// for the work item, to its recipient. Empty otherwise.
	Reassign []Reassignment `json:"reassign,omitempty"`
}

// Reassignment is one reservation a person may hand over
// (oversight.StepIn with its To).
type Reassignment struct {
	// Holder holds the reservation; Scope is it as reserved, relative to
	// the top of the work tree (what StepIn names, with no Wd).
	Holder string `json:"holder"`
	Scope  string `json:"scope"`
	// To is the other agent of the item, who would get it.
	To string `json:"to"`
	// Why it no longer protects its holder: the holder's presence
	// (stale, offline), or "expired".
	Why string `json:"why"`
}

// AskedLine is what the item asks, with its urgency, as a person reads it
// in every view ("Asks: Release src/main.go (urgency high)", "Next: …"
// for a HANDOFF, "Blocked by: …" for a blocked agent, "To do: …" for an
// unheard session), the request passed through fit (a surface's clipping;
// nil: as it is); "" when nothing is asked.
func (it AttentionItem) AskedLine(fit func(string) string) string {
	if it.Asked == "" {
		return ""
	}
	verb := "Asks"
	switch it.Kind {
	case AttentionHandoff:
		verb = "Next"
	case AttentionStuck:
		verb = "Blocked by"
	case AttentionUnheard:
		verb = "To do"
	}
	asked := it.Asked
	if fit != nil {
		asked = fit(asked)
	}
	s := verb + ": " + asked
	if it.Urgency != "" {
		s += " (urgency " + it.Urgency + ")"
	}
	return s
}

// The person's choices on an item (AttentionItem.Choices): the same on
// every surface (the dashboard's buttons, bb top's keys, the notifier's
// payload), each an operation of the core (oversight).
const (
	// ChoiceAccept acknowledges a HANDOFF or BLOCKED that waits on the
	// person (addressed to them or to everyone).
	ChoiceAccept = "accept"
	// ChoiceAnswer replies to who raised the item, on its thread and
	// work item (a DECISION to a BLOCKED); when the item waits on the
	// person it accepts it too: an answered blocker is off the list. To
	// a blocked agent, a message on its task; to a critical post, a reply.
	ChoiceAnswer = "answer"
	// ChoiceNudge reminds the agent the item waits on (an incursion: the
	// agent that edited) of what is asked, by mail from the person.
	ChoiceNudge = "nudge"
	// ChoiceReassign hands the reservations concerned by an item between
	// two agents (AttentionItem.Reassign) to the other agent; offered
	// only once their holder is past the takeover threshold
	// (hub.TakeoverAllowed), as oversight.StepIn allows.
	ChoiceReassign = "reassign"
	// ChoiceStepIn answers an item between two agents in the place of
	// the one it waits on: the answer goes to who raised it and the item
	// is accepted for its recipient, recorded as the person's doing.
	ChoiceStepIn = "step_in"
)

// ChoiceLabel is a choice as a person reads it ("step in").
func ChoiceLabel(c string) string { return strings.ReplaceAll(c, "_", " ") }

// Choices are what person may do about the item: accept and answer what
// waits on them; nudge or step in on a HANDOFF or BLOCKED between two
// agents (their ack is not the person's to give), and reassign the
// reservations concerned once their holder is past the takeover
// threshold (AttentionItem.Reassign); nudge the recipient of
// their own request; answer a blocked agent or a critical message; nudge
// the agent of an incursion.
func (it AttentionItem) Choices(person string) []string {
	switch it.Kind {
	case AttentionHandoff, AttentionBlocked:
		switch {
		case it.To == "" || it.To == person:
			return []string{ChoiceAccept, ChoiceAnswer}
		case it.Agent == person:
			return []string{ChoiceNudge}
		}
		if len(it.Reassign) > 0 {
			return []string{ChoiceNudge, ChoiceReassign, ChoiceStepIn}
		}
		return []string{ChoiceNudge, ChoiceStepIn}
	case AttentionStuck, AttentionCritical:
		if it.Agent == person {
			return []string{}
		}
		return []string{ChoiceAnswer}
	case AttentionIncursion:
		if it.Agent == person {
			return []string{}
		}
		return []string{ChoiceNudge}
	}
	// An unheard session waits for someone to type into it: a nudge
	// would be one more item unheard.
	return []string{}
}

// WaitsOn is the agent a nudge reminds: the recipient of a HANDOFF or
// BLOCKED, the agent of an incursion (who edited) or of a blocked status;
// "" for a broadcast.
func (it AttentionItem) WaitsOn() string {
	if it.Kind == AttentionHandoff || it.Kind == AttentionBlocked {
		return it.To
	}
	return it.Agent
}

// ID names the item for as long as it waits, the same on every read: a
// message's kind and id, an incursion's event, a blocked agent's name and
// the moment it became blocked (At: hub.Agent.StatusSince), which an
// update that leaves it blocked does not move; blocked again after
// something else, it is a new item. An unheard session's agent and the
// moment its turn ended (At: hub.HookSession.IdleSince): more mail in the
// same idle stretch is the same item.
func (it AttentionItem) ID() string {
	switch {
	case it.MessageID != "":
		return it.Kind + ":" + it.MessageID
	case it.Kind == AttentionIncursion:
		return it.Kind + ":" + strconv.FormatInt(it.Seq, 10)
	}
	return it.Kind + ":" + it.Agent + ":" + it.At.UTC().Format(time.RFC3339Nano)
}

// Attention is every item waiting for a person, newest first.
type Attention struct {
	Now          time.Time       `json:"now"`
	Items        []AttentionItem `json:"items"`
	LastEventSeq int64           `json:"last_event_seq"`
	// EscalateAfter is the board's attention.escalate_after, in minutes.
	EscalateAfter int `json:"escalate_after"`
	// NextEscalation is when the next waiting HANDOFF or BLOCKED will be
	// escalated if nobody accepts it, or an idle session's mail listed as
	// unheard (its client could be woken, yet nothing woke it), zero when
	// none will, so a watcher can wake then instead of polling.
	NextEscalation time.Time `json:"next_escalation"`
}

// AttentionFilter narrows the list to what concerns one work item or one
// agent (the dashboard's conversation of a bead, a task or an agent); its
// zero value is the whole board.
type AttentionFilter struct {
	// BeadID keeps the items about this work item (a bead or a task id):
	// a message's bead, an incursion's, a blocked agent's focus task.
	BeadID string `json:"bead_id,omitempty"`
	// Agent keeps the items this agent raised (AttentionItem.Agent) or
	// that wait on it (AttentionItem.To).
	Agent string `json:"agent,omitempty"`
	// Limit keeps the newest Limit items (0: all of them).
	Limit int `json:"limit,omitempty"`
}

func (f AttentionFilter) keeps(it AttentionItem) bool {
	return (f.BeadID == "" || it.BeadID == f.BeadID) && (f.Agent == "" || it.Agent == f.Agent || it.To == f.Agent)
}

// Attention gathers what needs a person, of the whole board or of what f
// keeps: unaccepted HANDOFF and BLOCKED messages (escalated once they
// waited attention.escalate_after minutes), agents whose status is
// blocked, the critical messages and incursions of the last
// AttentionWindow, and the sessions idle within it with items waiting
// unheard (hooks.Unheard: at once when the client cannot be woken). A HANDOFF or BLOCKED is listed while nobody accepted
// it, whatever its priority: once accepted it waits on nobody, critical or
// not. It is the one rule of "needs attention": every surface (the
// dashboard's panel and conversations, bb top, the notifiers) reads it
// here. It reads only.
func (s *Service) Attention(ctx context.Context, f AttentionFilter) (Attention, error) {
	now := s.kernel.Now()
	out := Attention{Now: now}
	err := s.read(ctx, func(tx Tx) error {
		g := &gathering{s: s, tx: tx, f: f, now: now, since: now.Add(-AttentionWindow), out: &out}
		for _, step := range []func(context.Context) error{g.asks, g.stuck, g.critical, g.incursions, g.unheard} {
			if err := step(ctx); err != nil {
				return err
			}
		}
		slices.SortStableFunc(out.Items, func(a, b AttentionItem) int { return b.At.Compare(a.At) })
		if f.Limit > 0 && len(out.Items) > f.Limit {
			out.Items = out.Items[:f.Limit]
		}
		if err := s.concerned(ctx, tx, out.Items, g.since); err != nil {
			return err
		}
		var err error
		out.LastEventSeq, err = tx.LastEventSeq(ctx)
		return err
	})
	if err != nil {
		return Attention{}, err
	}
	return out, nil
}

// gathering is one Attention read: each step adds the items of one kind
// that the filter keeps.
type gathering struct {
	s          *Service
	tx         Tx
	f          AttentionFilter
	now, since time.Time
	out        *Attention
}

func (g *gathering) add(it AttentionItem) bool {
	if !g.f.keeps(it) {
		return false
	}
	g.out.Items = append(g.out.Items, it)
	return true
}

// soonest makes due the next escalation when it comes before the one
// known.
func (g *gathering) soonest(due time.Time) {
	if g.out.NextEscalation.IsZero() || due.Before(g.out.NextEscalation) {
		g.out.NextEscalation = due
	}
}

// asks adds the unaccepted HANDOFF and BLOCKED messages, escalated once
// they waited the board's escalate_after.
func (g *gathering) asks(ctx context.Context) error {
	stored, err := g.tx.ListConfig(ctx)
	if err != nil {
		return err
	}
	g.out.EscalateAfter = hub.EscalateAfter(g.s.kernel.ConfigEntries(stored))
	unacked, err := g.tx.UnackedRequired(ctx, hub.MailFilter{BeadID: g.f.BeadID, Limit: attentionMax})
	if err != nil {
		return err
	}
	for _, m := range unacked {
		kind := ""
		switch m.Category {
		case hub.CategoryHandoff:
			kind = AttentionHandoff
		case hub.CategoryBlocked:
			kind = AttentionBlocked
		default:
			continue
		}
		it := messageItem(kind, m, g.now)
		it.Escalated = hub.Escalated(&m, g.out.EscalateAfter, g.now)
		if !g.add(it) || it.Escalated {
			continue
		}
		g.soonest(hub.EscalationDue(&m, g.out.EscalateAfter))
	}
	return nil
}

// stuck adds the agents whose status is blocked. An identity known only
// from mail has no status of its own (offline), so it is never blocked.
func (g *gathering) stuck(ctx context.Context) error {
	agents, err := g.tx.ListAgents(ctx)
	if err != nil {
		return err
	}
	for _, a := range agents {
		if a.Status != "blocked" {
			continue
		}
		subject := a.CurrentTask
		if a.Blockers != nil && *a.Blockers != "" {
			subject = *a.Blockers
		}
		// Blocked since its status became "blocked": one stretch is one
		// item (one id) however often the agent restates it.
		since := cmp.Or(a.StatusSince, a.UpdatedAt)
		it := AttentionItem{Kind: AttentionStuck, At: since, Agent: a.ID, Subject: subject,
			BeadID: a.FocusTaskID, WaitingMinutes: minutesSince(g.now, since), Files: []string{}}
		if a.Blockers != nil {
			it.Asked = *a.Blockers
		}
		g.add(it)
	}
	return nil
}

// critical adds the critical messages of the window that ask no ack: one
// that does is listed by asks while nobody accepted it, and accepted it
// waits on nobody.
func (g *gathering) critical(ctx context.Context) error {
	crit, err := g.tx.ListMessages(ctx, hub.MessageFilter{Since: g.since, Priorities: []hub.Priority{hub.PriorityCritical}, Limit: attentionMax})
	if err != nil {
		return err
	}
	for _, m := range crit {
		if !m.RequiresAck {
			g.add(messageItem(AttentionCritical, m, g.now))
		}
	}
	return nil
}

// incursions adds the edits inside another's reservation of the window.
func (g *gathering) incursions(ctx context.Context) error {
	evs, err := g.tx.ListEvents(ctx, hub.EventFilter{Types: []string{hub.EventIncursion}, BeadID: g.f.BeadID, Limit: attentionMax, Desc: true})
	if err != nil {
		return err
	}
	for _, e := range evs {
		if e.CreatedAt.Before(g.since) {
			break
		}
		files := []string{}
		if e.Scope != "" {
			files = append(files, e.Scope)
		}
		g.add(AttentionItem{Kind: AttentionIncursion, At: e.CreatedAt, Agent: e.Agent, To: e.ToAgent,
			BeadID: e.BeadID, Subject: cmp.Or(e.Message, e.Scope), Seq: e.Seq, WaitingMinutes: minutesSince(g.now, e.CreatedAt), Files: files})
	}
	return nil
}

// unheard adds the idle sessions with items waiting unheard: about an
// agent, not a work item, so none when the filter keeps one work item.
func (g *gathering) unheard(ctx context.Context) error {
	unheard, due, err := g.s.hooks.Unheard(ctx, g.tx, g.since)
	if err != nil || g.f.BeadID != "" {
		return err
	}
	if !due.IsZero() {
		g.soonest(due)
	}
	for _, u := range unheard {
		g.add(unheardItem(u, g.now))
	}
	return nil
}

// concernedMax bounds the files named per item.
const concernedMax = 5

// concerned fills each item's Task and Files: what it is about, so that a
// person sees what is asked without guessing (a BLOCKED that says "Need
// src/main.go" names the file its sender was refused); and, on a HANDOFF
// or BLOCKED between two agents, the reservations concerned a person may
// reassign (Reassign).
func (s *Service) concerned(ctx context.Context, tx Tx, items []AttentionItem, since time.Time) error {
	c := concern{s: s, tx: tx, since: since, tasks: map[string]*hub.TaskRef{},
		pr: &pastThreshold{s: s, tx: tx, now: s.kernel.Now(), live: map[string]hub.Presence{}}}
	for i := range items {
		it := &items[i]
		if err := c.task(ctx, it); err != nil {
			return err
		}
		var err error
		switch it.Kind {
		case AttentionBlocked:
			err = c.blocked(ctx, it)
		case AttentionHandoff, AttentionStuck:
			err = c.handedOver(ctx, it)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// concern is one pass of concerned over the items: the tasks read so far
// and the threshold's presence reads, shared by the items.
type concern struct {
	s     *Service
	tx    Tx
	since time.Time
	tasks map[string]*hub.TaskRef
	pr    *pastThreshold
}

// task names the task an item is about, when its bead is one (each task
// read once).
func (c *concern) task(ctx context.Context, it *AttentionItem) error {
	id := it.BeadID
	if !strings.HasPrefix(id, "task_") {
		return nil
	}
	ref, seen := c.tasks[id]
	if !seen {
		t, err := c.tx.GetTask(ctx, id)
		if err != nil {
			return err
		}
		if t != nil {
			r := hub.RefOf(*t)
			ref = &r
		}
		c.tasks[id] = ref
	}
	it.Task = ref
	return nil
}

// between reports whether an item is between two agents.
func between(it *AttentionItem) bool { return it.To != "" && it.To != it.Agent }

// blocked names the scopes a BLOCKED's sender was refused since it began
// waiting's window, held by the one it waits on, and, between two agents,
// those of the recipient's reservations a person may reassign to the
// sender.
func (c *concern) blocked(ctx context.Context, it *AttentionItem) error {
	evs, err := c.tx.ListEvents(ctx, hub.EventFilter{Types: []string{hub.EventReservationConflict}, Agent: it.Agent, Limit: 20, Desc: true})
	if err != nil {
		return err
	}
	var held []string // the recipient's reservations refused
	for _, e := range evs {
		if e.CreatedAt.Before(c.since) {
			break
		}
		if e.Agent != it.Agent || (it.To != "" && e.ToAgent != it.To) || e.Scope == "" {
			continue
		}
		if !slices.Contains(it.Files, e.Scope) && len(it.Files) < concernedMax {
			it.Files = append(it.Files, e.Scope)
		}
		var p hub.IncursionPayload
		if json.Unmarshal(e.Payload, &p) == nil && p.ReservationID != "" && !slices.Contains(held, p.ReservationID) {
			held = append(held, p.ReservationID)
		}
	}
	if !between(it) || len(held) == 0 {
		return nil
	}
	rs, err := c.tx.ListReservations(ctx, hub.ReservationFilter{AgentID: it.To, States: []string{hub.ResActive}, Limit: attentionMax})
	if err != nil {
		return err
	}
	rs = slices.DeleteFunc(rs, func(r hub.Reservation) bool { return !slices.Contains(held, r.ID) })
	it.Reassign, err = c.pr.reassignable(ctx, it.To, it.Agent, rs)
	return err
}

// handedOver names the files a HANDOFF's (or a stuck item's) sender holds
// for the bead, and, for a HANDOFF between two agents, those a person may
// reassign to the recipient.
func (c *concern) handedOver(ctx context.Context, it *AttentionItem) error {
	rs, err := c.tx.ListReservations(ctx, hub.ReservationFilter{AgentID: it.Agent, BeadID: it.BeadID, States: []string{hub.ResActive}, Limit: concernedMax})
	if err != nil {
		return err
	}
	for _, r := range rs {
		it.Files = append(it.Files, c.s.kernel.DisplayScope(r))
	}
	if it.Kind == AttentionHandoff && between(it) {
		it.Reassign, err = c.pr.reassignable(ctx, it.Agent, it.To, rs)
	}
	return err
}

// pastThreshold decides which reservations a person may reassign: those
// past the takeover threshold (hub.TakeoverAllowed), the one rule
// oversight.StepIn applies. It reads each holder's presence once.
type pastThreshold struct {
	s     *Service
	tx    Tx
	now   time.Time
	stale int
	live  map[string]hub.Presence
}

// reassignable are those of holder's reservations rs a person may hand
// to the agent to: each expired, or all when holder is stale or offline.
func (p *pastThreshold) reassignable(ctx context.Context, holder, to string, rs []hub.Reservation) ([]Reassignment, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	pres, known := p.live[holder]
	if !known {
		if p.stale == 0 {
			stale, err := p.s.kernel.StaleMinutes()
			if err != nil {
				return nil, err
			}
			p.stale = stale
		}
		a, err := p.tx.GetAgent(ctx, holder)
		if err != nil {
			return nil, err
		}
		pres = hub.HolderLive(a, p.now, p.stale).Presence
		p.live[holder] = pres
	}
	var out []Reassignment
	for _, r := range rs {
		expired := r.Expired(p.now)
		if !hub.TakeoverAllowed(pres, expired) {
			continue
		}
		why := string(pres)
		if expired {
			why = "expired"
		}
		out = append(out, Reassignment{Holder: holder, Scope: p.s.kernel.DisplayScope(r), To: to, Why: why})
	}
	return out, nil
}

// read runs fn in one consistent read of the board.
func (s *Service) read(ctx context.Context, fn func(tx Tx) error) error {
	_, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (struct{}, error) { return struct{}{}, fn(tx) })
	return err
}

func messageItem(kind string, m hub.Message, now time.Time) AttentionItem {
	subject := m.Subject
	if subject == "" {
		subject = m.Body
	}
	to := m.To
	if m.IsBroadcast() {
		to = ""
	}
	it := AttentionItem{Kind: kind, At: m.CreatedAt, Agent: m.From, To: to, BeadID: m.BeadID, Subject: subject,
		MessageID: m.UUID, Seq: m.Seq, WaitingMinutes: minutesSince(now, m.CreatedAt), Files: []string{}}
	if in := m.Intent; in != nil {
		it.Asked = cmp.Or(in.RequestedAction, in.NextAction)
		it.Urgency = in.Urgency
	}
	return it
}

// unheardItem is an idle session with items waiting unheard, in the
// person's words: "idle with 2 unread for bob (Gemini CLI cannot be
// woken)".
func unheardItem(u hooks.UnheardSession, now time.Time) AttentionItem {
	why := u.Client.Title + " cannot be woken"
	if u.Client.Wakes {
		why = u.Client.Title + " was not woken: no waiter runs for this session"
	}
	return AttentionItem{Kind: AttentionUnheard, At: u.IdleSince, Agent: u.Agent,
		Subject:        fmt.Sprintf("idle with %d unread for %s (%s)", u.Items, u.Agent, why),
		Asked:          "type into " + u.Agent + "'s " + u.Client.Title + " session so it reads its mail",
		WaitingMinutes: minutesSince(now, u.Oldest), Files: []string{}}
}

func minutesSince(now, t time.Time) int {
	if d := now.Sub(t); d > 0 {
		return int(d / time.Minute)
	}
	return 0
}

// Handle names the item briefly for a person to type, the same for as
// long as it waits: a message's short id (hub.ShortID), an incursion's
// "incursion:<seq>", a blocked or unheard agent's "stuck:<agent>" or
// "unheard:<agent>".
func (it AttentionItem) Handle() string {
	switch {
	case it.MessageID != "":
		return hub.ShortID(it.MessageID)
	case it.Kind == AttentionIncursion:
		return it.Kind + ":" + strconv.FormatInt(it.Seq, 10)
	}
	return it.Kind + ":" + it.Agent
}

// minPrefix is the shortest prefix of a message's id that names an item.
const minPrefix = 4

// FindItem is the item of items that ref names: its Handle or ID, or a
// prefix of its message's id of minPrefix characters or more that no
// other item's shares. None is NOT_FOUND (it may have been accepted
// meanwhile); a prefix of several is INVALID_ARGS naming them.
func FindItem(items []AttentionItem, ref string) (AttentionItem, error) {
	ref = strings.TrimSpace(ref)
	var found []AttentionItem
	for _, it := range items {
		switch {
		case ref == "":
		case it.Handle() == ref || it.ID() == ref || (it.MessageID != "" && it.MessageID == ref):
			return it, nil
		case it.MessageID != "" && len(ref) >= minPrefix && strings.HasPrefix(it.MessageID, ref):
			found = append(found, it)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		why := "nothing waiting for a person is named %q: it was accepted or answered meanwhile, or the name is mistyped"
		if ref != "" && len(ref) < minPrefix && !strings.Contains(ref, ":") {
			why = "nothing waiting for a person is named %q: a message's handle has " + strconv.Itoa(minPrefix) + " characters or more"
		}
		return AttentionItem{}, hub.FieldErr(hub.CodeNotFound, "item", why, ref)
	}
	var names []string
	for _, it := range found {
		names = append(names, it.Handle())
	}
	return AttentionItem{}, hub.FieldErr(hub.CodeInvalidArgs, "item", "%q names %d items (%s): type more of the handle", ref, len(found), strings.Join(names, ", "))
}
