package hooks

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// escalationsLimit bounds the escalations one delivery tells.
const escalationsLimit = 10

// Escalation tells the sender of a HANDOFF or BLOCKED that nobody accepted
// it within the board's attention.escalate_after minutes (the kernel's
// escalation rule, hub.Escalated): it is now shown to the people watching
// the board as escalated. It reaches the sender's context once, in the
// next delivery of a hook after it escalated, and never once the message
// is accepted. The hook surface words it.
type Escalation struct {
	MessageID string `json:"message_id"`
	// Category is HANDOFF or BLOCKED.
	Category string `json:"category"`
	// To is who it waits on ("" for everyone).
	To      string    `json:"to"`
	BeadID  string    `json:"bead_id"`
	Subject string    `json:"subject"`
	SentAt  time.Time `json:"sent_at"`
	// WaitingMinutes is how long it has waited; EscalateAfter the board's
	// attention.escalate_after it passed.
	WaitingMinutes int `json:"waiting_minutes"`
	EscalateAfter  int `json:"escalate_after"`
}

// escalationNotice is the id under which an escalation told to its sender
// is recorded delivered (beside the mail the hooks delivered, per
// recipient): the message's id with "#escalated", an id no message has.
func escalationNotice(messageID string) string { return messageID + "#escalated" }

// escalationsDue lists the escalations of the messages agent sent that no
// hook has told it of yet, oldest first.
func (s *Service) escalationsDue(ctx context.Context, tx Tx, agent string, after int, now time.Time) ([]Escalation, error) {
	ms, err := tx.UnackedSentBy(ctx, agent, now.Add(-time.Duration(after)*time.Minute), escalationsLimit)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, escalationNotice(m.UUID))
	}
	told, err := tx.DeliveredAt(ctx, agent, ids)
	if err != nil {
		return nil, err
	}
	var out []Escalation
	for _, m := range ms {
		if _, ok := told[escalationNotice(m.UUID)]; ok || !hub.Escalated(&m, after, now) {
			continue
		}
		subject := m.Subject
		if subject == "" {
			subject = hub.Preview(m.Body, briefSubjectChars)
		}
		to := m.To
		if m.IsBroadcast() {
			to = ""
		}
		out = append(out, Escalation{MessageID: m.UUID, Category: m.Category, To: to, BeadID: m.BeadID, Subject: subject,
			SentAt: m.CreatedAt, WaitingMinutes: int(now.Sub(m.CreatedAt) / time.Minute), EscalateAfter: after})
	}
	return out, nil
}

// markEscalationsTold records that the escalations reached the agent's
// context, so no later delivery tells them again.
func markEscalationsTold(ctx context.Context, tx Tx, agent string, es []Escalation, now time.Time) error {
	if len(es) == 0 {
		return nil
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = escalationNotice(e.MessageID)
	}
	return tx.MarkDelivered(ctx, agent, ids, now, "")
}
