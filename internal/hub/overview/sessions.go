package overview

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// The Sessions read model (seed 001 §6.3, §8): what the dashboard shows.
// It lives in the core so every surface that shows sessions (the web
// dashboard, the JSON API) groups and labels them the same way.

// Feed groups, in display order.
const (
	GroupNeedsInput = "Needs input"
	GroupActive     = "Active"
	GroupStale      = "Stale"
	GroupIdle       = "Idle"
	GroupDone       = "Done"
)

// FeedGroups lists the groups in display order.
var FeedGroups = []string{GroupNeedsInput, GroupActive, GroupStale, GroupIdle, GroupDone}

// UI labels of seed 001 §6.3.
const (
	LabelHandoff   = "Passed to"
	LabelBlocked   = "Needs input"
	LabelRead      = "Seen"
	LabelAck       = "Accepted"
	LabelIncursion = "Incursion"
	LabelResume    = "Resumed"
)

// FeedCard is one session of the feed: a bead (work item) with its
// conversation, or an agent's own task when it names no bead.
type FeedCard struct {
	// Key selects the conversation: "bead:<id>" or "agent:<id>".
	Key    string
	Title  string
	BeadID string
	// Handle is the short name shown for the work item: a task's handle,
	// else the bead id itself.
	Handle string
	IsTask bool
	// WaitsFor names the unfinished tasks a task depends on ("title
	// (handle)"), what blocks it.
	WaitsFor   []string
	Agent      string   // the agent of an agent card, or the latest actor of a bead
	Agents     []string // everyone who took part
	Status     string
	Presence   hub.Presence // the liveliest participant's
	Progress   int
	Blockers   string
	Group      string
	Unread     int // messages the viewer has not read
	PendingAck int // messages that require an ack nobody gave yet
	LastAt     time.Time
}

// FeedGroup is one heading of the feed.
type FeedGroup struct {
	Name  string
	Cards []FeedCard
}

// Sessions is the dashboard overview for one viewer.
type Sessions struct {
	Now          time.Time
	Viewer       string
	Agents       []hub.AgentView
	Feed         []FeedGroup
	Unread       int
	PendingAck   int
	LastEventSeq int64
	Counts       SessionCounts
	// Tasks is the task board: pending, blocked (with what blocks each),
	// in progress (with its owner) and recently done.
	Tasks []TaskColumn
}

// TaskColumn is one column of the task board.
type TaskColumn struct {
	Name  string
	Cards []TaskCard
}

// TaskCard is a task on the board, named by title and handle.
type TaskCard struct {
	ID, Handle, Title, Status string
	Priority                  int
	Owner                     string
	OwnerPresence             hub.Presence
	// WaitsFor names the unfinished tasks it depends on; Blocked is its
	// blocked reason otherwise.
	WaitsFor []string
	Blocked  string
}

// Task board columns, in display order; doneShown bounds the done column.
const (
	ColumnPending    = "Pending"
	ColumnBlocked    = "Blocked"
	ColumnInProgress = "In progress"
	ColumnDone       = "Done"
	doneShown        = 10
)

// taskBoard lays the tasks (priority first, newest first) out in columns.
func taskBoard(tasks []hub.Task, live map[string]hub.AgentView) []TaskColumn {
	cols := []TaskColumn{{Name: ColumnPending}, {Name: ColumnBlocked}, {Name: ColumnInProgress}, {Name: ColumnDone}}
	byID := map[string]*hub.Task{}
	for i := range tasks {
		byID[tasks[i].ID] = &tasks[i]
	}
	for _, t := range tasks {
		c := TaskCard{ID: t.ID, Handle: hub.TaskHandle(t.ID), Title: t.Title, Status: t.Status, Priority: t.Priority, Owner: t.Owner,
			OwnerPresence: hub.PresOffline}
		if v, ok := live[t.Owner]; ok {
			c.OwnerPresence = v.Presence
		}
		for _, d := range t.DependsOn {
			if dt, ok := byID[d]; !ok {
				c.WaitsFor = append(c.WaitsFor, hub.TaskHandle(d))
			} else if dt.Status != hub.TaskCompleted {
				c.WaitsFor = append(c.WaitsFor, dt.Title+" ("+hub.TaskHandle(d)+")")
			}
		}
		if len(c.WaitsFor) == 0 && t.BlockedReason != "" {
			c.Blocked = t.BlockedReason
		}
		i := 0
		switch t.Status {
		case hub.TaskBlocked:
			i = 1
		case hub.TaskInProgress:
			i = 2
		case hub.TaskCompleted:
			i = 3
			if len(cols[3].Cards) == doneShown {
				continue
			}
		}
		cols[i].Cards = append(cols[i].Cards, c)
	}
	return cols
}

