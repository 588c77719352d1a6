package hub

import (
	"context"
	"time"
)

// Store is the persistence port of the core. Implementations (SQLite,
// PostgreSQL) live under internal/store and hold no domain rules: they read
// and write rows inside a transaction; Service decides.
type Store interface {
	// Read runs fn in a read transaction (a consistent snapshot).
	Read(ctx context.Context, fn func(Tx) error) error
	// Write runs fn in a write transaction. Writers are serialized (BEGIN
	// IMMEDIATE on SQLite) so that check-then-insert rules are atomic. A
	// non-nil error from fn rolls everything back.
	Write(ctx context.Context, fn func(Tx) error) error
	// Backend names the implementation ("sqlite", "postgres").
	Backend() string
	// Location describes where the data lives (a path or a redacted URL).
	Location() string
	Close() error
}

// Tx is the data access available inside one transaction. It is split by
// domain; each part lives in its own file.
type Tx interface {
	AgentTx
	MessageTx
	ArtifactTx
	RefTx
	EventTx
	IdempotencyTx
	MailTx
	MailAgentTx
	ReservationTx
	RepositoryTx
	TaskTx
	ConfigTx
	RetentionTx
}

// RetentionTx forgets old rows, at most limit per call, so that a write
// transaction never holds the write lock long (housekeeping.Retain).
type RetentionTx interface {
	// RemoveEventsBefore removes the oldest events, in seq order, while
	// each is older than cutoff (never past the first newer one): it
	// returns how many and the highest seq removed (0: none).
	RemoveEventsBefore(ctx context.Context, cutoff time.Time, limit int) (removed, through int64, err error)
	// RemoveReceiptsBefore removes delivery records older than cutoff of
	// messages their recipient has read or acked since.
	RemoveReceiptsBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error)
	// CountEventsBefore counts the events created before cutoff.
	CountEventsBefore(ctx context.Context, cutoff time.Time) (int64, error)
	// RemoveNotifiedBefore removes a notifier's records sent before cutoff.
	RemoveNotifiedBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error)
}

// AgentTx reads and writes the agents table.
type AgentTx interface {
	// GetAgent returns nil, nil when the agent does not exist.
	GetAgent(ctx context.Context, id string) (*Agent, error)
	// PutAgent inserts a or overwrites every column of an existing row.
	PutAgent(ctx context.Context, a *Agent) error
	// TouchAgent sets last_seen = now, creating the agent when missing.
	TouchAgent(ctx context.Context, id string, now time.Time) error
	// ListAgents returns all agents, most recently seen first.
	ListAgents(ctx context.Context) ([]Agent, error)
	// MarkOfflineBefore sets status 'offline' on agents not seen since cutoff.
	MarkOfflineBefore(ctx context.Context, cutoff time.Time) (int64, error)
	// DeleteAgentsWithStatus removes agents whose status is status.
	DeleteAgentsWithStatus(ctx context.Context, status string) (int64, error)
	// SetReadCursor raises the agent's read cursor to seq (never lowers it).
	SetReadCursor(ctx context.Context, id string, seq int64) error
	// SetReadCursorPastOwn raises the agent's read cursor to seq when no
	// broadcast of another agent has a number in (after, seq]: the ones
	// there are the agent's own.
	SetReadCursorPastOwn(ctx context.Context, id string, after, seq int64) error
}

// MessageFilter selects messages for the board log. Zero values mean "no filter".
type MessageFilter struct {
	Since      time.Time
	Tags       []string // OR
	From       string
	Priorities []Priority
	Ref        *Ref
	Limit      int
	// BeforeSeq, when set, keeps messages older than this seq (the next
	// page of a newest-first list).
	BeforeSeq int64
}

