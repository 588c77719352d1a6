package hub

import (
	"strconv"
	"time"
)

// Escalation: a HANDOFF or BLOCKED that asked for an ack and has waited
// unaccepted for the board's attention.escalate_after minutes is
// escalated. Every reader of the rule (the dashboard's "needs attention",
// bb top, the notifier, the sender's hook delivery) asks these, so the
// moment is the same everywhere; nothing is stored when it happens.

// DefaultEscalateAfter is attention.escalate_after when unset, in minutes.
const DefaultEscalateAfter = 15

// EscalateAfter is the attention.escalate_after of the effective settings
// (ConfigEntries), in minutes.
func EscalateAfter(entries []ConfigEntry) int {
	for _, e := range entries {
		if e.Key == ConfigEscalateAfter {
			if n, err := strconv.Atoi(e.Value); err == nil {
				return n
			}
		}
	}
	return DefaultEscalateAfter
}

// Escalates reports whether m is the kind of message that escalates: a
// HANDOFF or BLOCKED asking for an ack.
func Escalates(m *Message) bool {
	return m.RequiresAck && (m.Category == CategoryHandoff || m.Category == CategoryBlocked)
}

// EscalationDue is when m escalates if nobody accepts it: after minutes
// past its creation.
func EscalationDue(m *Message, minutes int) time.Time {
	return m.CreatedAt.Add(time.Duration(minutes) * time.Minute)
}

// Escalated reports whether m, still unaccepted at now, is escalated.
func Escalated(m *Message, minutes int, now time.Time) bool {
	return Escalates(m) && !now.Before(EscalationDue(m, minutes))
}
