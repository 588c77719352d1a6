package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Message categories of seed 000 §6.
const (
	CategoryHandoff  = "HANDOFF"
	CategoryBlocked  = "BLOCKED"
	CategoryDecision = "DECISION"
	CategoryInfo     = "INFO"
)

// Categories lists the bb agent message categories.
var Categories = []string{CategoryHandoff, CategoryBlocked, CategoryDecision, CategoryInfo}

// RequiresAck reports the ack policy of a category (seed 000 §6).
func RequiresAck(category string) bool {
	return category == CategoryHandoff || category == CategoryBlocked
}

// Mail states of one recipient's receipt.
const (
	StateUnread = "unread"
	StateRead   = "read"
	StateAcked  = "acked"
)

// Inbox limits (seed 000 §6.2).
const (
	DefaultInboxLimit = 50
	MaxInboxLimit     = 500
	MaxSubjectLen     = 1024
	MaxBeadIDLen      = 256
	MaxThreadIDLen    = 256
)

// MailItem is a message as one agent sees it: its receipt and state.
type MailItem struct {
	Message
	// Wait is the sender's next step after a BLOCKED it just sent (set by
	// SendMail only): the wait (ActWaitFor) for the scope it was refused or
	// for the answer, which each surface words (WaitLine); nil otherwise.
	Wait *Action `json:",omitempty"`

	State   string
	ReadAt  *time.Time
	AckedAt *time.Time
	// DeliveredAt is when a hook put the message into the recipient's
	// context (nil: not delivered that way), a state before read and ack.
	DeliveredAt *time.Time
	// DeliveredVia is how it got there (DeliveryMark.How: session_start,
	// prompt, tool, wake, wait, hook); "" when not delivered.
	DeliveredVia string
}

// StateOf derives an agent's state of a message: acked is terminal; a
// broadcast at or below the agent's board read cursor counts as read.
func StateOf(m *Message, r Receipt, cursor int64) string {
	switch {
	case r.AckedAt != nil:
		return StateAcked
	case r.ReadAt != nil, m.IsBroadcast() && m.Seq > 0 && m.Seq <= cursor:
		return StateRead
	}
	return StateUnread
}

// SendInput is `bb agent send`.
type SendInput struct {
	From     string
	To       string // agent id or "broadcast"
	BeadID   string
	Category string
	Subject  string
	Body     string
	ThreadID string // default bead:<bead_id>
	// ReplyTo is the id (or a unique handle) of the message this one
	// answers ("" = none); ReplyMail fills it.
	ReplyTo string
	// Priority is the board's word for how pressing a message is: low,
	// normal, high or critical ("" = normal, or the urgency of a BLOCKED
	// message). The recipient sees it on every surface; hooks deliver
	// high and critical mail first.
	Priority string
	// Protocol payload details (seed 001 §6.2); defaults when empty.
	NextAction      string // HANDOFF
	RequestedAction string // BLOCKED
	// Urgency is a BLOCKED message's priority in the protocol's words:
	// low|medium|high ("" = from Priority, else medium).
	Urgency string
}

// Urgency and priority are one scale in two vocabularies: the agent
// protocol's BLOCKED urgency (low, medium, high) and the board's priority
// (low, normal, high, critical). medium is normal; critical is urgency high.
func urgencyOf(p Priority) string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityHigh, PriorityCritical:
		return "high"
	}
	return "medium"
}

func priorityOfUrgency(u string) Priority {
	switch u {
	case "low":
		return PriorityLow
	case "high":
		return PriorityHigh
	}
	return PriorityNormal
}

// mailPriority settles a message's priority and, for BLOCKED, its urgency:
// either given alone decides the other; neither is normal / medium.
func mailPriority(in SendInput) (Priority, string, error) {
	if in.Urgency != "" && !slices.Contains(Urgencies, in.Urgency) {
		return "", "", FieldErr(CodeInvalidArgs, "urgency", "invalid urgency %q: expected low, medium or high", in.Urgency)
	}
	p, err := ParsePriority(in.Priority)
	if err != nil {
		return "", "", err
	}
	urgency := in.Urgency
	switch {
	case in.Category != CategoryBlocked:
		urgency = ""
	case urgency == "":
		urgency = urgencyOf(p)
	case in.Priority == "":
		p = priorityOfUrgency(urgency)
	}
	return p, urgency, nil
}

