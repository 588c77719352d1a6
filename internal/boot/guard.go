package boot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
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
// Calls hold mu for reading for their whole run, so that no commit can go
// into a log after it was saved; a reopen holds it for writing, so it runs
// between calls. (A store call made from inside another's transaction
// function would wait for a pending reopen that waits for it: the core
// never nests them, and sqlstore's in-process write queue forbids it too.)
type guarded struct {
	cfg Config
	log *slog.Logger

	mu sync.RWMutex
	st *sqlstore.DB
	// db and wal identify the SQLite files the store opened (wal is nil
	// for a board opened read-only without a log).
	db, wal os.FileInfo
	// isSQLite: the board is an SQLite file (checked and reopened).
	isSQLite bool
	// lastCheck is when the files were last checked before a call
	// (UnixNano; see checkEvery).
	lastCheck atomic.Int64
	// filesBad is set while the last check failed: every call checks.
	filesBad atomic.Bool
	// onCommit are handed to every store opened.
	onCommit []func()
	// closed is set while st is closed (a reopen failed); reopenErr is
	// the failure last logged.
	closed    bool
	reopenErr string
	// ended is set by Close: nothing is reopened after it.
	ended bool

	// The outage: down since since; up again at upAt. Calls run
	// concurrently and finish out of order, so a call's result counts only
	// if it started after the last change (a call that began before the
	// database went away may still succeed after a later one failed).
	omu   sync.Mutex
	down  bool
	since time.Time
	upAt  time.Time
}

const logGone = "its -wal file was deleted or replaced by another program"

func newGuarded(st *sqlstore.DB, c Config) *guarded {
	g := &guarded{cfg: c, st: st, log: c.Log}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.db, g.wal = g.identify()
	g.isSQLite = g.db != nil
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

func (g *guarded) sqlite() bool { return g.isSQLite }

func (g *guarded) Read(ctx context.Context, fn func(hub.Tx) error) error {
	return g.do(ctx, false, fn)
}

func (g *guarded) Write(ctx context.Context, fn func(hub.Tx) error) error {
	return g.do(ctx, true, fn)
}

func (g *guarded) do(ctx context.Context, write bool, fn func(hub.Tx) error) error {
	for attempt := 0; ; attempt++ {
		start := time.Now()
		if g.sqlite() && (attempt > 0 || g.checkDue(start)) {
			err := g.checkFiles(ctx)
			g.filesBad.Store(err != nil)
			if err != nil {
				g.fault(err, start)
				return err
			}
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
			lost, rerr := g.reopen(ctx, logGone)
			if err == nil {
				if lost != nil {
					// Committed, but not copied out of the deleted log:
					// say so instead of claiming success.
					return lost
				}
				// Committed, and in the database file (or in the file
				// moved away, where it stays).
				g.healthy(start)
				return nil
			}
			if rerr == nil && attempt == 0 && !hub.IsCode(err, hub.CodeDatabaseUnavailable) {
				continue
			}
		}
		// A call that failed on the files another call has reopened
		// since (it saw the log replaced first, so logReplaced is false
		// here) is tried once on the new files, like the one above.
		if err != nil && attempt == 0 && g.sqlite() && g.replacedSince(st) && !hub.IsCode(err, hub.CodeDatabaseUnavailable) {
			continue
		}
		switch {
		case err == nil:
			g.healthy(start)
		case hub.IsCode(err, hub.CodeDatabaseUnavailable):
			g.fault(err, start)
		}
		return err
	}
}

// checkEvery spaces the checks of the board's files before calls (two
// stats, several microseconds on a busy machine: as much as a small read).
// Between checks, calls run on the files opened, which is what they did
// anyway; a write is always followed by a check of its log.
const checkEvery = 50 * time.Millisecond

// checkDue reports whether the files are to be checked before a call
// starting at now (always while the last check failed), and records that
// they are.
func (g *guarded) checkDue(now time.Time) bool {
	if g.filesBad.Load() {
		return true
	}
	last := g.lastCheck.Load()
	if now.UnixNano()-last < int64(checkEvery) {
		return false
	}
	return g.lastCheck.CompareAndSwap(last, now.UnixNano())
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
		return g.missing()
	case err != nil:
		return hub.Unavailable(fmt.Sprintf("cannot reach the board's database %s: %v", g.cfg.SQLitePath, errors.Unwrap(err)), err)
	}
	g.mu.RLock()
	same, closed, ended := os.SameFile(fi, g.db), g.closed, g.ended
	g.mu.RUnlock()
	if ended {
		return nil
	}
	why := ""
	switch {
	case closed:
		why = "an earlier reopen failed"
	case !same:
		why = "the file at its path was replaced"
	case g.logReplaced():
		why = logGone
	default:
		return nil
	}
	_, err = g.reopen(ctx, why)
	return err
}

