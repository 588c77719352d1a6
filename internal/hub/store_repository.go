package hub

import "context"

// RepositoryTx reads and writes the record of the repository the board
// serves (one row).
type RepositoryTx interface {
	// GetRepository returns the record (zero value with Scopes "relative"
	// when the row is missing).
	GetRepository(ctx context.Context) (RepositoryRecord, error)
	// PutRepository writes the record.
	PutRepository(ctx context.Context, r RepositoryRecord) error
	// RebaseScopes rewrites the scope of every reservation (any state) for
	// which fn returns a new one, and returns how many it changed.
	RebaseScopes(ctx context.Context, fn func(scope string) (string, bool)) (int, error)
}

// Scope forms of a board.
const (
	ScopesRelative = "relative"
	ScopesAbsolute = "absolute"
)

// RepositoryRecord is what the board knows of its repository.
type RepositoryRecord struct {
	// Scopes is ScopesAbsolute while reservations of an older board still
	// hold absolute paths that must be made relative.
	Scopes string
	// RepoID fingerprints the repository (its root commit); "" until a
	// checkout of it told the board.
	RepoID string
}
