package credentials

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

	"github.com/blackboard-hub/bb/internal/hub"

	"github.com/google/uuid"
)

// Input is what bb token create asks for.
type Input struct {
	// Agent the credential acts as (required unless the role is operator).
	Agent string
	// Role defaults to agent.
	Role hub.Access
	// Name identifies the credential in lists and in the audit; it
	// defaults to the agent id (with a number when taken).
	Name string
	// Expires is the lifetime (0: until revoked).
	Expires time.Duration
}

// Issued is a credential just created, with its secret.
type Issued struct {
	hub.Credential
	// Token is the secret, shown once.
	Token string `json:"token"`
}

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
func (s *Service) CreateCredential(ctx context.Context, in Input) (Issued, error) {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOperator, "creating a credential")); err != nil {
		return Issued{}, err
	}
	if in.Role == "" {
		in.Role = hub.AccessAgent
	}
	if _, err := hub.ParseAccess("role", string(in.Role)); err != nil {
		return Issued{}, err
	}
	in.Agent = strings.TrimSpace(in.Agent)
	if in.Agent == "" && in.Role != hub.AccessOperator {
		return Issued{}, hub.FieldErr(hub.CodeInvalidInput, "agent", "{field} is required: the agent the credential acts as")
	}
	if in.Agent != "" {
		id, err := s.kernel.AgentID(ctx, hub.GrammarBoard, in.Agent)
		if err != nil {
			return Issued{}, err
		}
		in.Agent = id
	}
	if in.Expires < 0 {
		return Issued{}, hub.FieldErr(hub.CodeInvalidInput, "expires", "{field} must be positive")
	}
	name := strings.TrimSpace(in.Name)
	if in.Name != "" {
		if err := hub.ValidateAgentName("name", name); err != nil {
			return Issued{}, err
		}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Issued{}, hub.Internal("random secret", err)
	}
	secret := SecretPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.kernel.Now()
	c := hub.Credential{ID: uuid.NewString(), Agent: in.Agent, Role: in.Role, CreatedBy: hub.AuditCredential(ctx), CreatedAt: now, Hash: HashSecret(secret)}
	if in.Expires > 0 {
		t := now.Add(in.Expires)
		c.ExpiresAt = &t
	}
	// Never replayed: a stored reply would keep the secret.
	return hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) (Issued, error) {
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
					return Issued{}, err
				}
				if old == nil {
					break
				}
			}
		} else if old, err := tx.FindCredential(ctx, c.Name); err != nil {
			return Issued{}, err
		} else if old != nil {
			return Issued{}, hub.FieldErr(hub.CodeConflict, "name", "a credential named %q exists: pick another name or revoke it", c.Name)
		}
		if err := tx.InsertCredential(ctx, &c); err != nil {
			return Issued{}, err
		}
		e := s.kernel.Event(hub.EventCredentialCreated, c.Agent, map[string]any{"id": c.ID, "name": c.Name, "role": c.Role, "expires_at": c.ExpiresAt})
		if err := tx.AppendEvent(ctx, e); err != nil {
			return Issued{}, err
		}
		return Issued{Credential: c, Token: secret}, nil
	})
}

// ListCredentials lists every credential (operator only).
func (s *Service) ListCredentials(ctx context.Context) ([]hub.Credential, error) {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOperator, "listing credentials")); err != nil {
		return nil, err
	}
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]hub.Credential, error) { return tx.ListCredentials(ctx) })
}

// RevokeCredential revokes the credential whose id or name is ref
// (operator only); it stops working at once.
func (s *Service) RevokeCredential(ctx context.Context, ref string) (hub.Credential, error) {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOperator, "revoking a credential")); err != nil {
		return hub.Credential{}, err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return hub.Credential{}, hub.FieldErr(hub.CodeInvalidInput, "credential", "{field} is required: its id or name ({do})").With(listThem)
	}
	return hub.WriteAs(ctx, s.kernel, nil, func(tx Tx) (hub.Credential, error) {
		c, err := tx.FindCredential(ctx, ref)
		if err != nil {
			return hub.Credential{}, err
		}
		if c == nil {
			return hub.Credential{}, hub.FieldErr(hub.CodeNotFound, "credential", "no credential %q ({do})", ref).With(listThem)
		}
		if c.RevokedAt != nil {
			return *c, nil
		}
		now := s.kernel.Now()
		if err := tx.RevokeCredential(ctx, c.ID, now); err != nil {
			return hub.Credential{}, err
		}
		c.RevokedAt = &now
		e := s.kernel.Event(hub.EventCredentialRevoked, c.Agent, map[string]any{"id": c.ID, "name": c.Name, "role": c.Role})
		if err := tx.AppendEvent(ctx, e); err != nil {
			return hub.Credential{}, err
		}
		return *c, nil
	})
}

// Authenticate returns the principal a secret names.
func (s *Service) Authenticate(ctx context.Context, secret string) (hub.Principal, error) {
	bad := Invalid()
	if !strings.HasPrefix(secret, SecretPrefix) {
		return hub.Principal{}, bad
	}
	want := HashSecret(secret)
	c, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (*hub.Credential, error) { return tx.CredentialByHash(ctx, want) })
	if err != nil {
		return hub.Principal{}, err
	}
	if c == nil || subtle.ConstantTimeCompare([]byte(c.Hash), []byte(want)) != 1 || c.State(s.kernel.Now()) != "active" {
		return hub.Principal{}, bad
	}
	return hub.Principal{Credential: c.Name, ID: c.ID, Agent: c.Agent, Role: c.Role, ExpiresAt: c.ExpiresAt}, nil
}

// WhoAmI is the principal of ctx.
func (s *Service) WhoAmI(ctx context.Context) (hub.Principal, error) {
	p, _ := hub.PrincipalFrom(ctx)
	return p, nil
}

// listThem is the action of seeing the board's credentials.
var listThem = hub.Action{Do: hub.ActListCredentials}

// Invalid is the error of a secret that is unknown, revoked or expired.
func Invalid() error {
	return hub.FieldErr(hub.CodeUnauthorized, "", "invalid credential: unknown, revoked or expired ({do})").With(hub.Action{Do: hub.ActNewCredential})
}