// replacedSince reports whether the store was reopened since st was the
// one calls ran on.
func (g *guarded) replacedSince(st *sqlstore.DB) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.st != st
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
// all the calls that noticed the same change. lost reports commits that
// could not be saved; err, that the board could not be reopened (the next
// call tries again).
func (g *guarded) reopen(ctx context.Context, why string) (lost, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	db, wal := g.identify()
	if db == nil {
		// Moved away or deleted: an outage until it is back (the store
		// still has the file open; calls resume on it if it returns).
		return nil, g.missing()
	}
	if !g.closed && os.SameFile(db, g.db) && (g.wal == nil || wal != nil && os.SameFile(wal, g.wal)) {
		return nil, nil // another call reopened it already
	}
	start := time.Now()
	if !g.closed {
		if os.SameFile(db, g.db) {
			lost = g.saveLog(ctx)
		}
		_ = g.st.Close()
		g.closed = true
	}
	st, err := openStore(context.WithoutCancel(ctx), g.cfg)
	if err != nil {
		// Calls fail with this error until a reopen succeeds (each call
		// tries again); logged once per different failure.
		if msg := hub.MessageOf(err); msg != g.reopenErr {
			g.reopenErr = msg
			g.log.Error("database: cannot reopen the board", "path", g.cfg.SQLitePath, "why", why, "cause", msg)
		}
		return lost, err
	}
	for _, fn := range g.onCommit {
		st.OnCommit(fn)
	}
	g.st, g.closed, g.reopenErr = st, false, ""
	g.db, g.wal = g.identify()
	g.log.Warn("database: reopened the board", "path", g.cfg.SQLitePath, "why", why, "took", time.Since(start).Round(time.Millisecond))
	return lost, nil
}

// missing is the failure of every call while the database file is not at
// its path.
func (g *guarded) missing() error {
	return hub.Unavailable(fmt.Sprintf("the board's database %s is missing (moved or deleted while this process runs): put it back and retry; nothing else is needed", g.cfg.SQLitePath), fs.ErrNotExist)
}

// saveLog copies the commits of a deleted or replaced -wal file into the
// database file. The connections kept open still read and write the
// deleted log: a checkpoint through one of them copies its commits and
// empties it. A connection opened since then sees the new log and fails;
// the next one is tried. Call with mu held for writing.
func (g *guarded) saveLog(ctx context.Context) error {
	if g.wal == nil {
		return nil
	}
	var err error
	for i := 0; i < 10; i++ {
		if err = g.st.Exec(context.WithoutCancel(ctx), "PRAGMA wal_checkpoint(TRUNCATE)"); err == nil {
			return nil
		}
	}
	g.log.Error("database: the -wal file was deleted and its last commits could not be saved into the database file", "path", g.cfg.SQLitePath, "cause", err)
	return &hub.Error{Code: hub.CodeIOWriteFailed, Err: err, Message: fmt.Sprintf(
		"the write-ahead log of %s was deleted while this process had it open, and its last commits could not be copied into the database file", g.cfg.SQLitePath)}
}

// beforeExit saves, when the process ends, the commits of a -wal file
// deleted since the last call (the process exits without closing the
// store, see Config.ProcessExits, and its connections hold the only copy).
func (g *guarded) beforeExit() {
	if !g.sqlite() || !g.logReplaced() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		_ = g.saveLog(context.Background())
	}
}

// fault records an outage: logged once, with its cause, until a call
// started since succeeds.
func (g *guarded) fault(err error, start time.Time) {
	if !hub.IsCode(err, hub.CodeDatabaseUnavailable) {
		return
	}
	g.omu.Lock()
	defer g.omu.Unlock()
	if g.down || start.Before(g.upAt) {
		return
	}
	g.down, g.since = true, time.Now()
	cause := err
	for u := errors.Unwrap(cause); u != nil; u = errors.Unwrap(cause) {
		cause = u
	}
	g.log.Error("database unavailable: calls answer DATABASE_UNAVAILABLE until it is back", "where", g.Location(), "reason", hub.MessageOf(err), "cause", cause)
}

// outageSettle is how long after an outage of a database server began a
// call must start for its success to end the outage. A stopping
// PostgreSQL ends its sessions one by one: for a moment a call on a
// session not yet ended still succeeds, and the outage would be logged as
// over and begun again. (An embedded board's file is back when it is.)
const outageSettle = 100 * time.Millisecond

// healthy ends an outage (logged once) when a call started since it
// began (and settled) succeeds.
func (g *guarded) healthy(start time.Time) {
	g.omu.Lock()
	defer g.omu.Unlock()
	settle := outageSettle
	if g.sqlite() {
		settle = 0
	}
	if !g.down || start.Before(g.since.Add(settle)) {
		return
	}
	g.down, g.upAt = false, time.Now()
	g.log.Warn("database reachable again", "where", g.Location(), "outage", time.Since(g.since).Round(time.Millisecond))
}

// OnCommit implements hub.CommitSignaler.
func (g *guarded) OnCommit(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.onCommit = append(g.onCommit, fn)
	g.st.OnCommit(fn)
}

// WatchCommits implements hub.CommitSignaler: PostgreSQL's listener
// reconnects by itself; SQLite's watch follows the board's file names, so
// it outlives a reopen of the store.
func (g *guarded) WatchCommits(ctx context.Context, wake func(), live func(bool)) error {
	g.mu.RLock()
	st := g.st
	g.mu.RUnlock()
	return st.WatchCommits(ctx, wake, live)
}

// CheckSchema implements hub.SchemaChecker.
func (g *guarded) CheckSchema(ctx context.Context) error {
	g.mu.RLock()
	st := g.st
	g.mu.RUnlock()
	return st.CheckSchema(ctx)
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
	g.ended = true
	if g.closed {
		return nil
	}
	g.closed = true
	return g.st.Close()
}

var _ hub.Store = (*guarded)(nil)
