package hub

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

var _ Credentials = (*Service)(nil)

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

// CredentialInput is what bb token create asks for.
type CredentialInput struct {
	// Agent the credential acts as (required unless the role is operator).
	Agent string
	// Role defaults to agent.
	Role Access
	// Name identifies the credential in lists and in the audit; it
	// defaults to the agent id (with a number when taken).
	Name string
	// Expires is the lifetime (0: until revoked).
	Expires time.Duration
}

// NewCredential is a credential just created, with its secret.
type NewCredential struct {
	Credential
	// Token is the secret, shown once.
	Token string `json:"token"`
}

// CredentialTx stores credentials.
type CredentialTx interface {
	InsertCredential(ctx context.Context, c *Credential) error
	// CredentialByHash returns nil, nil when no credential has the hash.
	CredentialByHash(ctx context.Context, hash string) (*Credential, error)
	// FindCredential returns the credential whose id or name is ref (nil,
	// nil when none).
	FindCredential(ctx context.Context, ref string) (*Credential, error)
	// ListCredentials returns every credential, oldest first.
	ListCredentials(ctx context.Context) ([]Credential, error)
	RevokeCredential(ctx context.Context, id string, at time.Time) error
}

// Timeline events of credentials (their secrets never appear).
const (
	EventCredentialCreated = "credential.created"
	EventCredentialRevoked = "credential.revoked"
)

// SecretPrefix starts every credential secret (so a leaked one is easy to
// recognise and scan for).
const SecretPrefix = "bbt_"

// HashSecret is how a secret is stored.
func HashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// CreateCredential makes a credential (operator only) and returns its
// secret: 32 random bytes.
func (s *Service) CreateCredential(ctx context.Context, in CredentialInput) (NewCredential, error) {
	if err := Allow(ctx, Needs(AccessOperator, "creating a credential")); err != nil {
		return NewCredential{}, err
	}
	if in.Role == "" {
		in.Role = AccessAgent
	}
	if _, err := ParseAccess("role", string(in.Role)); err != nil {
		return NewCredential{}, err
	}
	in.Agent = strings.TrimSpace(in.Agent)
	if in.Agent == "" && in.Role != AccessOperator {
		return NewCredential{}, FieldErr(CodeInvalidInput, "agent", "{field} is required: the agent the credential acts as")
	}
	if in.Agent != "" {
		id, err := s.AgentID(ctx, GrammarBoard, in.Agent)
		if err != nil {
			return NewCredential{}, err
		}
		in.Agent = id
	}
	if in.Expires < 0 {
		return NewCredential{}, FieldErr(CodeInvalidInput, "expires", "{field} must be positive")
	}
	name := strings.TrimSpace(in.Name)
	if in.Name != "" {
		if err := ValidateAgentName("name", name); err != nil {
			return NewCredential{}, err
		}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return NewCredential{}, Internal("random secret", err)
	}
	secret := SecretPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.Now()
	c := Credential{ID: uuid.NewString(), Agent: in.Agent, Role: in.Role, CreatedBy: AuditCredential(ctx), CreatedAt: now, Hash: HashSecret(secret)}
	if in.Expires > 0 {
		t := now.Add(in.Expires)
		c.ExpiresAt = &t
	}
	// Never replayed: a stored reply would keep the secret.
	return Write(ctx, s, SideEffectRead{}, func(tx Tx) (NewCredential, error) {
		c.Name = name
		if c.Name == "" {
			base := in.Agent
			if base == "" {
				base = string(in.Role)
			}
			for n := 1; ; n++ {
				c.Name = base
				if n > 1 {
					c.Name = base + "-" + strconv.Itoa(n)
				}
				old, err := tx.FindCredential(ctx, c.Name)
				if err != nil {
					return NewCredential{}, err
				}
				if old == nil {
					break
				}
			}
		} else if old, err := tx.FindCredential(ctx, c.Name); err != nil {
			return NewCredential{}, err
		} else if old != nil {
			return NewCredential{}, FieldErr(CodeConflict, "name", "a credential named %q exists: pick another name or revoke it", c.Name)
		}
		if err := tx.InsertCredential(ctx, &c); err != nil {
			return NewCredential{}, err
		}
		e := s.Event(EventCredentialCreated, c.Agent, map[string]any{"id": c.ID, "name": c.Name, "role": c.Role, "expires_at": c.ExpiresAt})
		if err := tx.AppendEvent(ctx, e); err != nil {
			return NewCredential{}, err
		}
		return NewCredential{Credential: c, Token: secret}, nil
	})
}

// ListCredentials lists every credential (operator only).
func (s *Service) ListCredentials(ctx context.Context) ([]Credential, error) {
	if err := Allow(ctx, Needs(AccessOperator, "listing credentials")); err != nil {
		return nil, err
	}
	return Read(ctx, s, func(tx Tx) ([]Credential, error) { return tx.ListCredentials(ctx) })
}

// RevokeCredential revokes the credential whose id or name is ref
// (operator only); it stops working at once.
func (s *Service) RevokeCredential(ctx context.Context, ref string) (Credential, error) {
	if err := Allow(ctx, Needs(AccessOperator, "revoking a credential")); err != nil {
		return Credential{}, err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Credential{}, FieldErr(CodeInvalidInput, "credential", "{field} is required: its id or name (see bb token list)")
	}
	return Write(ctx, s, nil, func(tx Tx) (Credential, error) {
		c, err := tx.FindCredential(ctx, ref)
		if err != nil {
			return Credential{}, err
		}
		if c == nil {
			return Credential{}, FieldErr(CodeNotFound, "credential", "no credential %q (see bb token list)", ref)
		}
		if c.RevokedAt != nil {
			return *c, nil
		}
		now := s.Now()
		if err := tx.RevokeCredential(ctx, c.ID, now); err != nil {
			return Credential{}, err
		}
		c.RevokedAt = &now
		e := s.Event(EventCredentialRevoked, c.Agent, map[string]any{"id": c.ID, "name": c.Name, "role": c.Role})
		if err := tx.AppendEvent(ctx, e); err != nil {
			return Credential{}, err
		}
		return *c, nil
	})
}

// Authenticate returns the principal a secret names.
func (s *Service) Authenticate(ctx context.Context, secret string) (Principal, error) {
	bad := Errorf(CodeUnauthorized, "invalid credential: unknown, revoked or expired (ask the operator for a new one: bb token create)")
	if !strings.HasPrefix(secret, SecretPrefix) {
		return Principal{}, bad
	}
	want := HashSecret(secret)
	c, err := Read(ctx, s, func(tx Tx) (*Credential, error) { return tx.CredentialByHash(ctx, want) })
	if err != nil {
		return Principal{}, err
	}
	if c == nil || subtle.ConstantTimeCompare([]byte(c.Hash), []byte(want)) != 1 || c.State(s.Now()) != "active" {
		return Principal{}, bad
	}
	return Principal{Credential: c.Name, ID: c.ID, Agent: c.Agent, Role: c.Role, ExpiresAt: c.ExpiresAt}, nil
}

// WhoAmI is the principal of ctx.
func (s *Service) WhoAmI(ctx context.Context) (Principal, error) {
	p, _ := PrincipalFrom(ctx)
	return p, nil
}
