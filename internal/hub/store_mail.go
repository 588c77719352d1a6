package hub

import (
	"context"
	"time"
)

// MailTx is the data access of direct mail with read/ack receipts
// (bb agent send/inbox/read/ack, seed 000 §6; Agent Mail read/ack, seed 004).
// Receipts of a direct message live on the message row (read_at,
// acked_at); receipts of a broadcast live in broadcast_acks, one row per
// agent. These primitives hide that split from every surface.
type MailTx interface {
	// ReceiptOf returns agent's receipt of m (zero times when none).
	ReceiptOf(ctx context.Context, m *Message, agent string) (Receipt, error)
	// AdvanceAckCursor records, after agent acked a broadcast, how far back
	// every broadcast asking for an ack is acked, so that counting acks
	// owed starts there (an index bound kept by the store; counts stay
	// correct whether or not it moved).
	AdvanceAckCursor(ctx context.Context, agent string) error
	// MarkRead sets agent's read_at of m to at, written with at's own UTC
	// offset (see MailReadInput.LocalOffset), when it is not set yet.
	MarkRead(ctx context.Context, m *Message, agent string, at time.Time) error
	// MarkAcked sets agent's acked_at of m to at when it is not set yet.
	// It does not touch read_at (the two are independent columns).
	MarkAcked(ctx context.Context, m *Message, agent string, at time.Time) error
	// MarkAckedLatest sets agent's acked_at of m to at even when it was
	// set before (Agent Mail: every ack restamps, and its reply shows the
	// new time). Same rows as MarkAcked; read_at is not touched.
	MarkAckedLatest(ctx context.Context, m *Message, agent string, at time.Time) error

	// ReadCursor is the newest broadcast seq the agent has seen in the
	// board log (broadcasts at or below it count as read); 0 when none.
	ReadCursor(ctx context.Context, agent string) (int64, error)
	// Inbox returns the messages addressed to f.Agent (directly or as a
	// broadcast, never its own), newest first, each with the agent's receipt.
	Inbox(ctx context.Context, f InboxFilter) ([]InboxEntry, error)
	// AcksOwed counts messages addressed to agent that require an ack it
	// has not given, up to cap (index-driven; recent broadcasts only).
	AcksOwed(ctx context.Context, agent string, cap int) (int64, error)
	// MailStateCounts counts messages by state: direct bb agent messages
	// (bead_id set) by their receipt ("unread", "read", "acked"), and under
	// "broadcast" every broadcast on the board, posts included (only those
	// of f.BeadID when it is set).
	MailStateCounts(ctx context.Context, f MailFilter) (map[string]int64, error)
	// UnackedRequired lists messages requiring an ack that is missing,
	// newest first (see MailFilter).
	UnackedRequired(ctx context.Context, f MailFilter) ([]Message, error)
}

// InboxFilter selects an agent's inbox. State is "", unread, read or acked.
type InboxFilter struct {
	Agent  string
	State  string
	BeadID string
	Limit  int
	// Cursor is the agent's read cursor (see ReadCursor).
	Cursor int64
	// MailOnly keeps messages with a bead only (no board posts).
	MailOnly bool
}

// InboxEntry is a message with the inbox owner's receipt.
type InboxEntry struct {
	Message
	Receipt Receipt
}

// MailFilter selects bb agent messages for status reports. Agent matches
// sender or recipient.
type MailFilter struct {
	BeadID string
	Agent  string
	Limit  int
}
