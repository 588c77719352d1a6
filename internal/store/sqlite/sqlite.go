// Package sqlite opens the embedded default store: a SQLite file in WAL mode
// (modernc.org/sqlite, pure Go), with the schema migrations embedded.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migration is one embedded schema step.
type Migration = sqlstore.Migration

// Migrations returns the embedded migrations in order.
func Migrations() ([]Migration, error) { return sqlstore.LoadMigrations(migrationFS, "migrations") }

// LatestVersion is the newest schema version this binary has.
func LatestVersion() (int, error) { return sqlstore.LatestMigration(migrationFS, "migrations") }

// Dialect is the SQLite flavour of sqlstore.
func Dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		Name:            "sqlite",
		BeginRead:       "BEGIN",
		BeginWrite:      "BEGIN IMMEDIATE",
		IsBusy:          IsBusy,
		CacheStatements: true,
		IndexHints:      true,
		GuardLimits:     true,
		AppendOnly:      "OR ROLLBACK ",
		// New messages are indexed for search in one statement per
		// write transaction (migration 023 dropped the per-row trigger).
		IndexMessagesAtCommit: true,
		// SQLite has one writer at a time: writers of one process (bb
		// serve, bb mcp serving concurrent calls) queue in the process
		// instead of each opening a connection and polling the lock in
		// SQLite's busy handler, which made 50 concurrent posts cost ~3x
		// the CPU of 50 sequential ones (BENCHMARKS.md, MCP pipelining).
		QueueWritesInProcess: true,
		Schema:               schema,
	}
}

// schema reads the applied (PRAGMA user_version) and newest schema versions.
func schema(ctx context.Context, db *sql.DB) (applied, latest int, err error) {
	if latest, err = sqlstore.LatestMigration(migrationFS, "migrations"); err != nil {
		return 0, 0, err
	}
	err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&applied)
	return applied, latest, err
}

// IsBusy reports SQLITE_BUSY / SQLITE_LOCKED.
func IsBusy(err error) bool {
	var se *sqlite3.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3lib.SQLITE_BUSY || c == sqlite3lib.SQLITE_LOCKED
	}
	return false
}

// Options control Open.
type Options struct {
	// Create makes the parent directory and the file when missing.
	Create bool
	// BusyTimeoutMS is SQLite's busy_timeout (default 5000): how long one
	// attempt waits for the write lock inside SQLite.
	BusyTimeoutMS int
	// StuckAfter is how long a write keeps retrying a busy database while
	// no other process commits anything (default
	// sqlstore.DefaultStuckAfter). As long as others commit, it waits.
	StuckAfter time.Duration
	// CheckpointEvery, when > 0, moves the WAL checkpoints of this
	// process's commits out of the commits: SQLite's automatic checkpoint
	// (every 1,000 pages, run by the commit that crosses it, which then
	// copies pages and syncs the file before returning) is off for this
	// process's connections, and a background goroutine checkpoints
	// (PASSIVE: never waits for, nor blocks, readers and writers) at
	// most this often, when this process committed something since the
	// last one. For long-lived processes (bb serve, bb mcp), whose commits
	// then never pay for a checkpoint; other processes keep their own.
	CheckpointEvery time.Duration
	// NoMemoryMap reads pages with system calls instead of through a
	// memory map of the file. SQLite drops a connection's map (and its page
	// cache) at the first read after any other connection committed, and
	// maps the file again: in a process that commits hundreds of times a
	// second (bb serve) that costs more CPU than the map saves, and keeps
	// a few MB more resident. Short-lived processes keep the map.
	NoMemoryMap bool
	// LogResetBytes is, without CheckpointEvery, the size of the
	// write-ahead log past which a commit copies the log into the database
	// file and empties it (default DefaultLogResetBytes; see resetLog).
	LogResetBytes int64
	// InitEmpty lets an existing empty (0-byte) file become a new board;
	// otherwise such a file is refused, whatever Create says.
	InitEmpty bool
}

// A process creating a database on first use (agent-mail, vybe) leaves
// its file empty until its first write: another process that finds an
// empty file modified within creatingWindow waits up to creatingWait for
// it to grow before taking it for an emptied board.
const (
	creatingWindow = 5 * time.Second
	creatingWait   = 2 * time.Second
)

