package overview

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
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
}

// Attention is every item waiting for a person, newest first.
type Attention struct {
	Now          time.Time       `json:"now"`
	Items        []AttentionItem `json:"items"`
	LastEventSeq int64           `json:"last_event_seq"`
}

// Attention gathers what needs a person: unaccepted HANDOFF and BLOCKED
// messages, agents whose status is blocked, and the critical messages and
// incursions of the last AttentionWindow. It reads only.
func (s *Service) Attention(ctx context.Context) (Attention, error) {
	now := s.Now()
	out := Attention{Now: now}
	err := s.read(ctx, func(tx hub.Tx) error {
		unacked, err := tx.UnackedRequired(ctx, hub.MailFilter{Limit: attentionMax})
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
			out.Items = append(out.Items, messageItem(kind, m, now))
		}
		agents, err := hub.ListAgentsIn(ctx, tx)
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
			out.Items = append(out.Items, AttentionItem{Kind: AttentionStuck, At: a.UpdatedAt, Agent: a.ID, Subject: subject,
				BeadID: a.FocusTaskID, WaitingMinutes: minutesSince(now, a.UpdatedAt)})
		}
		since := now.Add(-AttentionWindow)
		crit, err := tx.ListMessages(ctx, hub.MessageFilter{Since: since, Priorities: []hub.Priority{hub.PriorityCritical}, Limit: attentionMax})
		if err != nil {
			return err
		}
		for _, m := range crit {
			if m.RequiresAck && m.AckedAt == nil && (m.Category == hub.CategoryHandoff || m.Category == hub.CategoryBlocked) {
				continue // already listed as a handoff or blocker
			}
			out.Items = append(out.Items, messageItem(AttentionCritical, m, now))
		}
		evs, err := tx.ListEvents(ctx, hub.EventFilter{Types: []string{hub.EventIncursion}, Limit: attentionMax, Desc: true})
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.CreatedAt.Before(since) {
				break
			}
			out.Items = append(out.Items, AttentionItem{Kind: AttentionIncursion, At: e.CreatedAt, Agent: e.Agent, To: e.ToAgent,
				BeadID: e.BeadID, Subject: cmp.Or(e.Message, e.Scope), Seq: e.Seq, WaitingMinutes: minutesSince(now, e.CreatedAt)})
		}
		out.LastEventSeq, err = tx.LastEventSeq(ctx)
		return err
	})
	if err != nil {
		return Attention{}, err
	}
	slices.SortStableFunc(out.Items, func(a, b AttentionItem) int { return b.At.Compare(a.At) })
	return out, nil
}

// read runs fn in one consistent read of the board.
func (s *Service) read(ctx context.Context, fn func(tx hub.Tx) error) error {
	_, err := hub.Read(ctx, s.Service, func(tx hub.Tx) (struct{}, error) { return struct{}{}, fn(tx) })
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
	return AttentionItem{Kind: kind, At: m.CreatedAt, Agent: m.From, To: to, BeadID: m.BeadID, Subject: subject,
		MessageID: m.UUID, Seq: m.Seq, WaitingMinutes: minutesSince(now, m.CreatedAt)}
}

func minutesSince(now, t time.Time) int {
	if d := now.Sub(t); d > 0 {
		return int(d / time.Minute)
	}
	return 0
}
