package hub

import (
	"context"
	"time"
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

// AgentMailTx is the data access Agent Mail needs beyond MailTx: inbox
// reads with its filters, threads, status counts, TTL cleanup.
type AgentMailTx interface {
	// MailInbox returns one branch (direct or broadcast) of an inbox,
	// excluding messages sent by q.Agent.
	MailInbox(ctx context.Context, q MailInboxQuery) ([]MailRow, error)
	// AdvanceMailCursor records, after agent marked broadcasts read, how
	// far back every broadcast is read, so that the next unread read
	// starts there (an index bound kept by the store; reads stay correct
	// whether or not it moved).
	AdvanceMailCursor(ctx context.Context, agent string) error
	// MailByID returns nil, nil when absent.
	MailByID(ctx context.Context, id string) (*MailRow, error)
	// MailReplyTo returns the reply_to of message id (found=false when the
	// message does not exist).
	MailReplyTo(ctx context.Context, id string) (replyTo string, found bool, err error)
	// MailThread returns root and all its descendants (following reply_to),
	// ordered by created ascending.
	MailThread(ctx context.Context, rootID string) ([]MailRow, error)
	// MailAgents returns every sender and every non-broadcast recipient,
	// sorted (byte order).
	MailAgents(ctx context.Context) ([]string, error)
	// MailFirstSeen returns the created text of the oldest message id sent
	// or received (found=false when it has none).
	MailFirstSeen(ctx context.Context, id string) (created string, found bool, err error)
	// MailCounts returns unread/unacked counts of the given agents (direct
	// plus broadcast, excluding their own messages).
	MailCounts(ctx context.Context, agents []string) ([]MailCounts, error)
	// MailExpiryCandidates returns the messages that may have expired by
	// now. regular: rows with ttl_hours 24 and a UTC "T…+00:00" created
	// text older than regularCutoff (a text comparison along
	// idx_messages_expiring, so only old rows are read). irregular: every
	// row with another TTL or created format (few; a partial index). The
	// caller decides each row. Only ID, Sender, Subject, TTLHours, Created
	// and Seq are filled.
	MailExpiryCandidates(ctx context.Context, regularCutoff time.Time) (regular, irregular []MailRow, err error)
	// DeleteMailBefore deletes the regular rows MailExpiryCandidates
	// returns for regularCutoff, except the ids in keep, with their
	// broadcast receipts (first), tags and refs, walking the index in
	// created order.
	DeleteMailBefore(ctx context.Context, regularCutoff time.Time, keep []string) error
	// DeleteMail deletes the messages with their broadcast receipts (first),
	// tags and refs.
	DeleteMail(ctx context.Context, ids []string) error
}
