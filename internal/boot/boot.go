// Package boot is the composition root: the one place that builds the core
// (hub.Service) over a store. Every binary (bb, agent-mail, vybe, bb serve,
// bb mcp) and bb migrate get their app.API here; no surface imports a
// store package, and none sees the Store behind the API.
package boot

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
	"github.com/blackboard-hub/bb/internal/store/storecopy"
)

// EnvDatabaseURL is the environment variable every surface reads for the
// database URL.
const EnvDatabaseURL = "BB_DATABASE_URL"

// Config says which store to open and how to build the service over it.
type Config struct {
	// SQLitePath is the database file of the embedded default.
	SQLitePath string
	// Create makes the SQLite file (and its folder) when missing.
	Create bool
	// InitEmpty lets an existing empty (0-byte) SQLite file become a new
	// board: only for commands whose job is to make one (bb init, bb
	// migrate's target). Any other open refuses such a file (a board
	// whose file was truncated must not silently restart empty).
	InitEmpty bool
	// DatabaseURL, when set (BB_DATABASE_URL / --database-url), selects a
	// server database instead of the file: postgres://… opens PostgreSQL
	// (migrated on connect). Create does not apply to it.
	DatabaseURL string
	// Lazy opens the store on the first call that needs it, so that input
	// rejected by validation creates nothing (agent-mail).
	Lazy bool

	// ProjectRoot is the directory artifact paths and reservation scopes
	// are relative to ("" for the drop-ins that have none).
	ProjectRoot string
	// Clock is the service's clock (nil: the system clock).
	Clock hub.Clock
	// Env reads configuration (BB_AGENT_STALE_MINUTES…); nil means empty.
	Env func(string) string
	// ProcessExits says the process ends right after the command: Close
	// then leaves an SQLite file to the operating system instead of
	// checkpointing it (a faster exit; nothing committed is lost).
	ProcessExits bool
	// BusyTimeoutMS is SQLite's busy_timeout (0 = the default, 5000): how
	// long a call waits for another writer before failing busy (bb hook
	// keeps it short so it fails open fast).
	BusyTimeoutMS int
	// LongLived says the process serves many calls (bb serve, bb mcp): an
	// SQLite board then checkpoints its write-ahead log in the background
	// instead of inside the commit that fills it, and reads pages without
	// a memory map (sqlite.Options.NoMemoryMap); and the store outlives
	// the faults of its database (see guarded): an unreachable database
	// answers DATABASE_UNAVAILABLE until it is back, a board whose files
	// were deleted or replaced under it is reopened.
	LongLived bool
	// ApplicationName names a PostgreSQL board's connections
	// (ServeApplicationName for bb serve).
	ApplicationName string
	// Log, for a LongLived process, hears once about each outage of the
	// database (with its cause) and once about its end, and about every
	// reopen (nil: discarded).
	Log *slog.Logger
}

// backgroundCheckpoint is how often a long-lived process checkpoints the
// SQLite write-ahead log (when it committed anything meanwhile).
const backgroundCheckpoint = 250 * time.Millisecond

// Board is an opened core: the API every surface calls, and what closes it.
type Board struct {
	API app.API
	// Location describes where the data lives (a path or a redacted URL).
	Location string
	// Backend names the storage ("sqlite", "postgres").
	Backend string

	closeFn func()
	once    sync.Once
}

// Close releases the store (once; later calls do nothing).
func (b *Board) Close() {
	b.once.Do(func() {
		if b.closeFn != nil {
			b.closeFn()
		}
	})
}

// Open opens (and migrates) the configured store and returns the service
// over it.
func Open(ctx context.Context, c Config) (*Board, error) {
	var st hub.Store
	if c.Lazy {
		st = &lazyStore{cfg: c}
	} else {
		s, err := openStore(ctx, c)
		if err != nil {
			return nil, err
		}
		st = s
		if c.LongLived {
			st = newGuarded(s, c)
		}
	}
	svc := hub.NewService(st, c.Clock, c.ProjectRoot)
	svc.Env = c.Env
	if !c.Lazy && c.ProjectRoot != "" {
		// An older board's absolute scopes become relative to the
		// repository (migration 040 marks them; only here is the project
		// directory known). One read when there is nothing to do.
		if _, err := svc.RebaseScopes(ctx); err != nil {
			_ = st.Close()
			return nil, err
		}
	}
	b := &Board{API: app.New(svc), Location: st.Location(), Backend: st.Backend()}
	b.closeFn = func() {
		if g, ok := st.(*guarded); ok {
			g.beforeExit()
		}
		if c.ProcessExits && st.Backend() == "sqlite" {
			return // the process exits at once; see Config.ProcessExits
		}
		_ = st.Close()
	}
	return b, nil
}

// IsDatabaseURL reports whether s names a server database (postgres://…)
// rather than a file.
func IsDatabaseURL(s string) bool { return postgres.IsURL(s) }

// SchemaExists reports whether the database at url already holds a board.
func SchemaExists(ctx context.Context, url string) (bool, error) {
	v, err := postgres.SchemaVersionAt(ctx, url)
	return v > 0, err
}

