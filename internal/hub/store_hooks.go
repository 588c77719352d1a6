package hub

import (
	"context"
	"time"
)

// ConfigTx reads and writes the board's settings.
type ConfigTx interface {
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
