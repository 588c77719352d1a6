// Package postgres opens the hub store on PostgreSQL (pgx through
// database/sql), with the schema migrations embedded in their PostgreSQL
// dialect. The queries themselves are sqlstore's, shared with SQLite.
//
// Consistency model: every write transaction takes one transaction-scoped
// advisory lock right after BEGIN, so writers are serialized across every
// process and server on the database, exactly like SQLite's single writer
// (BEGIN IMMEDIATE). Check-then-insert rules (reservation conflicts,
// idempotency keys, message numbers) therefore need no retry logic and give
// the same answers on both backends. Reads run in REPEATABLE READ snapshots
// and never wait for writers.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Advisory lock keys ("bb_write" and "bb_migr8" as big-endian int64).
const (
	WriteLockKey   int64 = 7089333730059842661
	MigrateLockKey int64 = 7089333686959043128
)

// NotifyChannel is the LISTEN/NOTIFY channel every committed write
// transaction signals (the payload is empty: listeners re-read the events
// table from their cursor).
const NotifyChannel = "bb_events"

// Migration is one embedded schema step.
type Migration = sqlstore.Migration

// Migrations returns the embedded migrations in order.
func Migrations() ([]Migration, error) { return sqlstore.LoadMigrations(migrationFS, "migrations") }

// Dialect is the PostgreSQL flavour of sqlstore.
func Dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		Name:      "postgres",
		BeginRead: "BEGIN ISOLATION LEVEL REPEATABLE READ",
		// One round trip (simple protocol, two statements): begin,
		// serialize writers on the advisory lock, and queue a notification
		// that PostgreSQL delivers on COMMIT only (a rolled-back write wakes
		// nobody). A failure after BEGIN leaves the connection in a
		// transaction, which the pgx driver discards instead of reusing.
		BeginWrite: fmt.Sprintf("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(%d), pg_notify('%s', '')",
			WriteLockKey, NotifyChannel),
		// A write that needs only its order serialized (hub.OrderAtCommit)
		// reads without the lock and takes it with its first change, in
		// the same round trip; the lock is held to COMMIT, so every seq
		// it draws is drawn in commit order (docs/postgres.md).
		BeginOrdered: "BEGIN ISOLATION LEVEL READ COMMITTED",
		OrderLock:    fmt.Sprintf("SELECT pg_advisory_xact_lock(%d), pg_notify('%s', '')", WriteLockKey, NotifyChannel),
		Pipeline:     pipeline,
		Dollar:       true,
		IsBusy:       IsBusy,
		IsRetryable:  IsRetryable,
		// Writers are serialized anyway; queueing them in the process
		// first means one connection per process waits on the lock, and
		// a hand-off between goroutines costs no server round trip.
		QueueWritesInProcess: true,
		Schema:               schema,
	}
}

// pipeline sends stmts in one round trip (a pgx batch: one Sync for all),
// on the connection of the open transaction.
func pipeline(ctx context.Context, c *sql.Conn, stmts []sqlstore.Stmt, each func(int, func(...any) error) error) (int64, error) {
	var n int64
	err := c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: unexpected driver connection %T", dc)
		}
		b := &pgx.Batch{}
		for _, st := range stmts {
			b.Queue(st.SQL, st.Args...)
		}
		br := sc.Conn().SendBatch(ctx, b)
		for i := range stmts {
			if each == nil {
				tag, err := br.Exec()
				if err != nil {
					_ = br.Close()
					return err
				}
				n = tag.RowsAffected()
				continue
			}
			rows, err := br.Query()
			if err != nil {
				_ = br.Close()
				return err
			}
			for rows.Next() {
				if err := each(i, rows.Scan); err != nil {
					rows.Close()
					_ = br.Close()
					return err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				_ = br.Close()
				return err
			}
			n = rows.CommandTag().RowsAffected()
		}
		return br.Close()
	})
	return n, err
}

// SQLState returns the SQLSTATE of a PostgreSQL error, or "".
func SQLState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// IsRetryable reports serialization failures and deadlocks: the whole
// transaction may be run again.
func IsRetryable(err error) bool {
	switch SQLState(err) {
	case "40001", "40P01":
		return true
	}
	return false
}

// IsBusy reports transient "try again" states: a lock timeout. (A server
// that is starting up or shutting down is unreachable, see Unreachable.)
func IsBusy(err error) bool {
	switch SQLState(err) {
	case "55P03":
		return true
	}
	return false
}

// IsURL reports whether s looks like a PostgreSQL connection URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the URL without its password, for messages and Location.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	u.Fragment, u.RawFragment = "", "" // never meaningful to PostgreSQL; may hold anything
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Options tune Open.
type Options struct {
	// MaxConns caps the pool (default 16).
	MaxConns int
	// ApplicationName names the connections in pg_stat_activity (unless
	// the URL names them itself).
	ApplicationName string
}