func ValidateBead(bead string) error {
	if strings.TrimSpace(bead) == "" {
		return FieldErr(CodeMissingBeadID, "bead", "{field} is required: every message and reservation names the bead (task) it is about")
	}
	if len(bead) > MaxBeadIDLen || HasControl(bead) || strings.ContainsAny(bead, " \t") || !utf8.ValidString(bead) {
		return FieldErr(CodeInvalidArgs, "bead", "invalid bead id %q: at most %d bytes of UTF-8 text, no whitespace or control characters", bead, MaxBeadIDLen)
	}
	return nil
}

// CanonicalCategory is the category c names in any case ("info" is
// INFO), as stored; c itself when it names none (refused later).
func CanonicalCategory(c string) string {
	for _, k := range Categories {
		if strings.EqualFold(strings.TrimSpace(c), k) {
			return k
		}
	}
	return c
}

func validateCategory(c string) error {
	if !slices.Contains(Categories, c) {
		return FieldErr(CodeInvalidCategory, "category", "invalid category %q: expected one of HANDOFF, BLOCKED, DECISION, INFO", c)
	}
	return nil
}

// SendMail stores one message (one row, whatever the recipient) and, for
// HANDOFF and BLOCKED, its protocol event.
func (s *Service) SendMail(ctx context.Context, in SendInput) (MailItem, error) {
	if err := Allow(ctx, Act(in.From)); err != nil {
		return MailItem{}, err
	}
	in.Category = CanonicalCategory(in.Category)
	plan, err := checkSend(in)
	if err != nil {
		return MailItem{}, err
	}
	return Write(ctx, s, in, func(tx Tx) (MailItem, error) { return s.sendMailTx(ctx, tx, in, plan) })
}

// sendPlan is what checking a message settles before the store is read.
type sendPlan struct {
	to       string // the recipient as stored (Broadcast for everyone)
	priority Priority
	urgency  string // BLOCKED only
}

// checkSend validates a message without the store, in this order: the
// parties, the bead, the category, the texts, the priority, and that the
// sender is not its own recipient.
func checkSend(in SendInput) (sendPlan, error) {
	if err := ValidateAgentRef("from", in.From); err != nil {
		return sendPlan{}, err
	}
	if in.To != BroadcastName && in.To != Broadcast {
		if err := ValidateAgentRef("to", in.To); err != nil {
			return sendPlan{}, err
		}
	}
	if err := ValidateBead(in.BeadID); err != nil {
		return sendPlan{}, err
	}
	if err := validateCategory(in.Category); err != nil {
		return sendPlan{}, err
	}
	if err := checkSendTexts(in); err != nil {
		return sendPlan{}, err
	}
	priority, urgency, err := mailPriority(in)
	if err != nil {
		return sendPlan{}, err
	}
	for _, f := range []struct{ name, value string }{{"next-action", in.NextAction}, {"requested-action", in.RequestedAction}} {
		if err := CheckLen(f.name, f.value, MaxSubjectLen); err != nil {
			return sendPlan{}, FieldErr(CodeInvalidArgs, f.name, "%s", MessageOf(err))
		}
	}
	to := in.To
	if to == BroadcastName {
		to = Broadcast
	}
	if to == in.From {
		return sendPlan{}, FieldErr(CodeInvalidArgs, "to", "cannot send a message to yourself (%s)", in.From)
	}
	return sendPlan{to: to, priority: priority, urgency: urgency}, nil
}

