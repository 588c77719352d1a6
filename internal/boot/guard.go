package boot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
)

// guarded is the store of a long-lived process (bb serve, bb mcp): it
// outlives the faults of its database instead of failing every call until
// a restart.
//
//   - A database that cannot be reached (a PostgreSQL server restarting,
//     the board file moved away) fails calls with DATABASE_UNAVAILABLE;
//     each outage is logged once, with its cause, and its end once.
//   - An SQLite board whose -wal file was deleted (or replaced) under the
//     process is recovered: the commits in the deleted log, which the
//     process's connections still hold open, are copied into the database
//     file by a checkpoint through one of those connections, then the store
//     is reopened on the files now at the path. A write that committed into
//     the deleted log is answered only after that copy, so no acknowledged
//     write is lost.
//   - An SQLite file replaced at its path (a backup put back) is reopened.
//
// Calls hold mu for reading; a reopen holds it for writing, so it runs
// between calls.
type guarded struct {
	cfg Config
	log *slog.Logger

	mu sync.RWMutex
	st *sqlstore.DB
	// db and wal identify the SQLite files the store opened (nil for
	// PostgreSQL, and wal for a board opened read-only without a log).
	db, wal os.FileInfo
	// onCommit are handed to every store opened.
	onCommit []func()

	omu   sync.Mutex
	down  bool
	since time.Time
}

func newGuarded(st *sqlstore.DB, c Config) *guarded {
	g := &guarded{cfg: c, st: st, log: c.Log}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.db, g.wal = g.identify()
	return g
}

// identify returns the identity of the SQLite files at their paths now.
func (g *guarded) identify() (db, wal os.FileInfo) {
	if g.cfg.SQLitePath == "" || g.cfg.DatabaseURL != "" {
		return nil, nil
	}
	db, _ = os.Stat(g.cfg.SQLitePath)
	wal, _ = os.Stat(g.cfg.SQLitePath + "-wal")
	return db, wal
}

func (g *guarded) sqlite() bool { return g.db != nil }

func (g *guarded) Read(ctx context.Context, fn func(hub.Tx) error) error {
	return g.do(ctx, false, fn)
}

func (g *guarded) Write(ctx context.Context, fn func(hub.Tx) error) error {
	return g.do(ctx, true, fn)
}

func (g *guarded) do(ctx context.Context, write bool, fn func(hub.Tx) error) error {
	for attempt := 0; ; attempt++ {
		if err := g.checkFiles(ctx); err != nil {
			g.fault(err)
			return err
		}
		g.mu.RLock()
		st := g.st
		var err error
		if write {
			err = st.Write(ctx, fn)
		} else {
			err = st.Read(ctx, fn)
		}
		g.mu.RUnlock()
		// A commit that went into a log deleted meanwhile is answered
		// only once it is in the database file; a failure caused by a
		// log replaced under the connection is tried again on the new
		// files (nothing was stored: the transaction did not commit).
		if g.sqlite() && (write || err != nil) && g.logReplaced() {
			rerr := g.reopen(ctx, "its -wal file was deleted or replaced by another program")
			if err == nil {
				if rerr != nil {
					// Committed, but not copied out of the deleted log:
					// say so instead of claiming success.
					g.fault(rerr)
					return rerr
				}
				g.healthy()
				return nil
			}
			if rerr == nil && attempt == 0 && !hub.IsCode(err, hub.CodeDatabaseUnavailable) {
				continue
			}
		}
		switch {
		case err == nil:
			g.healthy()
		case hub.IsCode(err, hub.CodeDatabaseUnavailable):
			g.fault(err)
		}
		return err
	}
}

// checkFiles compares the SQLite files at their paths with the ones the
// store opened: a missing database file is an outage (it was moved or
// deleted; calls work again once it is back), a different one is reopened.
func (g *guarded) checkFiles(ctx context.Context) error {
	if !g.sqlite() {
		return nil
	}
	fi, err := os.Stat(g.cfg.SQLitePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return hub.Unavailable(fmt.Sprintf("the board's database %s is missing (moved or deleted while this process runs): put it back and retry; nothing else is needed", g.cfg.SQLitePath), err)
	case err != nil:
		return hub.Unavailable(fmt.Sprintf("cannot reach the board's database %s: %v", g.cfg.SQLitePath, errors.Unwrap(err)), err)
	}
	g.mu.RLock()
	same := os.SameFile(fi, g.db)
	g.mu.RUnlock()
	if !same {
		return g.reopen(ctx, "the file at its path was replaced")
	}
	if g.logReplaced() {
		return g.reopen(ctx, "its -wal file was deleted or replaced by another program")
	}
	return nil
}