// awaitFirstWrite returns path's file info once it is not empty, or the
// last one seen when the empty file is older than creatingWindow or has
// not grown within creatingWait.
func awaitFirstWrite(path string, fi os.FileInfo) os.FileInfo {
	if time.Since(fi.ModTime()) > creatingWindow {
		return fi
	}
	for deadline := time.Now().Add(creatingWait); time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		next, err := os.Stat(path)
		if err != nil {
			return fi
		}
		if fi = next; fi.Size() > 0 {
			return fi
		}
	}
	return fi
}

// Open opens (and migrates) the database at path.
func Open(ctx context.Context, path string, o Options) (*sqlstore.DB, error) {
	if o.BusyTimeoutMS <= 0 {
		o.BusyTimeoutMS = 5000
	}
	if o.LogResetBytes <= 0 {
		o.LogResetBytes = DefaultLogResetBytes
	}
	if err := prepareFile(path, o); err != nil {
		return nil, err
	}
	readonly := !o.Create && !writable(filepath.Dir(path))
	background := o.CheckpointEvery > 0 && !readonly
	db, err := sql.Open("sqlite", dataSource(path, o, readonly))
	if err != nil {
		return nil, hub.Internal("open database", err)
	}
	// A connection that goes back to the pool stays open until it has
	// been idle a minute (database/sql keeps 2 by default): each new one
	// runs dataSource's pragmas and parses the whole schema on its first
	// statement, which under a burst of concurrent requests on bb serve
	// (120 agents reading) was a quarter of the server's CPU. It never
	// opens more than the burst itself did.
	db.SetMaxIdleConns(256)
	db.SetConnMaxIdleTime(time.Minute)
	if err := migrateWaiting(ctx, db, path, o.StuckAfter); err != nil {
		db.Close()
		if e := Explain(err, path); e != nil {
			return nil, e
		}
		return nil, err
	}
	d := Dialect()
	d.Explain = func(err error) error { return Explain(err, path) }
	d.Progress = walMark(path)
	st := sqlstore.New(db, d, path)
	st.StuckAfter = o.StuckAfter
	watchOthers(st, path)
	if !readonly && !background {
		st.OnCommit(resetLog(ctx, st, path, o.LogResetBytes, o.BusyTimeoutMS))
	}
	if background {
		checkpointInBackground(st, db, o.CheckpointEvery)
	}
	return st, nil
}

// prepareFile checks the database file before SQLite opens it: not a
// directory, there unless o.Create (which creates it, private), and not
// an emptied board's 0-byte file unless o.InitEmpty.
func prepareFile(path string, o Options) error {
	fi, statErr := os.Stat(path)
	if statErr == nil && fi.Size() == 0 && !o.InitEmpty {
		fi = awaitFirstWrite(path, fi)
	}
	switch {
	case statErr == nil && fi.IsDir():
		return isDir(path, nil)
	case !o.Create && statErr != nil:
		return hub.Errorf(hub.CodeNotInitialized, "no database at %s", path)
	case statErr == nil && fi.Size() == 0 && !o.InitEmpty:
		// SQLite would take an empty file for a new database and migrate
		// it: a board whose file was truncated would silently restart
		// empty. One rule for every surface (bb, agent-mail, vybe, which
		// all create a missing file): only a command whose job is to make
		// a board (bb init, bb migrate's target) starts from an empty file.
		return &hub.Error{Code: hub.CodeIOReadFailed, Message: fmt.Sprintf(
			"the database %s is empty (0 bytes), so the board's data is gone: restore it from a backup, or delete the empty file or run 'bb init' to start a new, empty board", path)}
	case o.Create:
		if err := createPrivate(path, statErr == nil); err != nil {
			if errors.Is(err, os.ErrPermission) {
				return readOnly(path, err)
			}
			return &hub.Error{Code: hub.CodeIOWriteFailed, Message: fmt.Sprintf("cannot create %s: %v", path, errors.Unwrap(err)), Err: err}
		}
	}
	return nil
}