// checkSendTexts validates a message's subject (one line), body and
// thread.
func checkSendTexts(in SendInput) error {
	if err := TextArg("subject", in.Subject, MaxSubjectLen); err != nil {
		return err
	}
	if strings.ContainsAny(in.Subject, "\r\n") {
		// A subject is one line (inbox lines, notices and hook briefs
		// print it as one); the body holds the rest.
		return FieldErr(CodeInvalidArgs, "subject", "subject must be one line: put line breaks in the body")
	}
	if err := TextArg("body", in.Body, MaxMessageLen); err != nil {
		return err
	}
	if in.ThreadID != "" {
		return TextArg("thread", in.ThreadID, MaxThreadIDLen)
	}
	return nil
}

// sendMailTx stores a checked message and its event: the sender, the bead
// (a task handle becomes its id), the parent and the recipient must exist.
func (s *Service) sendMailTx(ctx context.Context, tx Tx, in SendInput, plan sendPlan) (MailItem, error) {
	if _, err := RequireAgent(ctx, tx, in.From, CodeUnknownSender, "from"); err != nil {
		return MailItem{}, err
	}
	bead, err := WorkItem(ctx, tx, in.BeadID)
	if err != nil {
		return MailItem{}, err
	}
	parent, err := replyParent(ctx, tx, in.ReplyTo)
	if err != nil {
		return MailItem{}, err
	}
	thread := in.ThreadID
	if thread == "" {
		thread = "bead:" + bead
	}
	if plan.to != Broadcast {
		if _, err := RequireAgent(ctx, tx, plan.to, CodeUnknownRecipient, "to"); err != nil {
			return MailItem{}, err
		}
	}
	m := Message{
		UUID: uuid.NewString(), From: in.From, To: plan.to, Subject: in.Subject, Body: in.Body,
		Category: in.Category, ThreadID: thread, BeadID: bead, RequiresAck: RequiresAck(in.Category),
		Priority: plan.priority, CreatedAt: s.Now(), ReplyTo: parent,
	}
	m.Intent = intentOf(&m, in, plan.urgency)
	if err := StoreMessage(ctx, tx, &m); err != nil {
		return MailItem{}, err
	}
	if err := tx.AppendEvent(ctx, s.mailEvent(&m, plan.urgency)); err != nil {
		return MailItem{}, err
	}
	item := MailItem{Message: m, State: StateUnread}
	if m.Category == CategoryBlocked && !m.IsBroadcast() {
		if item.Wait, err = s.blockedWait(ctx, tx, &m); err != nil {
			return MailItem{}, err
		}
	}
	return item, nil
}

// blockedWaitWindow is how far back a BLOCKED's sender's refusals count as
// what it waits for.
const blockedWaitWindow = time.Hour

// blockedWait is the wait a BLOCKED's sender is told to make instead of
// polling: for the scope its recipient holds and refused it lately (the
// newest such refusal), else for the answer to the message.
func (s *Service) blockedWait(ctx context.Context, tx Tx, m *Message) (*Action, error) {
	evs, err := tx.ListEvents(ctx, EventFilter{Types: []string{EventReservationConflict}, Agent: m.From, Limit: 20, Desc: true})
	if err != nil {
		return nil, err
	}
	since := s.Now().Add(-blockedWaitWindow)
	for _, e := range evs {
		if e.CreatedAt.Before(since) {
			break
		}
		if e.Agent == m.From && e.ToAgent == m.To && e.Scope != "" {
			a := WaitForScopeAction(m.From, e.Scope)
			return &a, nil
		}
	}
	a := WaitForReplyAction(m.From, m.UUID)
	return &a, nil
}

// replyParent resolves the message a reply answers (an id or a unique
// handle) to its id; "" when ref is "".
func replyParent(ctx context.Context, tx Tx, ref string) (string, error) {
	if ref == "" {
		return "", nil
	}
	id, err := ResolveID(ctx, tx, "messages", "reply_to", ref)
	if err != nil {
		return "", err
	}
	parent, err := tx.MessageByUUID(ctx, id)
	if err != nil {
		return "", err
	}
	if parent == nil {
		return "", FieldErr(CodeMessageNotFound, "reply_to", "message %q not found", ref)
	}
	return parent.UUID, nil
}