// logReplaced reports whether the -wal file the store opened is no longer
// the one at its path.
func (g *guarded) logReplaced() bool {
	g.mu.RLock()
	wal := g.wal
	g.mu.RUnlock()
	if wal == nil {
		return false
	}
	fi, err := os.Stat(g.cfg.SQLitePath + "-wal")
	return err != nil || !os.SameFile(fi, wal)
}

// reopen saves what the deleted log holds into the database file, then
// closes the store and opens the files now at the path. It runs once for
// all the calls that noticed the same change.
func (g *guarded) reopen(ctx context.Context, why string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	db, wal := g.identify()
	if db != nil && os.SameFile(db, g.db) && (g.wal == nil || wal != nil && os.SameFile(wal, g.wal)) {
		return nil // another call reopened it already
	}
	start := time.Now()
	if db != nil && os.SameFile(db, g.db) && g.wal != nil {
		// The connections kept open still read and write the deleted log:
		// a checkpoint through one of them copies its commits into the
		// database file and empties it. A connection opened since then
		// sees the new, empty log and fails; try the next one.
		var err error
		for i := 0; i < 10; i++ {
			if err = g.st.Exec(context.WithoutCancel(ctx), "PRAGMA wal_checkpoint(TRUNCATE)"); err == nil {
				break
			}
		}
		if err != nil {
			g.log.Error("database: the -wal file was deleted and its last commits could not be saved into the database file", "path", g.cfg.SQLitePath, "cause", err)
		}
	}
	_ = g.st.Close()
	st, err := openStore(context.WithoutCancel(ctx), g.cfg)
	if err != nil {
		// Try again at the next call (g.st stays the closed store, whose
		// calls fail, until then; the files' identity is kept so that the
		// next call retries the reopen).
		g.log.Error("database: cannot reopen the board", "path", g.cfg.SQLitePath, "why", why, "cause", err)
		return err
	}
	for _, fn := range g.onCommit {
		st.OnCommit(fn)
	}
	g.st = st
	g.db, g.wal = g.identify()
	g.log.Warn("database: reopened the board", "path", g.cfg.SQLitePath, "why", why, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// fault records an outage: logged once, with its cause, until a call
// succeeds again.
func (g *guarded) fault(err error) {
	if !hub.IsCode(err, hub.CodeDatabaseUnavailable) {
		return
	}
	g.omu.Lock()
	defer g.omu.Unlock()
	if g.down {
		return
	}
	g.down, g.since = true, time.Now()
	cause := err
	for u := errors.Unwrap(cause); u != nil; u = errors.Unwrap(cause) {
		cause = u
	}
	g.log.Error("database unavailable: calls answer DATABASE_UNAVAILABLE until it is back", "where", g.Location(), "reason", hub.MessageOf(err), "cause", cause)
}

// healthy ends an outage (logged once).
func (g *guarded) healthy() {
	g.omu.Lock()
	defer g.omu.Unlock()
	if !g.down {
		return
	}
	g.down = false
	g.log.Warn("database reachable again", "where", g.Location(), "outage", time.Since(g.since).Round(time.Millisecond))
}

// OnCommit implements hub.CommitSignaler.
func (g *guarded) OnCommit(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.onCommit = append(g.onCommit, fn)
	g.st.OnCommit(fn)
}

// WatchCommits implements hub.CommitSignaler (PostgreSQL's listener
// reconnects by itself; SQLite has none).
func (g *guarded) WatchCommits(ctx context.Context, wake func()) error {
	g.mu.RLock()
	st := g.st
	g.mu.RUnlock()
	return st.WatchCommits(ctx, wake)
}

func (g *guarded) Backend() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.st.Backend()
}

func (g *guarded) Location() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.st.Location()
}

func (g *guarded) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st.Close()
}

var _ hub.Store = (*guarded)(nil)