// SessionCounts are the numbers a person watching the team reads at a
// glance (over the dashboard's window of recent messages and events).
type SessionCounts struct {
	// ActiveAgents are agents seen within the active window.
	ActiveAgents int
	// NeedsInput counts sessions waiting on an answer (an open blocker or
	// a blocked status).
	NeedsInput int
	// UnackedHandoffs are HANDOFF messages their recipient has not accepted.
	UnackedHandoffs int
	// IncursionsToday are incursions recorded since midnight (UTC).
	IncursionsToday int
	// OpenTasks are tasks not completed.
	OpenTasks int
}

// TimelineItem is one row of a conversation: a message, or an event shown
// as a first-class row (handoffs, blockers, incursions, resumes, reads,
// acks, status changes, artifacts, reservations).
type TimelineItem struct {
	At    time.Time
	Kind  string // "message" or "event"
	Label string // the seed 001 UI label ("Passed to", "Needs input", "Seen", "Accepted"…)
	// Protocol marks the protocol rows of seed 001 §6 (HANDOFF, BLOCKED,
	// INCURSION, RESUME), rendered prominently.
	Protocol bool
	Actor    string
	Target   string
	Text     string
	Message  *hub.Message
	// Receipt is the viewer's read/ack state of Message (nil for events
	// and for the viewer's own messages).
	Receipt *hub.Receipt
	Event   *hub.Event
}

// sessionWindow bounds how much history the dashboard reads.
const (
	sessionMessages = 400
	sessionEvents   = 400
	timelineMax     = 200
	sessionTasks    = 200
)

// MessageLabel is the UI label of a message: its category's label
// (HANDOFF "Passed to", BLOCKED "Needs input"), else "".
func MessageLabel(m *hub.Message) string {
	switch strings.ToUpper(m.Category) {
	case "HANDOFF":
		return LabelHandoff
	case "BLOCKED":
		return LabelBlocked
	}
	return ""
}

// EventLabel is the UI label of a timeline event and whether it is one of
// the protocol rows of seed 001 §6. Events that only restate a message
// (message posted/sent) return "" and are not shown as rows. The first rule
// of eventLabels that matches decides; a type no rule matches is shown in
// words.
func EventLabel(e *hub.Event) (label string, protocol bool) {
	t := strings.ToUpper(e.Type)
	for _, r := range eventLabels {
		if r.matches(t) {
			return r.label, r.protocol
		}
	}
	return humanWords(e.Type), false
}

// labelRule labels the event types (upper-cased) that start with prefix
// and contain every word of all.
type labelRule struct {
	prefix   string
	all      []string
	label    string
	protocol bool
}

func (r labelRule) matches(t string) bool {
	if !strings.HasPrefix(t, r.prefix) {
		return false
	}
	for _, w := range r.all {
		if !strings.Contains(t, w) {
			return false
		}
	}
	return true
}