// intentOf is what the recipient of a HANDOFF or BLOCKED message is asked
// to do (nil for the other categories). The intent travels with the
// message (the recipient sees it on every surface) and in the protocol
// event of the timeline; its default words name no surface's command,
// since every surface shows it.
func intentOf(m *Message, in SendInput, urgency string) *Intent {
	switch m.Category {
	case CategoryHandoff:
		next := in.NextAction
		if next == "" {
			next = fmt.Sprintf("Read the handoff (message %s) and acknowledge it", ShortID(m.UUID))
		}
		return &Intent{NextAction: next}
	case CategoryBlocked:
		req := in.RequestedAction
		if req == "" {
			req = fmt.Sprintf("Answer %s on thread %s and acknowledge", m.From, m.ThreadID)
		}
		return &Intent{RequestedAction: req, Urgency: urgency}
	}
	return nil
}

// mailEvent is the timeline event of a stored message: the protocol event
// of a HANDOFF or BLOCKED, mail.sent for the others.
func (s *Service) mailEvent(m *Message, urgency string) *Event {
	shownTo := m.To
	if m.To == Broadcast {
		shownTo = BroadcastName
	}
	summary := fmt.Sprintf("%s → %s %s: %s", m.From, shownTo, m.Category, Preview(m.Subject, 100))
	switch m.Category {
	case CategoryHandoff:
		return s.ProtocolEvent(EventHandoff, m.BeadID, m.From, m.To, "", HandoffPayload{
			Subject: m.Subject, Summary: m.Body, NextAction: m.Intent.NextAction, RequiresAck: true, MessageID: m.UUID, ThreadID: m.ThreadID,
		}, summary)
	case CategoryBlocked:
		return s.ProtocolEvent(EventBlocked, m.BeadID, m.From, m.To, "", BlockedPayload{
			Subject: m.Subject, Blocker: m.Body, RequestedAction: m.Intent.RequestedAction, Urgency: urgency, RequiresAck: true, MessageID: m.UUID, ThreadID: m.ThreadID,
		}, summary)
	}
	e := s.Event(EventMailSent, m.From, map[string]any{
		"message_id": m.UUID, "category": m.Category, "thread_id": m.ThreadID, "subject": m.Subject, "requires_ack": m.RequiresAck,
		"priority": m.Priority,
	})
	e.ToAgent, e.BeadID, e.Message = m.To, m.BeadID, summary
	return e
}

// InboxQuery is `bb agent inbox`.
type InboxQuery struct {
	Agent  string
	State  string
	BeadID string
	Limit  int // 0 = default 50; otherwise 1..500
	// MailOnly leaves out board posts (broadcasts without a bead), which
	// are read on the board (Log), so that mail is not buried under them.
	MailOnly bool
}

// Inbox lists the messages addressed to an agent, newest first.
func (s *Service) Inbox(ctx context.Context, q InboxQuery) ([]MailItem, error) {
	if err := Allow(ctx, Act(q.Agent)); err != nil {
		return nil, err
	}
	if err := ValidateAgentRef("agent", q.Agent); err != nil {
		return nil, err
	}
	if q.State != "" && q.State != StateUnread && q.State != StateRead && q.State != StateAcked {
		return nil, FieldErr(CodeInvalidArgs, "state", "invalid state %q: expected unread, read or acked", q.State)
	}
	if q.Limit == 0 {
		q.Limit = DefaultInboxLimit
	}
	if q.Limit < 1 || q.Limit > MaxInboxLimit {
		return nil, FieldErr(CodeInvalidArgs, "limit", "{field} must be between 1 and %d, got %d", MaxInboxLimit, q.Limit)
	}
	return Read(ctx, s, func(tx Tx) ([]MailItem, error) {
		if _, err := RequireAgent(ctx, tx, q.Agent, CodeAgentNotFound, "agent"); err != nil {
			return nil, err
		}
		q := q
		var err error
		if q.BeadID, err = WorkItem(ctx, tx, q.BeadID); err != nil {
			return nil, err
		}
		cursor, err := tx.ReadCursor(ctx, q.Agent)
		if err != nil {
			return nil, err
		}
		entries, err := tx.Inbox(ctx, InboxFilter{Agent: q.Agent, State: q.State, BeadID: q.BeadID, Limit: q.Limit, Cursor: cursor, MailOnly: q.MailOnly})
		if err != nil {
			return nil, err
		}
		delivered, err := tx.DeliveredVia(ctx, q.Agent, MessageIDs(entryMessages(entries)))
		if err != nil {
			return nil, err
		}
		out := make([]MailItem, 0, len(entries))
		for _, e := range entries {
			it := MailItem{Message: e.Message, State: StateOf(&e.Message, e.Receipt, cursor), ReadAt: e.Receipt.ReadAt, AckedAt: e.Receipt.AckedAt}
			if d, ok := delivered[e.UUID]; ok {
				it.DeliveredAt, it.DeliveredVia = &d.At, d.How()
			}
			out = append(out, it)
		}
		return out, nil
	})
}

