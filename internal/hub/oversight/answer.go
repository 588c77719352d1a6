package oversight

import (
	"context"
	"fmt"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// What a person does about an item that needs them (the choices of
// overview.AttentionItem): answer it, nudge the agent it waits on, or step
// in on one between two agents. Each surface (the dashboard, bb top) calls
// these, so that "Answer" means one thing everywhere.

// AnswerInput is a person's answer to an item that needs them.
type AnswerInput struct {
	// Person answers.
	Person string
	// Message is the id (or a unique handle) of the message the item is:
	// a HANDOFF, a BLOCKED, a critical message. Empty for a blocked
	// agent, answered by mail (Agent, BeadID).
	Message string
	// Agent is the blocked agent answered when Message is empty; BeadID
	// the work item the answer is about (its focus task; "" for
	// status:<agent>).
	Agent  string
	BeadID string
	Body   string
	// StepIn answers a HANDOFF or BLOCKED between two agents in the
	// place of its recipient: the answer goes to its sender and the
	// message is accepted for the recipient, recorded as the person's.
	// Only a person may (as StepIn on reservations).
	StepIn bool
}

// AnswerResult is what an answer did.
type AnswerResult struct {
	// Sent is the answer: a mail, or a board post replying to a post.
	Sent hub.Message `json:"sent"`
	// Accepted is true when the answered message was accepted with it
	// (it waited on the person, or the person stepped in).
	Accepted bool `json:"accepted"`
	// For is the recipient the message was accepted for on a step-in.
	For string `json:"for,omitempty"`
}

// Answer is the one meaning of "answer": a reply to who raised the item,
// on its thread and work item (hub.ReplyTo: a DECISION to a BLOCKED, INFO
// otherwise); when the item waits on the person (addressed to them or to
// everyone) it is accepted too, so an answered blocker leaves the list
// and is never escalated. A board post is answered by a post under it; a
// blocked agent by mail on its work item. With StepIn, a HANDOFF or
// BLOCKED between two agents is answered and accepted for its recipient.
func (s *Service) Answer(ctx context.Context, in AnswerInput) (AnswerResult, error) {
	if err := hub.Allow(ctx, hub.Act(in.Person)); err != nil {
		return AnswerResult{}, err
	}
	if err := hub.ValidateAgentRef("person", in.Person); err != nil {
		return AnswerResult{}, err
	}
	if strings.TrimSpace(in.Body) == "" {
		return AnswerResult{}, hub.FieldErr(hub.CodeInvalidArgs, "body", "{field} is required: the text of the answer")
	}
	if in.Message == "" {
		return s.answerAgent(ctx, in)
	}
	parent, err := s.message(ctx, in.Message)
	if err != nil {
		return AnswerResult{}, err
	}
	if parent.IsBroadcast() && !parent.RequiresAck && parent.Category == "" {
		m, err := s.kernel.Post(ctx, hub.PostInput{From: in.Person, Content: in.Body, ReplyTo: parent.Seq})
		return AnswerResult{Sent: m}, err
	}
	waitsOnPerson := parent.To == in.Person || parent.IsBroadcast()
	if in.StepIn {
		if waitsOnPerson || parent.From == in.Person || !parent.RequiresAck {
			return AnswerResult{}, hub.FieldErr(hub.CodeInvalidArgs, "message",
				"stepping in is for a HANDOFF or BLOCKED between two other agents; message %s waits on %s: answer it instead", hub.ShortID(parent.UUID), shownTo(parent))
		}
		if err := hub.Allow(ctx, hub.Needs(hub.AccessOverseer, "stepping in on mail between two agents")); err != nil {
			return AnswerResult{}, err
		}
		if err := s.requirePersonRead(ctx, in.Person); err != nil {
			return AnswerResult{}, err
		}
	}
	sent, err := s.kernel.SendMail(ctx, hub.ReplyTo(&parent, in.Person, in.Body, "", ""))
	if err != nil {
		return AnswerResult{}, err
	}
	out := AnswerResult{Sent: sent.Message}
	switch {
	case parent.RequiresAck && waitsOnPerson:
		if _, err := s.kernel.AckMail(ctx, in.Person, parent.UUID); err != nil {
			return out, err
		}
		out.Accepted = true
	case in.StepIn:
		if err := s.acceptFor(ctx, in.Person, parent.UUID); err != nil {
			return out, err
		}
		out.Accepted, out.For = true, parent.To
	}
	return out, nil
}

// answerAgent mails a blocked agent about its work item.
func (s *Service) answerAgent(ctx context.Context, in AnswerInput) (AnswerResult, error) {
	if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return AnswerResult{}, err
	}
	bead := in.BeadID
	if bead == "" {
		bead = "status:" + in.Agent
	}
	sent, err := s.kernel.SendMail(ctx, hub.SendInput{From: in.Person, To: in.Agent, BeadID: bead, Category: hub.CategoryInfo,
		Subject: "Re: your blocker", Body: in.Body})
	return AnswerResult{Sent: sent.Message}, err
}

// message reads the message named by id or handle.
func (s *Service) message(ctx context.Context, ref string) (hub.Message, error) {
	return hub.Read(ctx, s.kernel, func(tx hub.Tx) (hub.Message, error) {
		id, err := hub.ResolveID(ctx, tx, "messages", "message", ref)
		if err != nil {
			return hub.Message{}, err
		}
		m, err := tx.MessageByUUID(ctx, id)
		if err != nil {
			return hub.Message{}, err
		}
		if m == nil {
			return hub.Message{}, hub.FieldErr(hub.CodeMessageNotFound, "message", "message %q not found", ref)
		}
		return *m, nil
	})
}