// dataSource is the driver's DSN for path: the busy timeout, WAL (or a
// read-only, possibly immutable, open of a board this process cannot
// write beside), and the pragmas every connection runs.
func dataSource(path string, o Options, readonly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeoutMS))
	if readonly {
		// A board in a directory this process cannot write: SQLite cannot
		// create its -wal/-shm files, so open it read-only. Reads work;
		// a write fails with Explain's "read-only" message.
		q.Set("mode", "ro")
		if _, err := os.Stat(path + "-wal"); err != nil {
			// Without a WAL file the database file is all there is, and
			// nothing can change it under us.
			q.Set("immutable", "1")
		}
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
	}
	q.Add("_pragma", "synchronous(NORMAL)")
	// Statement journals in memory: a statement inside a larger write
	// (each post of a group commit) otherwise spills its undo pages to a
	// temporary file, one write system call per page.
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", "foreign_keys(1)")
	// SQLite's own automatic checkpoint is off: the commits of this
	// process checkpoint in the background (CheckpointEvery) or after
	// the commit that grows the log past LogResetBytes (resetLog).
	q.Add("_pragma", "wal_autocheckpoint(0)")
	// Pages read through a memory map, not a system call each: reads that
	// touch rows spread over a large board (a search's matches, an inbox
	// of old mail) cost several times less.
	if !o.NoMemoryMap {
		q.Add("_pragma", "mmap_size(1073741824)")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// watchOthers has st watch the log for other processes' commits
// (watchCommits), leaving this process's own to the commit signal.
func watchOthers(st *sqlstore.DB, path string) {
	// The log's mark after this process's own last commit: the watcher
	// leaves those changes to the commit signal.
	var own atomic.Value
	mark := walMark(path)
	st.OnCommit(func() { own.Store(markOf{mark()}) })
	st.Watch = func(ctx context.Context, wake func(), live func(bool)) error {
		return watchCommits(ctx, path, wake, live, func() any {
			m, _ := own.Load().(markOf)
			return m.v
		})
	}
}

// checkpointInBackground checkpoints db every interval after commits, on
// its own goroutine, until st closes.
func checkpointInBackground(st *sqlstore.DB, db *sql.DB, every time.Duration) {
	committed := make(chan struct{}, 1)
	st.OnCommit(func() {
		select {
		case committed <- struct{}{}:
		default:
		}
	})
	stop := make(chan struct{})
	done := make(chan struct{})
	st.BeforeClose = func() { close(stop); <-done }
	go checkpoints(db, every, committed, stop, done)
}

// checkpoints runs a PASSIVE checkpoint every interval in which this
// process committed (committed receives a signal per commit), until stop
// is closed; it closes done when it returns. Without commits it waits
// without waking at all. It keeps one connection for this (opened at the
// first checkpoint, with a small page cache: a checkpoint copies pages
// without caching them), so no checkpoint opens one. A checkpoint that
// fails (another process is checkpointing) is simply tried again after
// the next commit.
func checkpoints(db *sql.DB, every time.Duration, committed <-chan struct{}, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	ctx := context.Background()
	t := time.NewTimer(every)
	t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-committed:
		}
		// Let the commits of one interval share one checkpoint.
		t.Reset(every)
		select {
		case <-stop:
			return
		case <-t.C:
		}
		select { // the commits meanwhile are covered by this checkpoint
		case <-committed:
		default:
		}
		if conn == nil {
			c, err := db.Conn(ctx)
			if err != nil {
				continue
			}
			conn = c
			_, _ = conn.ExecContext(ctx, "PRAGMA cache_size = 16")
		}
		if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil && !IsBusy(err) {
			conn.Close() // a broken connection: open another next time
			conn = nil
		}
	}
}

// DefaultLogResetBytes is Options.LogResetBytes's default: about 1,000
// pages, the size at which SQLite's own automatic checkpoint runs.
const DefaultLogResetBytes = 4 << 20