// mailFor loads a message addressed to agent; a message that does not
// exist, or is not addressed to agent, is MESSAGE_NOT_FOUND unless
// forbidden is set, which then becomes the code for "exists, not yours".
func (s *Service) mailFor(ctx context.Context, tx Tx, agent, id string, forbidden Code) (*Message, error) {
	if _, err := RequireAgent(ctx, tx, agent, CodeAgentNotFound, "agent"); err != nil {
		return nil, err
	}
	id, err := ResolveID(ctx, tx, "messages", "message", id)
	if err != nil {
		return nil, err
	}
	m, err := tx.MessageByUUID(ctx, id)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, FieldErr(CodeMessageNotFound, "message", "message %q not found", id)
	}
	if (m.IsBroadcast() && m.From != agent) || (!m.IsBroadcast() && m.To == agent) {
		return m, nil
	}
	if forbidden != "" {
		return nil, FieldErr(forbidden, "agent", "only a recipient may acknowledge message %s (%s is not one)", id, agent)
	}
	return nil, FieldErr(CodeMessageNotFound, "message", "message %q is not in %s's inbox", id, agent)
}

func (s *Service) itemOf(ctx context.Context, tx Tx, m *Message, agent string) (MailItem, error) {
	r, err := tx.ReceiptOf(ctx, m, agent)
	if err != nil {
		return MailItem{}, err
	}
	cursor, err := tx.ReadCursor(ctx, agent)
	if err != nil {
		return MailItem{}, err
	}
	return MailItem{Message: *m, State: StateOf(m, r, cursor), ReadAt: r.ReadAt, AckedAt: r.AckedAt}, nil
}

func validateMessageID(id string) error {
	if strings.TrimSpace(id) == "" {
		return FieldErr(CodeInvalidArgs, "message", "{field} cannot be empty")
	}
	if len(id) > 128 || HasControl(id) {
		return FieldErr(CodeMessageNotFound, "message", "message %q not found", id)
	}
	return nil
}

// ReadMail marks a message read for agent (unread → read; acked stays acked).
func (s *Service) ReadMail(ctx context.Context, agent, id string) (MailItem, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return MailItem{}, err
	}
	o, err := Authorize(ctx, Target{Thing: ThingMail, Verb: VerbRead, Owner: agent, Name: "the mail"})
	if err != nil {
		return MailItem{}, err
	}
	if err := ValidateAgentRef("agent", agent); err != nil {
		return MailItem{}, err
	}
	if err := validateMessageID(id); err != nil {
		return MailItem{}, err
	}
	return Write(ctx, s, []string{agent, id}, func(tx Tx) (MailItem, error) {
		if err := s.OverrideEventTx(ctx, tx, o, agent); err != nil {
			return MailItem{}, err
		}
		return s.readMailTx(ctx, tx, agent, id)
	})
}

