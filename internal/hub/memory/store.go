package memory

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tx is the shared memory's persistence port: the kernel's transaction
// and the memory table (seed 002). The SQL store implements it
// (internal/store/sqlstore proves it at compile time); the kernel's hub.Tx
// does not name it.
type Tx interface {
	hub.Tx
	// UpsertMemory inserts or updates the entry (scope, scope_id, key),
	// setting m.ID and m.CreatedAt from the stored row.
	UpsertMemory(ctx context.Context, m *hub.Memory) error
	// GetMemory returns nil, nil when absent or expired at now.
	GetMemory(ctx context.Context, scope, scopeID, key string, now time.Time) (*hub.Memory, error)
	// ListMemory returns unexpired entries of one scope, updated_at DESC.
	ListMemory(ctx context.Context, scope, scopeID string, anyScopeID bool, now time.Time, limit int) ([]hub.Memory, error)
	// DeleteMemory reports whether an unexpired entry was removed.
	DeleteMemory(ctx context.Context, scope, scopeID, key string, now time.Time) (bool, error)
	// DeleteExpiredMemory removes up to limit entries expired at now.
	DeleteExpiredMemory(ctx context.Context, now time.Time, limit int) (int64, error)
}
