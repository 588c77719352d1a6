package hub

import (
	"context"
)

// MailRow is one message as Agent Mail (seed 004) shows it: the TC9
// columns with the timestamps as stored (rows written by other tools keep
// their own text), plus Seq for stable ordering.
type MailRow struct {
	ID        string
	Sender    string
	Recipient string
	Subject   string
	Body      string
	Refs      *string
	ReplyTo   *string
	Type      string
	TTLHours  *int
	Created   string
	ReadAt    *string
	AckedAt   *string
	Seq       int64
}

// MailInboxQuery selects one branch of an Agent Mail inbox read, ordered by
// created ascending.
type MailInboxQuery struct {
	Agent string
	// Broadcast selects messages addressed to "*" instead of to Agent.
	Broadcast bool
	// Unread keeps direct messages whose read_at is NULL, or broadcasts
	// Agent has no read receipt for.
	Unread bool
	// From filters by sender ("" = any).
	From string
	// Limit < 0 means no limit.
	Limit int
}

// MailCounts is one agent's line of `agent-mail status`.
type MailCounts struct {
	Agent   string
	Unread  int64
	Unacked int64
}

// MailAgentTx is what the kernel's addressing reads of the Agent Mail
// traffic: the identities known only from it (addressing.go).
type MailAgentTx interface {
	// MailAgents returns every sender and every non-broadcast recipient,
	// sorted (byte order).
	MailAgents(ctx context.Context) ([]string, error)
	// MailFirstSeen returns the created text of the oldest message id sent
	// or received (found=false when it has none).
	MailFirstSeen(ctx context.Context, id string) (created string, found bool, err error)
}