// ReadMailMany marks several of agent's messages read in one transaction
// (what a surface showing a page of mail with "mark read" does); each is
// read as by ReadMail, in the order given.
func (s *Service) ReadMailMany(ctx context.Context, agent string, ids []string) ([]MailItem, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return nil, err
	}
	o, err := Authorize(ctx, Target{Thing: ThingMail, Verb: VerbRead, Owner: agent, Name: "the mail"})
	if err != nil {
		return nil, err
	}
	if err := ValidateAgentRef("agent", agent); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := validateMessageID(id); err != nil {
			return nil, err
		}
	}
	return Write(ctx, s, append([]string{agent}, ids...), func(tx Tx) ([]MailItem, error) {
		if err := s.OverrideEventTx(ctx, tx, o, agent); err != nil {
			return nil, err
		}
		out := make([]MailItem, 0, len(ids))
		for _, id := range ids {
			it, err := s.readMailTx(ctx, tx, agent, id)
			if err != nil {
				return nil, err
			}
			out = append(out, it)
		}
		return out, nil
	})
}

// readMailTx marks one message read for agent inside tx (with its event);
// a message already read or acked is returned as it is.
func (s *Service) readMailTx(ctx context.Context, tx Tx, agent, id string) (MailItem, error) {
	m, err := s.mailFor(ctx, tx, agent, id, "")
	if err != nil {
		return MailItem{}, err
	}
	it, err := s.itemOf(ctx, tx, m, agent)
	if err != nil || it.State != StateUnread {
		return it, err
	}
	now := s.Now()
	if err := tx.MarkRead(ctx, m, agent, now); err != nil {
		return MailItem{}, err
	}
	e := s.Event(EventMailRead, agent, map[string]any{"message_id": m.UUID, "category": m.Category, "from_agent": m.From})
	e.ToAgent, e.BeadID = m.From, m.BeadID
	e.Message = fmt.Sprintf("%s read %s from %s: %s", agent, CategoryOr(m), m.From, Preview(m.Subject, 80))
	if err := tx.AppendEvent(ctx, e); err != nil {
		return MailItem{}, err
	}
	it.State, it.ReadAt = StateRead, &now
	return it, nil
}

// AckMail acknowledges a message for agent: only a recipient may ack
// (ACK_FORBIDDEN otherwise); acked_at is set once; messages that do not
// require an ack may still be acked.
func (s *Service) AckMail(ctx context.Context, agent, id string) (MailItem, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return MailItem{}, err
	}
	if err := ValidateAgentRef("agent", agent); err != nil {
		return MailItem{}, err
	}
	if err := validateMessageID(id); err != nil {
		return MailItem{}, err
	}
	return Write(ctx, s, []string{agent, id}, func(tx Tx) (MailItem, error) {
		m, err := s.mailFor(ctx, tx, agent, id, CodeAckForbidden)
		if err != nil {
			return MailItem{}, err
		}
		it, err := s.itemOf(ctx, tx, m, agent)
		if err != nil || it.State == StateAcked {
			return it, err
		}
		now := s.Now()
		if err := tx.MarkAcked(ctx, m, agent, now); err != nil {
			return MailItem{}, err
		}
		if m.IsBroadcast() {
			if err := tx.AdvanceAckCursor(ctx, agent); err != nil {
				return MailItem{}, err
			}
		}
		e := s.Event(EventMailAcked, agent, map[string]any{"message_id": m.UUID, "category": m.Category, "from_agent": m.From, "requires_ack": m.RequiresAck})
		e.ToAgent, e.BeadID = m.From, m.BeadID
		e.Message = fmt.Sprintf("%s accepted %s from %s: %s", agent, CategoryOr(m), m.From, Preview(m.Subject, 80))
		if err := tx.AppendEvent(ctx, e); err != nil {
			return MailItem{}, err
		}
		it.State, it.AckedAt = StateAcked, &now
		return it, nil
	})
}

func CategoryOr(m *Message) string {
	if m.Category == "" {
		return "message"
	}
	return m.Category
}

func entryMessages(es []InboxEntry) []Message {
	out := make([]Message, 0, len(es))
	for _, e := range es {
		out = append(out, e.Message)
	}
	return out
}