func openStore(ctx context.Context, c Config) (*sqlstore.DB, error) {
	if c.DatabaseURL != "" {
		if !postgres.IsURL(c.DatabaseURL) {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "database-url",
				"unsupported database URL %q: use postgres://user:password@host:port/dbname", postgres.Redact(c.DatabaseURL))
		}
		return postgres.OpenWith(ctx, c.DatabaseURL, postgres.Options{ApplicationName: c.ApplicationName})
	}
	o := sqlite.Options{Create: c.Create, InitEmpty: c.InitEmpty, BusyTimeoutMS: c.BusyTimeoutMS}
	if c.LongLived {
		o.CheckpointEvery = backgroundCheckpoint
		o.NoMemoryMap = true
	}
	return sqlite.Open(ctx, c.SQLitePath, o)
}

// lazyStore opens the store on first use.
type lazyStore struct {
	cfg Config
	mu  sync.Mutex
	st  *sqlstore.DB
	// onCommit are handed to the store once it is open.
	onCommit []func()
}

// OnCommit implements hub.CommitSignaler.
func (l *lazyStore) OnCommit(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st != nil {
		l.st.OnCommit(fn)
		return
	}
	l.onCommit = append(l.onCommit, fn)
}

// WatchCommits implements hub.CommitSignaler.
func (l *lazyStore) WatchCommits(ctx context.Context, wake func(), live func(bool)) error {
	st, err := l.open(ctx)
	if err != nil {
		return err
	}
	return st.(*sqlstore.DB).WatchCommits(ctx, wake, live)
}

func (l *lazyStore) open(ctx context.Context) (hub.Store, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st != nil {
		return l.st, nil
	}
	st, err := openStore(ctx, l.cfg)
	if err != nil {
		return nil, err
	}
	for _, fn := range l.onCommit {
		st.OnCommit(fn)
	}
	l.st = st
	return st, nil
}

// Unborn implements hub.UnbornStore: a SQLite file not opened yet and not
// on disk holds nothing, so a lookup need not create it.
func (l *lazyStore) Unborn() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st != nil || l.cfg.DatabaseURL != "" || l.cfg.SQLitePath == "" {
		return false
	}
	_, err := os.Stat(l.cfg.SQLitePath)
	return errors.Is(err, fs.ErrNotExist)
}

func (l *lazyStore) Read(ctx context.Context, fn func(hub.Tx) error) error {
	st, err := l.open(ctx)
	if err != nil {
		return err
	}
	return st.Read(ctx, fn)
}

func (l *lazyStore) Write(ctx context.Context, fn func(hub.Tx) error) error {
	st, err := l.open(ctx)
	if err != nil {
		return err
	}
	return st.Write(ctx, fn)
}

func (l *lazyStore) opened() hub.Store {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st == nil {
		return nil
	}
	return l.st
}

func (l *lazyStore) Backend() string {
	if st := l.opened(); st != nil {
		return st.Backend()
	}
	if l.cfg.DatabaseURL != "" {
		return "postgres"
	}
	return "sqlite"
}

// Describe names the backend a Config selects ("sqlite", "postgres") and
// where its data lives (the database file, or the URL without its
// password), without opening it.
func (c Config) Describe() (backend, location string) {
	if c.DatabaseURL != "" {
		return "postgres", postgres.Redact(c.DatabaseURL)
	}
	return "sqlite", c.SQLitePath
}

func (l *lazyStore) Location() string {
	if st := l.opened(); st != nil {
		return st.Location()
	}
	if l.cfg.DatabaseURL != "" {
		return postgres.Redact(l.cfg.DatabaseURL)
	}
	return l.cfg.SQLitePath
}

func (l *lazyStore) Close() error {
	if st := l.opened(); st != nil {
		return st.Close()
	}
	return nil
}

// CopyInput is `bb migrate`: copy every row of one board into another.
type CopyInput struct {
	// From and To name the boards; only To's Create is honoured.
	From, To Config
	// Force empties a non-empty target first instead of refusing.
	Force bool
	// Progress, when set, is told each table's progress.
	Progress func(table string, done, total int64)
}

// Side names one board of a copy.
type Side struct {
	Backend  string `json:"backend"`
	Location string `json:"location"`
}

// CopyResult describes a finished copy.
type CopyResult struct {
	From, To Side
	Tables   []storecopy.TableCount
	Rows     int64
}

// Copy copies every row of in.From into in.To and checks that each table's
// counts match.
func Copy(ctx context.Context, in CopyInput) (CopyResult, error) {
	from := in.From
	from.Create = false
	src, err := openStore(ctx, from)
	if err != nil {
		return CopyResult{}, err
	}
	defer src.Close()
	dst, err := openStore(ctx, in.To)
	if err != nil {
		return CopyResult{}, err
	}
	defer dst.Close()
	if src.Backend() == dst.Backend() && src.Location() == dst.Location() {
		return CopyResult{}, hub.FieldErr(hub.CodeInvalidInput, "to", "source and target are the same database (%s)", src.Location())
	}
	res, err := storecopy.Copy(ctx, src, dst, storecopy.Options{Force: in.Force, Progress: in.Progress})
	if err != nil {
		return CopyResult{}, err
	}
	return CopyResult{
		From:   Side{Backend: src.Backend(), Location: src.Location()},
		To:     Side{Backend: dst.Backend(), Location: dst.Location()},
		Tables: res.Tables, Rows: res.Rows,
	}, nil
}