// eventLabels are the rules of EventLabel, in order (read only).
var eventLabels = []labelRule{
	{all: []string{"HANDOFF"}, label: LabelHandoff, protocol: true},
	{all: []string{"BLOCKED"}, label: LabelBlocked, protocol: true},
	{all: []string{"INCURSION"}, label: LabelIncursion, protocol: true},
	{all: []string{"RESUME"}, label: LabelResume, protocol: true},
	{all: []string{"ADOPT"}, label: LabelResume, protocol: true},
	{all: []string{"ACK"}, label: LabelAck},
	{all: []string{"READ"}, label: LabelRead},
	// Restatements of a message: no row.
	{prefix: "MESSAGE."},
	{prefix: "MAIL."},
	{all: []string{"MESSAGE_SENT"}},
	{all: []string{"RESERV", "RELEASE"}, label: "Released"},
	{all: []string{"RESERV", "EXPIRE"}, label: "Released"},
	{all: []string{"RESERV", "REASSIGN"}, label: "Reassigned"},
	{all: []string{"RESERV", "RENEW"}, label: "Renewed"},
	{all: []string{"RESERV"}, label: "Reserved"},
	{all: []string{"STATUS_CLEARED"}, label: "Cleared status"},
	// Task events, in a person's words.
	{prefix: "TASK", all: []string{"CREATED"}, label: "New task"},
	{prefix: "TASK", all: []string{"CLOSED"}, label: "Task closed"},
	{prefix: "TASK", all: []string{"ASSIGNED"}, label: "Task taken"},
	{prefix: "TASK", all: []string{"STATUS"}, label: "Task status"},
	{prefix: "TASK", all: []string{"PRIORITY"}, label: "Task priority"},
	{prefix: "TASK", all: []string{"DEPENDENCY"}, label: "Task depends"},
	{prefix: "TASK", all: []string{"DELETED"}, label: "Task deleted"},
	{prefix: "TASK", label: "Task"},
	{all: []string{"STATUS"}, label: "Working on"},
	{prefix: "AGENT", all: []string{"REGISTERED"}, label: "Joined"},
	{all: []string{"FOCUS"}, label: "Focus"},
	{all: []string{"ARTIFACT"}, label: "Artifact"},
	{prefix: "MEMORY", label: "Memory"},
}

// humanWords turns an event type ("agent.updated", "board_cleared") into
// words ("Agent updated").
func humanWords(t string) string {
	w := strings.ToLower(strings.NewReplacer(".", " ", "_", " ").Replace(t))
	if w == "" {
		return ""
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// sessionData is what one read of the store gives the read model.
type sessionData struct {
	agents   []hub.Agent
	msgs     []hub.Message // newest first
	events   []hub.Event   // newest first
	tasks    []hub.Task
	work     map[string]*hub.Work
	receipts map[string]hub.Receipt
	lastSeq  int64
}

func (s *Service) loadSessions(ctx context.Context, viewer string) (sessionData, error) {
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) (sessionData, error) {
		var d sessionData
		var err error
		if d.agents, err = hub.ListAgentsIn(ctx, tx); err != nil {
			return d, err
		}
		if d.msgs, err = tx.ListMessages(ctx, hub.MessageFilter{Limit: sessionMessages}); err != nil {
			return d, err
		}
		if d.events, err = tx.ListEvents(ctx, hub.EventFilter{Limit: sessionEvents, Desc: true}); err != nil {
			return d, err
		}
		if err = hub.NameTasks(ctx, tx, d.events); err != nil {
			return d, err
		}
		// Every priority (Priority -1): the filter's zero value is
		// "priority 0 only".
		if d.tasks, err = tx.ListTasks(ctx, hub.TaskFilter{Priority: -1, Limit: sessionTasks}); err != nil {
			return d, err
		}
		if d.work, err = s.kernel.WorkOf(ctx, tx, d.agents, s.kernel.Now()); err != nil {
			return d, err
		}
		if d.lastSeq, err = tx.LastEventSeq(ctx); err != nil {
			return d, err
		}
		d.receipts = map[string]hub.Receipt{}
		for i := range d.msgs {
			m := &d.msgs[i]
			if !visibleTo(m, viewer) {
				continue
			}
			r, err := tx.ReceiptOf(ctx, m, viewer)
			if err != nil {
				return d, err
			}
			d.receipts[m.UUID] = r
		}
		return d, nil
	})
}

// visibleTo reports whether viewer is a recipient of m (and not its sender).
func visibleTo(m *hub.Message, viewer string) bool {
	return viewer != "" && m.From != viewer && (m.IsBroadcast() || m.To == viewer)
}

