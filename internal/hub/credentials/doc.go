// Package credentials manages the secrets bb serve accepts besides its own
// token (which is the operator's): each names an agent and a role (agent,
// overseer, operator). A secret is 32 random bytes shown once, when
// created; the board keeps only its SHA-256 hash, compares in constant
// time and records every creation and revocation on the timeline.
//
// It is built over the kernel (*hub.Service), which keeps what a request
// acts as (hub.Principal) and the rules of who may do what (hub.Allow);
// internal/app composes it with the kernel's roles into the API the
// surfaces use.
package credentials

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service manages credentials over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the credential manager over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }

// API is the credentials' role.
type API interface {
	CreateCredential(ctx context.Context, in Input) (Issued, error)
	ListCredentials(ctx context.Context) ([]hub.Credential, error)
	RevokeCredential(ctx context.Context, ref string) (hub.Credential, error)
	// Authenticate returns the principal of a secret: UNAUTHORIZED when it
	// is unknown, revoked or expired.
	Authenticate(ctx context.Context, secret string) (hub.Principal, error)
	// WhoAmI is the principal of ctx (Role "" on the local board).
	WhoAmI(ctx context.Context) (hub.Principal, error)
}

var _ API = (*Service)(nil)
