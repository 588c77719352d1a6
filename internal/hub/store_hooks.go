package hub

import (
	"context"
	"time"
)

// HookTx is the data access of coding-agent hooks: client sessions mapped
// to agents, per-recipient delivery of mail, and board settings.
type HookTx interface {
	// GetHookSession returns nil, nil when the session is unknown.
	GetHookSession(ctx context.Context, client, sessionID string) (*HookSession, error)
	// PutHookSession inserts or overwrites a session row.
	PutHookSession(ctx context.Context, hs *HookSession) error
	// HookSessionByPID returns the most recently seen session of client
	// ("" = any client) whose client process is pid, or nil.
	HookSessionByPID(ctx context.Context, client string, pid int64) (*HookSession, error)
	// IdleHookSessions returns the sessions whose turn ended and no new
	// turn began (IdleSince set) at or after since, the most recently
	// idle first, at most limit.
	IdleHookSessions(ctx context.Context, since time.Time, limit int) ([]HookSession, error)
	// HookAgents returns the distinct agent ids that hook sessions have
	// worked as, most recently seen first, at most limit.
	HookAgents(ctx context.Context, limit int) ([]string, error)
	// Undelivered returns, oldest first, the messages for agent that no hook
	// has delivered to it yet and that it has neither read nor acked: mail
	// addressed to it, and broadcasts by others that are urgent (priority
	// high or critical, or requiring an ack) with seq > cursor and created
	// at or after since. At most limit.
	Undelivered(ctx context.Context, agent string, cursor int64, since time.Time, limit int) ([]Message, error)
	// UnackedSentBy returns, oldest first, the HANDOFF and BLOCKED
	// messages agent sent that ask for an ack nobody has given, created
	// at or before before. At most limit.
	UnackedSentBy(ctx context.Context, agent string, before time.Time, limit int) ([]Message, error)
	// DeliveryCursor is the agent's delivery cursor: every urgent broadcast
	// up to it was delivered or was never due (0 when unknown).
	DeliveryCursor(ctx context.Context, agent string) (int64, error)
	// RaiseDeliveryCursor raises the agent's delivery cursor to seq (never
	// lowers it).
	RaiseDeliveryCursor(ctx context.Context, agent string, seq int64) error
	// MarkDelivered records that each message reached agent's context (the
	// first time only), and how (via: a DeliveryVia).
	MarkDelivered(ctx context.Context, agent string, messageIDs []string, at time.Time, via string) error
	// DeliveredVia returns when and how each of the messages reached
	// agent's context (absent when never).
	DeliveredVia(ctx context.Context, agent string, messageIDs []string) (map[string]DeliveryMark, error)
	// DeliveredAt returns when each of the messages reached agent's context
	// (absent when never).
	DeliveredAt(ctx context.Context, agent string, messageIDs []string) (map[string]time.Time, error)
	// GetConfig returns a board setting; ok is false when unset.
	GetConfig(ctx context.Context, key string) (value string, ok bool, err error)
	// SetConfig sets (value != "") or removes (value == "") a board setting.
	SetConfig(ctx context.Context, key, value string, now time.Time) error
	// ListConfig returns every board setting.
	ListConfig(ctx context.Context) (map[string]string, error)
}

// HookSession is one client session mapped to the agent it works as.
type HookSession struct {
	Client    string
	SessionID string
	AgentID   string
	// ClientPID is the client's process (shared with its MCP servers); 0
	// when unknown.
	ClientPID int64
	CreatedAt time.Time
	LastSeen  time.Time
	// Reminded is the fingerprint of the last end-of-turn reminder given.
	Reminded string
	// IdleSince is when the session's turn ended (its Stop hook ran, or
	// its waiter was armed) with no hook of a new turn since; zero while
	// a turn runs.
	IdleSince time.Time
}

// DeliveryMark is when and how one message reached its recipient's
// context.
type DeliveryMark struct {
	At time.Time
	// Via is how: a hook of a turn (session_start, prompt, tool), a wake
	// of an idle session, a wait; "" for a hook before the board recorded
	// which.
	Via string
}

// ViaHook is how a message reached its recipient when the board did not
// record which hook it was (deliveries older than the record, a hook that
// does not say).
const ViaHook = "hook"

// How is how the message arrived: Via, or ViaHook when unrecorded.
func (m DeliveryMark) How() string {
	if m.Via == "" {
		return ViaHook
	}
	return m.Via
}