// Unread: neither read nor acked (an ack implies the message was seen).
func Unread(r hub.Receipt) bool { return r.ReadAt == nil && r.AckedAt == nil }

// pendingAck reports whether m requires an ack its recipient(s) have not
// given: for a direct message its recipient's, for a broadcast the viewer's.
func pendingAck(m *hub.Message, viewerReceipt *hub.Receipt) bool {
	if !m.RequiresAck {
		return false
	}
	if !m.IsBroadcast() {
		return m.AckedAt == nil
	}
	return viewerReceipt != nil && viewerReceipt.AckedAt == nil
}

// Sessions builds the dashboard overview as seen by viewer (whose unread
// and pending-ack counts are shown). It reads only.
func (s *Service) Sessions(ctx context.Context, viewer string) (Sessions, error) {
	d, err := s.loadSessions(ctx, viewer)
	if err != nil {
		return Sessions{}, err
	}
	now := s.kernel.Now()
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return Sessions{}, err
	}
	out := Sessions{Now: now, Viewer: viewer, LastEventSeq: d.lastSeq}
	f := &feedBuilder{cards: map[string]*FeedCard{}, live: map[string]hub.AgentView{},
		blockedOpen: map[string]bool{}, taskStatus: map[string]string{}}
	for _, a := range d.agents {
		v := hub.ViewAgent(a, hub.LiveOf(a.LastSeen, now, stale))
		v.Work = d.work[a.ID]
		out.Agents = append(out.Agents, v)
		if v.Presence == hub.PresActive {
			out.Counts.ActiveAgents++
		}
		f.live[a.ID] = v
	}
	f.addMessages(d, &out)
	f.addEvents(d.events)
	out.Counts.IncursionsToday = incursionsSince(d.events, now.Truncate(24*time.Hour))
	out.Counts.OpenTasks = f.addTasks(d.tasks)
	out.Tasks = taskBoard(d.tasks, f.live)
	f.addAgents(out.Agents)
	f.classify()
	out.Feed = f.groups()
	for _, g := range out.Feed {
		if g.Name == GroupNeedsInput {
			out.Counts.NeedsInput = len(g.Cards)
		}
	}
	return out, nil
}

// incursionsSince counts the INCURSION events made since t.
func incursionsSince(events []hub.Event, t time.Time) int {
	n := 0
	for i := range events {
		if label, _ := EventLabel(&events[i]); label == LabelIncursion && !events[i].CreatedAt.Before(t) {
			n++
		}
	}
	return n
}

// feedBuilder gathers the dashboard's cards, one per bead (its messages,
// events and task) and one per busy agent, in order of first sight.
type feedBuilder struct {
	cards map[string]*FeedCard
	order []string
	live  map[string]hub.AgentView
	// blockedOpen marks cards with a BLOCKED message still waiting for
	// its ack; taskStatus holds the status of cards that are tasks.
	blockedOpen map[string]bool
	taskStatus  map[string]string
}

func (f *feedBuilder) card(key string) *FeedCard {
	c, ok := f.cards[key]
	if !ok {
		c = &FeedCard{Key: key}
		f.cards[key] = c
		f.order = append(f.order, key)
	}
	return c
}

// join adds the named agents (not the broadcast address) to c.
func join(c *FeedCard, who ...string) {
	for _, w := range who {
		if w != "" && w != hub.Broadcast && !slices.Contains(c.Agents, w) {
			c.Agents = append(c.Agents, w)
		}
	}
}

// addMessages files the messages (newest first) on their bead's card and
// counts the viewer's unread and pending-ack messages and the unacked
// handoffs into out.
func (f *feedBuilder) addMessages(d sessionData, out *Sessions) {
	for i := range d.msgs {
		m := &d.msgs[i]
		var rc *hub.Receipt
		if r, ok := d.receipts[m.UUID]; ok {
			rc = &r
			if Unread(r) {
				out.Unread++
			}
		}
		pend := pendingAck(m, rc)
		if pend {
			out.PendingAck++
		}
		if strings.EqualFold(m.Category, "HANDOFF") && !m.IsBroadcast() && m.AckedAt == nil {
			out.Counts.UnackedHandoffs++
		}
		if m.BeadID == "" {
			continue
		}
		c := f.card("bead:" + m.BeadID)
		c.BeadID = m.BeadID
		join(c, m.From, m.To)
		if c.LastAt.IsZero() { // newest first: the first message seen is the latest
			c.LastAt, c.Agent = m.CreatedAt, m.From
			c.Title = m.Subject
		}
		if c.Title == "" {
			c.Title = m.Subject
		}
		if rc != nil && Unread(*rc) {
			c.Unread++
		}
		if pend {
			c.PendingAck++
			if strings.EqualFold(m.Category, "BLOCKED") {
				f.blockedOpen[c.Key] = true
			}
		}
	}
}

