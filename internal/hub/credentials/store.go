package credentials

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tx is the credentials' persistence port: the kernel's transaction and
// the stored credentials. The SQL store implements it
// (internal/store/sqlstore proves it at compile time); the kernel's hub.Tx
// does not name it.
type Tx interface {
	hub.Tx
	InsertCredential(ctx context.Context, c *hub.Credential) error
	// CredentialByHash returns nil, nil when no credential has the hash.
	CredentialByHash(ctx context.Context, hash string) (*hub.Credential, error)
	// FindCredential returns the credential whose id or name is ref (nil,
	// nil when none).
	FindCredential(ctx context.Context, ref string) (*hub.Credential, error)
	// ListCredentials returns every credential, oldest first.
	ListCredentials(ctx context.Context) ([]hub.Credential, error)
	RevokeCredential(ctx context.Context, id string, at time.Time) error
}