// resetLog returns the OnCommit of a process without background
// checkpoints (every one-shot command): once the log has grown past limit
// bytes, it checkpoints and truncates it to zero bytes.
//
// SQLite's automatic checkpoint is not enough for processes that each
// open the board, commit and exit: every process that opens a log no
// other process holds open rebuilds the log's index by reading every
// frame of it (and counts them all as not copied yet), and SQLite starts
// writing the log from its beginning again only at the *next* write of
// the process that checkpointed — which a one-shot process never makes.
// The log then grew without end (3,400 frames, 14 MB, after 150 posts),
// every process start read all of it, and every commit past 1,000 pages
// copied all of it again. A TRUNCATE checkpoint empties the file at once.
//
// It never waits: with busy_timeout 0 a checkpoint that meets another
// writer or a reader of older frames copies what it can and leaves the
// reset to a later commit (SQLite reports that as a row, not an error).
func resetLog(ctx context.Context, st *sqlstore.DB, path string, limit int64, busyMS int) func() {
	wal := path + "-wal"
	return func() {
		fi, err := os.Stat(wal)
		if err != nil || fi.Size() < limit {
			return
		}
		_ = st.Exec(context.WithoutCancel(ctx), "PRAGMA busy_timeout = 0", "PRAGMA wal_checkpoint(TRUNCATE)",
			fmt.Sprintf("PRAGMA busy_timeout = %d", busyMS))
	}
}

// walMark returns the Progress of the board at path: every commit appends
// to (or, after a checkpoint, rewrites) the WAL file, so its size and
// modification time change with each commit of any process.
func walMark(path string) func() any {
	wal := path + "-wal"
	return func() any {
		fi, err := os.Stat(wal)
		if err != nil {
			return nil
		}
		return [2]int64{fi.Size(), fi.ModTime().UnixNano()}
	}
}

// markOf boxes a walMark value for an atomic.Value (which refuses nil and
// values of changing types).
type markOf struct{ v any }

// migrateWaiting runs migrate, and while it finds the database busy (many
// processes opening a new board at once: one creates the schema, the
// others wait for it) tries again until the board looks stuck — the rule
// of a busy write (sqlstore.StuckWatch over the WAL, stuckAfter or
// sqlstore.DefaultStuckAfter without a commit).
func migrateWaiting(ctx context.Context, db *sql.DB, path string, stuckAfter time.Duration) error {
	watch := sqlstore.StuckWatch{Progress: walMark(path), After: stuckAfter}
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := migrate(ctx, db)
		var he *hub.Error
		if err == nil || !(IsBusy(err) || errors.As(err, &he) && he.Code == hub.CodeDatabaseBusy) {
			return err
		}
		if watch.Stuck(time.Now()) {
			return asBusy(err)
		}
		select {
		case <-ctx.Done():
			return asBusy(err)
		case <-time.After(wait):
		}
	}
}

// asBusy reports a busy failure as DATABASE_BUSY.
func asBusy(err error) error {
	var he *hub.Error
	if errors.As(err, &he) && he.Code == hub.CodeDatabaseBusy {
		return err
	}
	return hub.Busy(err)
}

func migrate(ctx context.Context, db *sql.DB) error {
	latest, err := sqlstore.LatestMigration(migrationFS, "migrations")
	if err != nil {
		return hub.Internal("read migrations", err)
	}
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		if IsBusy(err) {
			return hub.Busy(err)
		}
		return &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read database: " + err.Error(), Err: err}
	}
	if v == latest {
		return nil // fast path: every CLI call lands here
	}
	if v > latest {
		return hub.Errorf(hub.CodeSchemaTooNew, "database schema version %d is newer than this binary supports (%d); upgrade bb", v, latest)
	}
	ms, err := Migrations()
	if err != nil {
		return hub.Internal("read migrations", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return hub.Internal("open database", err)
	}
	defer conn.Close()
	// BEGIN IMMEDIATE is the lock: concurrent first-time openers queue on
	// it, and the loser sees the new version and applies nothing.
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return hub.Internal("lock database for migration", err)
	}
	ok := false
	defer func() {
		if !ok {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return hub.Internal("read schema version", err)
	}
	for _, m := range ms {
		if m.Version <= v {
			continue
		}
		if _, err := conn.ExecContext(ctx, m.SQL); err != nil {
			return hub.Internal("apply migration "+m.Name, err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
			return hub.Internal("record migration "+m.Name, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return hub.Internal("commit migration", err)
	}
	ok = true
	return nil
}

// createPrivate makes a new board its owner's alone, whatever the umask:
// a directory it creates is 0700, a database file it creates 0600 (SQLite
// gives the -wal and -shm files the database file's mode). Whatever
// exists already keeps its mode: a board its user opened up on purpose
// stays open.
func createPrivate(path string, exists bool) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	if exists {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}
