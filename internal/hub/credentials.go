package hub

import (
	"time"
)

// Credential is a stored credential (never its secret).
type Credential struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Agent     string     `json:"agent"`
	Role      Access     `json:"role"`
	CreatedBy string     `json:"created_by"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
	RevokedAt *time.Time `json:"revoked_at"`
	// Hash is the SHA-256 of the secret (hex); it never leaves the core.
	Hash string `json:"-"`
}

// State is "active", "revoked" or "expired" at now.
func (c Credential) State(now time.Time) string {
	switch {
	case c.RevokedAt != nil:
		return "revoked"
	case c.ExpiresAt != nil && !now.Before(*c.ExpiresAt):
		return "expired"
	}
	return "active"
}

// Timeline events of credentials (their secrets never appear).
const (
	EventCredentialCreated = "credential.created"
	EventCredentialRevoked = "credential.revoked"
)