// Open connects to the database at rawURL (postgres://…), applies the
// embedded migrations under an advisory lock, and returns the store.
func Open(ctx context.Context, rawURL string) (*sqlstore.DB, error) {
	return OpenWith(ctx, rawURL, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, rawURL string, o Options) (*sqlstore.DB, error) {
	if !IsURL(rawURL) {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "database-url",
			"database URL must start with postgres:// or postgresql://")
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "database-url", "invalid database URL %s: %s", Redact(rawURL), shortErr(err))
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 16
	}
	if o.ApplicationName != "" && cfg.RuntimeParams["application_name"] == "" {
		if cfg.RuntimeParams == nil {
			cfg.RuntimeParams = map[string]string{}
		}
		cfg.RuntimeParams["application_name"] = o.ApplicationName
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(o.MaxConns)
	db.SetMaxIdleConns(o.MaxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	loc := Redact(rawURL)
	if err := migrate(ctx, db, loc); err != nil {
		db.Close()
		return nil, err
	}
	d := Dialect()
	d.Explain = explain(loc)
	st := sqlstore.New(db, d, loc)
	st.Watch = func(ctx context.Context, wake func(), live func(bool)) error {
		return ListenLive(ctx, rawURL, wake, live, nil)
	}
	bg, stop := context.WithCancel(context.Background())
	st.Grown = newStatsKeeper(bg, db).grown
	st.BeforeClose = stop
	return st, nil
}

// shortErr is a one-line reason without the driver's wrapping noise.
func shortErr(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if u := errors.Unwrap(ce); u != nil {
			return u.Error()
		}
	}
	return err.Error()
}

func connectErr(ctx context.Context, loc string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if Unreachable(err) {
		return hub.Unavailable(fmt.Sprintf("cannot connect to PostgreSQL at %s: %s", loc, shortErr(err)), err)
	}
	return &hub.Error{Code: hub.CodeIOReadFailed,
		Message: fmt.Sprintf("cannot connect to PostgreSQL at %s: %s", loc, shortErr(err)), Err: err}
}

// schema reads the applied and newest schema versions.
func schema(ctx context.Context, db *sql.DB) (applied, latest int, err error) {
	if latest, err = sqlstore.LatestMigration(migrationFS, "migrations"); err != nil {
		return 0, 0, err
	}
	applied, err = SchemaVersion(ctx, db)
	return applied, latest, err
}

// SchemaVersion reads the applied schema version (0 for a fresh database).
func SchemaVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	return v, err
}

// SchemaVersionAt connects to rawURL and returns its schema version (0 for
// a database bb has never opened), without migrating it.
func SchemaVersionAt(ctx context.Context, rawURL string) (int, error) {
	if !IsURL(rawURL) {
		return 0, hub.FieldErr(hub.CodeInvalidInput, "database-url",
			"database URL must start with postgres:// or postgresql://")
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return 0, hub.FieldErr(hub.CodeInvalidInput, "database-url", "invalid database URL %s: %s", Redact(rawURL), shortErr(err))
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	v, err := SchemaVersion(ctx, db)
	if err != nil {
		return 0, connectErr(ctx, Redact(rawURL), err)
	}
	return v, nil
}

func migrate(ctx context.Context, db *sql.DB, loc string) error {
	ms, err := Migrations()
	if err != nil {
		return hub.Internal("read migrations", err)
	}
	latest := ms[len(ms)-1].Version
	conn, err := db.Conn(ctx)
	if err != nil {
		return connectErr(ctx, loc, err)
	}
	defer conn.Close()
	v, err := SchemaVersion(ctx, conn)
	if err != nil {
		return connectErr(ctx, loc, err)
	}
	if v == latest {
		return nil // fast path: every open lands here
	}
	if v > latest {
		return hub.Errorf(hub.CodeSchemaTooNew, "database schema version %d is newer than this binary supports (%d); upgrade bb", v, latest)
	}
	// Session lock: concurrent first-time openers queue here; the next one
	// in sees the new version and applies nothing.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SELECT pg_advisory_lock(%d)", MigrateLockKey)); err != nil {
		return hub.Internal("lock database for migration", err)
	}
	defer func() {
		_, _ = conn.ExecContext(context.Background(), fmt.Sprintf("SELECT pg_advisory_unlock(%d)", MigrateLockKey))
	}()
	if v, err = SchemaVersion(ctx, conn); err != nil {
		return hub.Internal("read schema version", err)
	}
	if v > latest {
		return hub.Errorf(hub.CodeSchemaTooNew, "database schema version %d is newer than this binary supports (%d); upgrade bb", v, latest)
	}
	for _, m := range ms {
		if m.Version <= v {
			continue
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs one migration and records it, in one transaction.
func applyMigration(ctx context.Context, conn *sql.Conn, m Migration) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return hub.Internal("begin migration "+m.Name, err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL)`); err != nil {
		return hub.Internal("create schema_version", err)
	}
	if _, err := conn.ExecContext(ctx, m.SQL); err != nil {
		return hub.Internal("apply migration "+m.Name, err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.Version, m.Name, hub.FormatTime(time.Now())); err != nil {
		return hub.Internal("record migration "+m.Name, err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return hub.Internal("commit migration "+m.Name, err)
	}
	return nil
}

// CountApplication counts the other connections to rawURL's database whose
// application_name is name (bb restore: the bb serve processes).
func CountApplication(ctx context.Context, rawURL, name string) (int, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return 0, hub.FieldErr(hub.CodeInvalidInput, "database-url", "invalid database URL %s: %s", Redact(rawURL), shortErr(err))
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`, name).Scan(&n)
	if err != nil {
		return 0, connectErr(ctx, Redact(rawURL), err)
	}
	return n, nil
}
