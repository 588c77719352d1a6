package hub

import (
	"context"
	"time"
)

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
	// RecordBranchEdits notes that agent edited paths (relative scopes)
	// on the branch of w, at time at (one row per agent, branch and path),
	// and forgets every agent's records of those paths made before
	// forgetBefore.
	RecordBranchEdits(ctx context.Context, agent string, w Where, paths []string, at, forgetBefore time.Time) error
	// BranchEditsOn returns the recorded edits of any of paths (at most
	// limit rows, newest first).
	BranchEditsOn(ctx context.Context, paths []string, limit int) ([]BranchEdit, error)
}

// BranchEdit is one file an agent edited on a branch.
type BranchEdit struct {
	AgentID  string    `json:"agent_id"`
	Branch   string    `json:"branch"`
	Path     string    `json:"path"`
	Worktree string    `json:"worktree"`
	Host     string    `json:"host"`
	EditedAt time.Time `json:"edited_at"`
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
