package hub

import (
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/pyjson"
)

// The grammar of Agent Mail identities (project:name) lives in the kernel:
// the addressing rule (addressing.go) applies it to ids that surface
// creates, and the Agent Mail events are part of the one timeline.

// Timeline events written by Agent Mail.
const (
	// Mail events: one type per act, whatever the surface (bb agent send,
	// agent-mail, MCP, the dashboard, hooks); docs/events.md.
	EventMailSent    = "mail.sent"
	EventMailRead    = "mail.read"
	EventMailAcked   = "mail.acked"
	EventMailExpired = "mail.expired"
)

func isMailIDChar(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
}

func isMailIDStart(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

// IsMailIdentity reports whether s matches TC1:
// ^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*$ (Python's $ also matches before
// one final "\n"; that lenience is not carried over).
func IsMailIdentity(s string) bool {
	project, name, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	for _, part := range []string{project, name} {
		if part == "" || !isMailIDStart(part[0]) {
			return false
		}
		for i := 1; i < len(part); i++ {
			if !isMailIDChar(part[i]) {
				return false
			}
		}
	}
	return true
}

// ValidateMailIdentity applies TC1/TC2: "*" is not an identity.
func ValidateMailIdentity(s string) error {
	if !IsMailIdentity(s) {
		return FieldErr(CodeInvalidInput, "agent", "Invalid agent identity: %s. Must be project:name format (e.g. claudefana:deploy).", pyjson.Repr(s))
	}
	return nil
}

// MailTouchInterval is how stale a reader's last_seen may be before a read
// refreshes it. Liveness thresholds are minutes, so this loses nothing, and
// a read that finds nothing new writes nothing (no WAL, no checkpoint).
const MailTouchInterval = time.Minute
