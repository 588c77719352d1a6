package search

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tx is the search's persistence port: the kernel's transaction and the
// full-text index. The SQL store implements it (internal/store/sqlstore
// proves it at compile time); the kernel's hub.Tx does not name it.
type Tx interface {
	hub.Tx
	// Search returns the best matches of q, at most q.Limit, best first.
	// The index follows every write in the same transaction.
	Search(ctx context.Context, q hub.SearchTerms) ([]hub.SearchRow, error)
}