// addEvents files events that name a bead or task on its card.
func (f *feedBuilder) addEvents(events []hub.Event) {
	for i := range events {
		e := &events[i]
		bead := e.BeadID
		if bead == "" {
			bead = e.TaskID
		}
		if bead == "" {
			continue
		}
		c := f.card("bead:" + bead)
		c.BeadID = bead
		join(c, e.Agent, e.ToAgent)
		if e.CreatedAt.After(c.LastAt) {
			c.LastAt, c.Agent = e.CreatedAt, e.Agent
		}
	}
}

// addTasks: tasks are beads too; their title, status and owner lead the
// card. It returns how many are not completed.
func (f *feedBuilder) addTasks(tasks []hub.Task) (open int) {
	byID := map[string]*hub.Task{}
	for i := range tasks {
		byID[tasks[i].ID] = &tasks[i]
	}
	for _, t := range tasks {
		if t.Status != hub.TaskCompleted {
			open++
		}
		c := f.card("bead:" + t.ID)
		c.BeadID, c.Title, c.Status, c.IsTask = t.ID, t.Title, t.Status, true
		for _, d := range t.DependsOn {
			if dt, ok := byID[d]; !ok {
				c.WaitsFor = append(c.WaitsFor, hub.TaskHandle(d))
			} else if dt.Status != hub.TaskCompleted {
				c.WaitsFor = append(c.WaitsFor, dt.Title+" ("+hub.TaskHandle(d)+")")
			}
		}
		f.taskStatus[c.Key] = t.Status
		if t.Owner != "" {
			c.Agent = t.Owner
			join(c, t.Owner)
		}
		if t.BlockedReason != "" {
			c.Blockers = t.BlockedReason
		}
		if t.UpdatedAt.After(c.LastAt) {
			c.LastAt = t.UpdatedAt
		}
	}
	return open
}

// addAgents gives every agent that is busy (not idle without a task) a
// card of its own status.
func (f *feedBuilder) addAgents(agents []hub.AgentView) {
	for _, a := range agents {
		if a.CurrentTask == "" && a.Status == "idle" {
			continue
		}
		if a.Work != nil && a.Work.Task != nil && a.Work.Task.Title == a.CurrentTask {
			continue // its task's card shows it: one card per piece of work
		}
		c := f.card("agent:" + a.ID)
		c.Agent, c.Title = a.ID, a.CurrentTask
		c.Agents = []string{a.ID}
		c.Status, c.Progress, c.LastAt = a.Status, a.Progress, a.UpdatedAt
		if a.Blockers != nil {
			c.Blockers = *a.Blockers
		}
	}
}

// classify sets each card's presence (that of its liveliest participant)
// and its group.
func (f *feedBuilder) classify() {
	for _, key := range f.order {
		c := f.cards[key]
		c.Handle = c.BeadID
		if c.IsTask {
			c.Handle = hub.TaskHandle(c.BeadID)
		}
		if c.Title == "" {
			c.Title = c.Handle
		}
		// A session is as alive as its liveliest participant.
		c.Presence = hub.PresOffline
		for _, id := range c.Agents {
			if v, ok := f.live[id]; ok && slices.Index(hub.Presences, v.Presence) < slices.Index(hub.Presences, c.Presence) {
				c.Presence = v.Presence
			}
		}
		ts, isTask := f.taskStatus[key]
		switch {
		case isTask && ts == hub.TaskBlocked && len(c.WaitsFor) > 0 && !f.blockedOpen[key]:
			c.Group = GroupIdle // waiting for other tasks, not for a person
		case f.blockedOpen[key] || c.Status == "blocked":
			c.Group = GroupNeedsInput
		case isTask && ts == hub.TaskCompleted:
			c.Group = GroupDone
		case isTask && ts == hub.TaskPending:
			c.Group = GroupIdle
		case c.Presence == hub.PresActive && (c.BeadID != "" || (c.Status != "idle" && c.Status != "offline")):
			c.Group = GroupActive
		case c.Presence != hub.PresActive:
			c.Group = GroupStale
		default:
			c.Group = GroupIdle
		}
	}
}