func (s *Service) requirePersonRead(ctx context.Context, person string) error {
	_, err := hub.Read(ctx, s.kernel, func(tx hub.Tx) (struct{}, error) { return struct{}{}, requirePerson(ctx, tx, person) })
	return err
}

// acceptFor records the acknowledgement of the message id by its
// recipient, given by person stepping in: mail.acked under the person's
// name, naming the recipient it was accepted for.
func (s *Service) acceptFor(ctx context.Context, person, id string) error {
	_, err := hub.Write(ctx, s.kernel, []string{"accept-for", person, id}, func(tx hub.Tx) (struct{}, error) {
		m, err := tx.MessageByUUID(ctx, id)
		if err != nil || m == nil || m.AckedAt != nil {
			return struct{}{}, err
		}
		now := s.kernel.Now()
		if err := tx.MarkAcked(ctx, m, m.To, now); err != nil {
			return struct{}{}, err
		}
		e := s.kernel.Event(hub.EventMailAcked, person, map[string]any{"message_id": m.UUID, "category": m.Category, "from_agent": m.From,
			"requires_ack": m.RequiresAck, "for_agent": m.To, "by_person": true})
		e.ToAgent, e.BeadID = m.From, m.BeadID
		e.Message = fmt.Sprintf("%s stepped in and accepted %s from %s for %s: %s", person, hub.CategoryOr(m), m.From, m.To, hub.Preview(m.Subject, 80))
		return struct{}{}, tx.AppendEvent(ctx, e)
	})
	return err
}

// NudgeInput is a person reminding an agent of what waits on it.
type NudgeInput struct {
	Person string
	// Message names a HANDOFF or BLOCKED: its recipient is reminded, on
	// its thread.
	Message string
	// Without Message: Agent is reminded (the agent of an incursion, a
	// blocked agent) of Subject, about BeadID ("" for status:<agent>).
	Agent, BeadID, Subject string
	// Body is the person's words; "" for the board's reminder.
	Body string
}

// Nudge reminds the agent an item waits on, by mail from the person (high
// priority, so its hooks deliver it first): the recipient of a HANDOFF or
// BLOCKED on its thread, naming what is asked and since when; or an agent
// of an incursion or a blocked status about what the item says.
func (s *Service) Nudge(ctx context.Context, in NudgeInput) (hub.MailItem, error) {
	if err := hub.Allow(ctx, hub.Act(in.Person)); err != nil {
		return hub.MailItem{}, err
	}
	if err := hub.ValidateAgentRef("person", in.Person); err != nil {
		return hub.MailItem{}, err
	}
	if in.Message == "" {
		if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
			return hub.MailItem{}, err
		}
		bead := in.BeadID
		if bead == "" {
			bead = "status:" + in.Agent
		}
		body := in.Body
		if body == "" {
			body = fmt.Sprintf("%s asks you to look at this: %s", in.Person, in.Subject)
		}
		return s.kernel.SendMail(ctx, hub.SendInput{From: in.Person, To: in.Agent, BeadID: bead, Category: hub.CategoryInfo,
			Subject: subjectLine("Reminder: " + in.Subject), Body: body, Priority: string(hub.PriorityHigh)})
	}
	m, err := s.message(ctx, in.Message)
	if err != nil {
		return hub.MailItem{}, err
	}
	if m.IsBroadcast() {
		return hub.MailItem{}, hub.FieldErr(hub.CodeInvalidArgs, "message", "message %s is addressed to everyone: there is no one agent to nudge; answer it instead", hub.ShortID(m.UUID))
	}
	if m.To == in.Person {
		return hub.MailItem{}, hub.FieldErr(hub.CodeInvalidArgs, "message", "message %s waits on you: accept it or answer it", hub.ShortID(m.UUID))
	}
	body := in.Body
	if body == "" {
		asked := m.Subject
		if m.Intent != nil && (m.Intent.RequestedAction != "" || m.Intent.NextAction != "") {
			asked = m.Intent.RequestedAction + m.Intent.NextAction
		}
		body = fmt.Sprintf("%s has waited %s for you to accept its %s (message %s): %s. Accept it, or answer %s.",
			m.From, hub.DurationText(s.kernel.Now().Sub(m.CreatedAt)), m.Category, hub.ShortID(m.UUID), asked, m.From)
	}
	bead := m.BeadID
	if bead == "" {
		bead = "msg:" + hub.ShortID(m.UUID)
	}
	return s.kernel.SendMail(ctx, hub.SendInput{From: in.Person, To: m.To, BeadID: bead, Category: hub.CategoryInfo,
		Subject: subjectLine("Reminder: " + m.Subject), Body: body, ThreadID: m.ThreadID, ReplyTo: m.UUID, Priority: string(hub.PriorityHigh)})
}

func shownTo(m hub.Message) string {
	if m.IsBroadcast() {
		return "everyone"
	}
	return m.To
}

// subjectLine keeps a subject to one line within hub.MaxSubjectLen.
func subjectLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for len(s) > hub.MaxSubjectLen {
		r := []rune(s)
		s = string(r[:len(r)-1])
	}
	return s
}