// MessageTx reads and writes messages and their receipts.
type MessageTx interface {
	// InsertMessage stores m; it assigns m.Seq when zero.
	InsertMessage(ctx context.Context, m *Message) error
	// MessageBySeq and MessageByUUID return nil, nil when absent.
	MessageBySeq(ctx context.Context, seq int64) (*Message, error)
	MessageByUUID(ctx context.Context, id string) (*Message, error)
	// IDsWithPrefix returns up to limit ids of table ("messages" or
	// "tasks") that start with prefix, in id order.
	IDsWithPrefix(ctx context.Context, table, prefix string, limit int) ([]string, error)
	// ListMessages returns messages newest first.
	ListMessages(ctx context.Context, f MessageFilter) ([]Message, error)
	// Replies returns the direct replies of a message, oldest first.
	Replies(ctx context.Context, parentUUID string, limit int) ([]Message, error)
	CountMessagesBefore(ctx context.Context, cutoff time.Time) (int64, error)
	// DeleteMessagesBefore removes messages created before cutoff with
	// their receipts, tags and refs.
	DeleteMessagesBefore(ctx context.Context, cutoff time.Time) (int64, error)
	// UnreadCounts counts agent's unread inbox items, each kind up to cap:
	// messages addressed to it and broadcasts newer than its read cursor.
	UnreadCounts(ctx context.Context, agent string, cap int) (UnreadCounts, error)
	// NoticeCounts returns in one call what UnreadCounts, AcksOwed and
	// IncursionsOnActive count for agent (each up to cap), its NoticeMark
	// and ReadCursor, and the newest broadcast's seq: the check-in of
	// every identified call.
	NoticeCounts(ctx context.Context, agent string, cap int) (NoticeCounts, error)
	// NoticeCountsMany is NoticeCounts for each of agents, in order (a
	// store may send them together).
	NoticeCountsMany(ctx context.Context, agents []string, cap int) ([]NoticeCounts, error)
	// NoticeMark is the fingerprint of the notices agent was last given
	// ("" before the first); SetNoticeMark replaces it.
	NoticeMark(ctx context.Context, agent string) (string, error)
	SetNoticeMark(ctx context.Context, agent, mark string) error
	// LastMessageSeq returns the highest message seq (0 when empty).
	LastMessageSeq(ctx context.Context) (int64, error)
	// DeliveredVia returns when and how each of the messages reached
	// agent's context (absent when never).
	DeliveredVia(ctx context.Context, agent string, messageIDs []string) (map[string]DeliveryMark, error)
}

// ArtifactFilter selects board artifacts.
type ArtifactFilter struct {
	By    string
	Ref   *Ref
	Since time.Time
	Limit int
}

// ArtifactTx reads and writes board artifacts (keyed by path).
type ArtifactTx interface {
	// UpsertBoardArtifact inserts or replaces the artifact at a.Path; it
	// sets a.ID and reports whether the row was new.
	UpsertBoardArtifact(ctx context.Context, a *Artifact) (bool, error)
	BoardArtifactByPath(ctx context.Context, path string) (*Artifact, error)
	// ListBoardArtifacts returns artifacts most recently updated first.
	ListBoardArtifacts(ctx context.Context, f ArtifactFilter) ([]Artifact, error)
	CountBoardArtifacts(ctx context.Context) (int64, error)
	DeleteBoardArtifacts(ctx context.Context) (int64, error)
}

// Owner kinds of the refs index.
const (
	RefOwnerMessage  = "message"
	RefOwnerArtifact = "artifact"
)

// RefTx maintains the index of where:what:ref links.
type RefTx interface {
	// SetRefs replaces the refs of one owner.
	SetRefs(ctx context.Context, ownerKind, ownerID string, refs []Ref) error
}

// EventFilter selects timeline events. Zero values mean "no filter".
type EventFilter struct {
	AfterSeq int64
	Types    []string
	Agent    string
	BeadID   string
	TaskID   string
	Limit    int
	// Desc returns newest first (default oldest first).
	Desc bool
}

// EventTx appends to and reads the timeline.
type EventTx interface {
	// AppendEvent stores e, setting e.Seq (and e.ID when empty). An
	// error from it may have ended the transaction already: return it.
	AppendEvent(ctx context.Context, e *Event) error
	ListEvents(ctx context.Context, f EventFilter) ([]Event, error)
	LastEventSeq(ctx context.Context) (int64, error)
}

// IdemRecord is the stored outcome of a mutation made with a request id.
type IdemRecord struct {
	// Command names the operation the request id was first used for.
	Command string
	// Fingerprint identifies the request itself (a hash of its normalized
	// input); empty on records stored before fingerprints existed.
	Fingerprint string
	// Reply is the JSON of the reply returned to the first request.
	Reply []byte
}

// IdempotencyTx stores replies of mutations made with a request id.
type IdempotencyTx interface {
	// GetIdempotent returns nil when (agent, requestID) is unused.
	GetIdempotent(ctx context.Context, agent, requestID string) (*IdemRecord, error)
	PutIdempotent(ctx context.Context, agent, requestID string, rec IdemRecord, now time.Time) error
}
