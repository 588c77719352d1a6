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
	// MarkRead sets agent's read_at of m to at when it is not set yet.
	MarkRead(ctx context.Context, m *Message, agent string, at time.Time) error
	// MarkAcked sets agent's acked_at of m to at when it is not set yet.
	// It does not touch read_at (the two are independent columns).
	MarkAcked(ctx context.Context, m *Message, agent string, at time.Time) error
}