// groups returns the cards by group, most recent first within a group.
func (f *feedBuilder) groups() []FeedGroup {
	var out []FeedGroup
	for _, g := range FeedGroups {
		fg := FeedGroup{Name: g}
		for _, key := range f.order {
			if f.cards[key].Group == g {
				fg.Cards = append(fg.Cards, *f.cards[key])
			}
		}
		slices.SortStableFunc(fg.Cards, func(a, b FeedCard) int { return b.LastAt.Compare(a.LastAt) })
		out = append(out, fg)
	}
	return out
}

// Conversation returns the timeline of one session (key "bead:<id>" or
// "agent:<id>"; "" for the whole board), oldest first: messages and events
// merged, each labelled for the UI, with the viewer's receipts.
func (s *Service) Conversation(ctx context.Context, key, viewer string) ([]TimelineItem, error) {
	kind, id, _ := strings.Cut(key, ":")
	if key != "" && (id == "" || (kind != "bead" && kind != "agent")) {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "session", "invalid session %q: expected bead:<id> or agent:<id>", key)
	}
	d, err := s.loadSessions(ctx, viewer)
	if err != nil {
		return nil, err
	}
	inMsg := func(m *hub.Message) bool {
		switch kind {
		case "bead":
			return m.BeadID == id
		case "agent":
			return m.From == id || m.To == id
		}
		return true
	}
	inEvent := func(e *hub.Event) bool {
		switch kind {
		case "bead":
			return e.BeadID == id || e.TaskID == id
		case "agent":
			return e.Agent == id || e.ToAgent == id
		}
		return true
	}
	var items []TimelineItem
	shown := map[string]bool{}
	for i := range d.msgs {
		m := d.msgs[i]
		if !inMsg(&m) {
			continue
		}
		it := TimelineItem{At: m.CreatedAt, Kind: "message", Label: MessageLabel(&m), Actor: m.From, Target: m.To, Text: m.Body, Message: &m}
		it.Protocol = it.Label != ""
		if r, ok := d.receipts[m.UUID]; ok {
			it.Receipt = &r
		}
		shown[m.UUID] = true
		items = append(items, it)
	}
	for i := range d.events {
		e := d.events[i]
		if !inEvent(&e) {
			continue
		}
		label, proto := EventLabel(&e)
		if label == "" {
			continue
		}
		if (label == LabelHandoff || label == LabelBlocked) && shown[eventMessageID(&e)] {
			continue // the message row already carries the label
		}
		items = append(items, TimelineItem{At: e.CreatedAt, Kind: "event", Label: label, Protocol: proto, Actor: e.Agent, Target: e.ToAgent, Text: e.Message, Event: &e})
	}
	slices.SortStableFunc(items, func(a, b TimelineItem) int { return a.At.Compare(b.At) })
	if len(items) > timelineMax {
		items = items[len(items)-timelineMax:]
	}
	return items, nil
}

// eventMessageID returns the message a HANDOFF/BLOCKED event is about: its
// payload's message_id, at the top level or inside the v1 envelope.
func eventMessageID(e *hub.Event) string {
	var p struct {
		MessageID string `json:"message_id"`
		Payload   struct {
			MessageID string `json:"message_id"`
		} `json:"payload"`
	}
	if json.Unmarshal(e.Payload, &p) != nil {
		return ""
	}
	if p.MessageID != "" {
		return p.MessageID
	}
	return p.Payload.MessageID
}
