package agentmail

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tx is Agent Mail's persistence port: the kernel's transaction and what
// Agent Mail needs beyond it (inbox reads with its filters, threads,
// status counts, TTL cleanup). The SQL store implements it
// (internal/store/sqlstore proves it at compile time); the kernel's hub.Tx
// does not name it.
type Tx interface {
	hub.Tx
	// MailInbox returns one branch (direct or broadcast) of an inbox,
	// excluding messages sent by q.Agent.
	MailInbox(ctx context.Context, q hub.MailInboxQuery) ([]hub.MailRow, error)
	// AdvanceMailCursor records, after agent marked broadcasts read, how
	// far back every broadcast is read, so that the next unread read
	// starts there (an index bound kept by the store; reads stay correct
	// whether or not it moved).
	AdvanceMailCursor(ctx context.Context, agent string) error
	// MailByID returns nil, nil when absent.
	MailByID(ctx context.Context, id string) (*hub.MailRow, error)
	// MailReplyTo returns the reply_to of message id (found=false when the
	// message does not exist).
	MailReplyTo(ctx context.Context, id string) (replyTo string, found bool, err error)
	// MailThread returns root and all its descendants (following reply_to),
	// ordered by created ascending.
	MailThread(ctx context.Context, rootID string) ([]hub.MailRow, error)
	// MailCounts returns unread/unacked counts of the given agents (direct
	// plus broadcast, excluding their own messages).
	MailCounts(ctx context.Context, agents []string) ([]hub.MailCounts, error)
	// MailExpiryCandidates returns the messages that may have expired by
	// now. regular: rows with ttl_hours 24 and a UTC "T…+00:00" created
	// text older than regularCutoff (a text comparison along
	// idx_messages_expiring, so only old rows are read). irregular: every
	// row with another TTL or created format (few; a partial index). The
	// caller decides each row. Only ID, Sender, Subject, TTLHours, Created
	// and Seq are filled.
	MailExpiryCandidates(ctx context.Context, regularCutoff time.Time) (regular, irregular []hub.MailRow, err error)
	// DeleteMailBefore deletes the regular rows MailExpiryCandidates
	// returns for regularCutoff, except the ids in keep, with their
	// broadcast receipts (first), tags and refs, walking the index in
	// created order.
	DeleteMailBefore(ctx context.Context, regularCutoff time.Time, keep []string) error
	// DeleteMail deletes the messages with their broadcast receipts (first),
	// tags and refs.
	DeleteMail(ctx context.Context, ids []string) error
}
