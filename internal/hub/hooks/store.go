package hooks

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tx is the hook application's persistence port: the kernel's
// transaction and the tables of coding-agent hooks (client sessions mapped
// to agents, per-recipient delivery of mail). The SQL store implements it
// (internal/store/sqlstore proves it at compile time); the kernel's hub.Tx
// does not name it.
type Tx interface {
	hub.Tx
	// GetHookSession returns nil, nil when the session is unknown.
	GetHookSession(ctx context.Context, client, sessionID string) (*hub.HookSession, error)
	// PutHookSession inserts or overwrites a session row.
	PutHookSession(ctx context.Context, hs *hub.HookSession) error
	// HookSessionByPID returns the most recently seen session of client
	// ("" = any client) whose client process is pid, or nil.
	HookSessionByPID(ctx context.Context, client string, pid int64) (*hub.HookSession, error)
	// IdleHookSessions returns the sessions whose turn ended and no new
	// turn began (IdleSince set) at or after since, the most recently
	// idle first, at most limit.
	IdleHookSessions(ctx context.Context, since time.Time, limit int) ([]hub.HookSession, error)
	// HookAgents returns the distinct agent ids that hook sessions have
	// worked as, most recently seen first, at most limit.
	HookAgents(ctx context.Context, limit int) ([]string, error)
	// Undelivered returns, oldest first, the messages for agent that no hook
	// has delivered to it yet and that it has neither read nor acked: mail
	// addressed to it, and broadcasts by others that are urgent (priority
	// high or critical, or requiring an ack) with seq > cursor and created
	// at or after since. At most limit.
	Undelivered(ctx context.Context, agent string, cursor int64, since time.Time, limit int) ([]hub.Message, error)
	// UnackedSentBy returns, oldest first, the HANDOFF and BLOCKED
	// messages agent sent that ask for an ack nobody has given, created
	// at or before before. At most limit.
	UnackedSentBy(ctx context.Context, agent string, before time.Time, limit int) ([]hub.Message, error)
	// DeliveryCursor is the agent's delivery cursor: every urgent broadcast
	// up to it was delivered or was never due (0 when unknown).
	DeliveryCursor(ctx context.Context, agent string) (int64, error)
	// RaiseDeliveryCursor raises the agent's delivery cursor to seq (never
	// lowers it).
	RaiseDeliveryCursor(ctx context.Context, agent string, seq int64) error
	// MarkDelivered records that each message reached agent's context (the
	// first time only), and how (via: a DeliveryVia).
	MarkDelivered(ctx context.Context, agent string, messageIDs []string, at time.Time, via string) error
	// DeliveredAt returns when each of the messages reached agent's context
	// (absent when never).
	DeliveredAt(ctx context.Context, agent string, messageIDs []string) (map[string]time.Time, error)
}