// UrgentBroadcast reports whether a broadcast asks for attention now: it
// requires an ack or its priority is high or critical.
func UrgentBroadcast(m *Message) bool {
	return m.RequiresAck || m.Priority == PriorityHigh || m.Priority == PriorityCritical
}

// MessageIDs lists the UUIDs of ms.
func MessageIDs(ms []Message) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.UUID)
	}
	return out
}

// ReplyInput is `bb agent reply`: an answer to one message.
type ReplyInput struct {
	Agent string
	// Message is the id, or a unique handle, of the message answered.
	Message string
	Body    string
	// Category is "" for the fitting one: DECISION to another's BLOCKED
	// message, INFO otherwise (ReplyTo).
	Category string
	Priority string
}

// ReplyMail answers a message the agent received (or sent): to its other
// party, on its thread and work item, with the fitting category, linked to
// it (in_reply_to). Everything but the text comes from the message.
func (s *Service) ReplyMail(ctx context.Context, in ReplyInput) (MailItem, error) {
	if err := ValidateAgentRef("agent", in.Agent); err != nil {
		return MailItem{}, err
	}
	if strings.TrimSpace(in.Message) == "" {
		return MailItem{}, FieldErr(CodeInvalidArgs, "message", "{field} is required: the id of the message you answer")
	}
	if strings.TrimSpace(in.Body) == "" {
		return MailItem{}, FieldErr(CodeInvalidArgs, "body", "{field} is required: the text of the reply")
	}
	parent, err := Read(ctx, s, func(tx Tx) (Message, error) {
		if _, err := RequireAgent(ctx, tx, in.Agent, CodeAgentNotFound, "agent"); err != nil {
			return Message{}, err
		}
		id, err := ResolveID(ctx, tx, "messages", "message", in.Message)
		if err != nil {
			return Message{}, err
		}
		m, err := tx.MessageByUUID(ctx, id)
		if err != nil {
			return Message{}, err
		}
		if m == nil || (m.From != in.Agent && m.To != in.Agent && !m.IsBroadcast()) {
			return Message{}, FieldErr(CodeMessageNotFound, "message", "message %q not found among the mail of %s", in.Message, in.Agent)
		}
		return *m, nil
	})
	if err != nil {
		return MailItem{}, err
	}
	return s.SendMail(ctx, ReplyTo(&parent, in.Agent, in.Body, in.Category, in.Priority))
}

// ReplyTo is the mail that agent's reply to parent sends: to its other
// party (its sender; its recipient when agent sent it), on its thread and
// work item, linked to it, with the fitting category when category is "":
// a DECISION answers another's BLOCKED; a follow-up on one's own message,
// or any other reply, is INFO. Every surface's reply and a person's answer
// (oversight) send this.
func ReplyTo(parent *Message, agent, body, category, priority string) SendInput {
	to := parent.From
	if parent.From == agent { // following up on one's own message
		to = parent.To
	}
	if to == Broadcast {
		to = BroadcastName
	}
	if category == "" {
		category = CategoryInfo
		if parent.Category == CategoryBlocked && parent.From != agent {
			category = CategoryDecision
		}
	}
	bead := parent.BeadID
	if bead == "" { // mail of a surface without work items (agent-mail)
		bead = parent.ThreadID
	}
	if bead == "" {
		bead = "msg:" + ShortID(parent.UUID)
	}
	subject := parent.Subject
	if !strings.HasPrefix(strings.ToLower(subject), "re:") {
		subject = "Re: " + subject
	}
	if subject == "Re: " {
		subject = "Re: " + Preview(parent.Body, 60)
	}
	for len(subject) > MaxSubjectLen {
		r := []rune(subject)
		subject = string(r[:len(r)-1])
	}
	return SendInput{From: agent, To: to, BeadID: bead, Category: category, Subject: subject, Body: body,
		ThreadID: parent.ThreadID, ReplyTo: parent.UUID, Priority: priority}
}
