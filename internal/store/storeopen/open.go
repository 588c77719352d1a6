// Package storeopen is the one place every surface (bb, agent-mail, vybe,
// MCP, HTTP) gets its hub.Store from: the embedded SQLite file by default,
// or, when a database URL is configured, another backend.
package storeopen

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// Config says which store to open.
type Config struct {
	// SQLitePath is the database file of the embedded default.
	SQLitePath string
	// Create makes the SQLite file (and its folder) when missing.
	Create bool
	// DatabaseURL, when set (BB_DATABASE_URL / --database-url), selects a
	// server database instead of the file: postgres://… opens PostgreSQL
	// (migrated on connect). Create does not apply to it.
	DatabaseURL string
}

// EnvDatabaseURL is the environment variable every surface reads for the
// database URL.
const EnvDatabaseURL = "BB_DATABASE_URL"

// Open opens and migrates the configured store.
func Open(ctx context.Context, c Config) (hub.Store, error) {
	if c.DatabaseURL != "" {
		if !postgres.IsURL(c.DatabaseURL) {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "database-url",
				"unsupported database URL %q: use postgres://user:password@host:port/dbname", postgres.Redact(c.DatabaseURL))
		}
		st, err := postgres.Open(ctx, c.DatabaseURL)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	st, err := sqlite.Open(ctx, c.SQLitePath, sqlite.Options{Create: c.Create})
	if err != nil {
		return nil, err
	}
	return st, nil
}
