// Package sqlstore implements hub.Store over database/sql with portable SQL.
// The SQLite and PostgreSQL packages provide a connection and a Dialect; the
// queries are written once, here, with '?' placeholders that the dialect
// rebinds.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/hub/credentials"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/memory"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/hub/resume"
	"github.com/blackboard-hub/bb/internal/hub/search"
)

// Dialect captures the differences between SQL backends.
type Dialect struct {
	Name string
	// BeginRead and BeginWrite are the statements that open transactions.
	BeginRead  string
	BeginWrite string
	// AfterBeginWrite runs right after BeginWrite (e.g. an advisory lock).
	AfterBeginWrite string
	// Dollar rebinds '?' placeholders to $1, $2… (PostgreSQL).
	Dollar bool
	// IsBusy reports whether err means "locked, try again later".
	IsBusy func(error) bool
	// Explain, when set, turns a failure caused by the environment (read-only
	// file, full disk, damaged file) into a clear typed error; nil means
	// "not one of those".
	Explain func(error) error
	// IsRetryable reports whether the whole transaction may be retried
	// (serialization failures on PostgreSQL).
	IsRetryable func(error) bool
	// QueueWritesInProcess makes a process's writers wait their turn in
	// the process (a cheap hand-off) before taking the database's write
	// lock, so at most one connection per process waits on it.
	QueueWritesInProcess bool
	// Progress, when set, returns a mark that changes whenever any
	// process commits a write (SQLite: the size and time of the WAL
	// file). A write that finds the database busy then retries as long as
	// others keep committing, and gives up only once no commit at all has
	// been seen for DB.StuckAfter: a busy board is waited for, a stuck
	// one is reported. Nil: a fixed number of attempts.
	Progress func() any
	// GuardLimits writes every "LIMIT ?" as "LIMIT +?" before the query
	// reaches the driver. SQLite reads a bare bound LIMIT while planning
	// and then marks the statement stale on every new binding, so each
	// call would parse the statement again (the statement cache would
	// keep nothing); "+?" is the same value, computed when the statement
	// runs. PostgreSQL would not accept "+$1", and has no such cost.
	GuardLimits bool
	// CacheStatements keeps each connection's prepared statements for
	// reuse by later transactions on that connection, so a long-lived
	// process (bb serve, bb mcp) parses each query once per connection
	// instead of once per call. Backends whose driver caches statements
	// itself (pgx) leave it off.
	CacheStatements bool
	// IndexHints names, in the few reads whose cost must not grow with the
	// board, the index to walk (SQLite's INDEXED BY): SQLite plans
	// without statistics (boards are never ANALYZEd) and would otherwise
	// pick an index that matches more columns but walks every row of a
	// long history. PostgreSQL plans from its statistics.
	IndexHints bool
	// AppendOnly is the conflict clause written after INSERT in appends
	// of one row that never conflict (timeline events). SQLite opens a
	// statement journal (a savepoint, to undo just that statement) for
	// every such insert inside a transaction, because the table has
	// AUTOINCREMENT and a UNIQUE column; with "OR ROLLBACK " it does not:
	// a failure rolls back the whole transaction, which is what any store
	// failure leads to anyway. "" elsewhere.
	AppendOnly string
	// IndexMessagesAtCommit makes the store write the search index of the
	// messages a write transaction added itself, in one statement just
	// before COMMIT, instead of a trigger doing it row by row. SQLite's
	// full-text index turns each statement that writes it inside a
	// transaction into a new index segment (to be merged later), so a
	// trigger per message costs a segment per message; one statement per
	// transaction costs one for the whole group commit. PostgreSQL's index
	// is an expression index kept by the database.
	IndexMessagesAtCommit bool
	// BeginOrdered opens a write marked hub.OrderAtCommit, without the
	// write lock; OrderLock, sent before the transaction's first statement
	// that may change something, takes it (held to the transaction's end).
	// "" for both: such writes begin like any other (SQLite, whose writer
	// lock is the file's).
	BeginOrdered, OrderLock string
	// Pipeline, when set, sends stmts on c in one round trip, in order,
	// stopping at the first failure; with rows it calls rows for every row
	// each statement returns, with the statement's index and the row's
	// scan. It returns the rows affected by the last statement. The store then
	// queues the statements whose answer nobody reads and sends them with
	// the next one that needs an answer, or with COMMIT.
	Pipeline func(ctx context.Context, c *sql.Conn, stmts []Stmt, rows func(i int, scan func(dest ...any) error) error) (int64, error)
	// Schema, when set, reads the database's applied schema version and
	// the newest one this binary has (bb serve's /readyz).
	Schema func(ctx context.Context, db *sql.DB) (applied, latest int, err error)
}

// DB is a hub.Store over a *sql.DB.
type DB struct {
	db       *sql.DB
	dialect  Dialect
	location string
	// notify are called after every committed write (OnCommit).
	notifyMu sync.Mutex
	notify   []func()
	// writeTurn is the in-process queue of QueueWritesInProcess.
	writeTurn chan struct{}
	// idle holds connections kept open between transactions, each with
	// its statement cache (CacheStatements).
	idle chan *pconn
	// Watch, set by backends that can signal commits made by other
	// processes (PostgreSQL LISTEN/NOTIFY, SQLite file notifications),
	// calls wake after such commits until ctx ends, and live with whether
	// the signal can be relied on (hub.CommitSignaler). Nil means "poll".
	Watch func(ctx context.Context, wake func(), live func(bool)) error
	// StuckAfter is how long a busy write keeps retrying without seeing
	// any commit before it fails with DATABASE_BUSY (Dialect.Progress;
	// default DefaultStuckAfter).
	StuckAfter time.Duration
	// OnQuery, when set (tests), sees every statement a transaction runs,
	// after rebinding, with its arguments: query-plan tests use it.
	OnQuery func(query string, args []any)
	// BeforeClose, when set, runs first in Close (a backend stops its
	// background work there).
	BeforeClose func()
	// Grown, when set, is called after a committed write that added
	// messages, with the newest message number it stored (PostgreSQL keeps
	// its planner's statistics up with a young board: see postgres.Open).
	Grown   func(newest int64)
	stats   dbStats
	rebound rebindCache
}

// New wraps db.
func New(db *sql.DB, d Dialect, location string) *DB {
	return &DB{db: db, dialect: d, location: location, writeTurn: make(chan struct{}, 1),
		idle: make(chan *pconn, maxIdleConns)}
}

// SQL returns the underlying pool (for migrations and tests).
func (s *DB) SQL() *sql.DB { return s.db }

// Backend names the dialect.
func (s *DB) Backend() string { return s.dialect.Name }

// Location is where the data lives.
func (s *DB) Location() string { return s.location }

// Close closes the kept connections and the pool.
func (s *DB) Close() error {
	if s.BeforeClose != nil {
		s.BeforeClose()
	}
	for {
		select {
		case c := <-s.idle:
			c.close()
		default:
			return s.db.Close()
		}
	}
}

// Read runs fn in a read transaction.
func (s *DB) Read(ctx context.Context, fn func(hub.Tx) error) error {
	return s.run(ctx, false, fn)
}

// Write runs fn in a serialized write transaction.
func (s *DB) Write(ctx context.Context, fn func(hub.Tx) error) error {
	if s.dialect.QueueWritesInProcess && !s.ordered(ctx) {
		select {
		case s.writeTurn <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-s.writeTurn }()
	}
	err := s.run(ctx, true, fn)
	if err == nil {
		s.notifyMu.Lock()
		fns := s.notify
		s.notifyMu.Unlock()
		for _, f := range fns {
			f()
		}
	}
	return err
}

// ordered reports whether a write made with ctx takes the write lock late
// (hub.OrderAtCommit on a dialect that can).
func (s *DB) ordered(ctx context.Context) bool {
	return s.dialect.BeginOrdered != "" && hub.OrdersAtCommit(ctx)
}

// OnCommit adds fn to what is called after every write this process
// commits (hub.CommitSignaler).
func (s *DB) OnCommit(fn func()) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	s.notify = append(s.notify, fn)
}

// WatchCommits calls wake after commits made by other processes until ctx
// ends, when the backend can signal them (Watch); otherwise it returns nil
// at once and followers poll (hub.CommitSignaler).
func (s *DB) WatchCommits(ctx context.Context, wake func(), live func(bool)) error {
	if s.Watch == nil {
		return nil
	}
	return s.Watch(ctx, wake, live)
}

// maxAttempts bounds the retries of a busy or conflicting transaction
// when the dialect cannot observe progress (Dialect.Progress).
const maxAttempts = 8

// DefaultStuckAfter is DB.StuckAfter's default: with no commit by anyone
// for this long, the database is taken as stuck (a transaction left open,
// a hung process), not busy.
const DefaultStuckAfter = 30 * time.Second

// StuckWatch tells a busy database from a stuck one by a progress mark
// that changes with every commit of any process (Dialect.Progress).
type StuckWatch struct {
	Progress func() any
	// After is how long the mark may stay the same before the database
	// counts as stuck (0: DefaultStuckAfter).
	After time.Duration

	mark    any
	since   time.Time
	started bool
}

// Stuck reports, at now, whether the mark has not changed for After since
// the first call.
func (w *StuckWatch) Stuck(now time.Time) bool {
	m := w.Progress()
	if !w.started || m != w.mark {
		w.mark, w.since, w.started = m, now, true
		return false
	}
	after := w.After
	if after <= 0 {
		after = DefaultStuckAfter
	}
	return now.Sub(w.since) >= after
}

func (s *DB) run(ctx context.Context, write bool, fn func(hub.Tx) error) error {
	var err error
	watch := StuckWatch{Progress: s.dialect.Progress, After: s.StuckAfter}
	for attempt := 0; ; attempt++ {
		err = s.once(ctx, write, fn)
		if err == nil {
			return nil
		}
		var he *hub.Error
		if errors.As(err, &he) && he.Code != hub.CodeInternal {
			return err // a domain decision, not a transient failure
		}
		busy := s.dialect.IsBusy != nil && s.dialect.IsBusy(err)
		retry := busy || (s.dialect.IsRetryable != nil && s.dialect.IsRetryable(err))
		if !retry {
			if s.dialect.Explain != nil {
				if e := s.dialect.Explain(err); e != nil {
					return e
				}
			}
			return hub.Internal("database operation", err)
		}
		if busy && s.dialect.Progress != nil {
			// Busy: keep waiting while someone commits.
			if watch.Stuck(time.Now()) {
				return hub.Busy(err)
			}
		} else if attempt+1 >= maxAttempts {
			return hub.Busy(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(min(attempt, 7)+1) * 5 * time.Millisecond):
		}
	}
}

func (s *DB) once(ctx context.Context, write bool, fn func(hub.Tx) error) (err error) {
	pc, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	keep := false
	defer func() { s.releaseConn(pc, keep) }()
	t, err := s.beginTx(ctx, pc, write)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done && t.begun {
			// Use a fresh context: the caller's may be cancelled, and an
			// open transaction must never be left on a pooled connection.
			_, _ = pc.conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	if write && s.dialect.AfterBeginWrite != "" {
		if _, err := t.exec(ctx, s.dialect.AfterBeginWrite); err != nil {
			return err
		}
	}
	err = fn(t)
	if t.sendErr != nil {
		return t.sendErr
	}
	if err != nil {
		// A domain refusal leaves the connection healthy; anything else
		// (driver error, cancelled context) retires it with its cache.
		var he *hub.Error
		keep = errors.As(err, &he) && he.Code != hub.CodeInternal && len(t.pending) == 0
		return err
	}
	if err := s.commitTx(ctx, pc, t, write); err != nil {
		return err
	}
	done = true
	keep = true
	if t.newest > 0 && s.Grown != nil {
		s.Grown(t.newest)
	}
	return nil
}

// beginTx begins a transaction on pc: a read, a write, or an ordered
// write (hub.OrderAtCommit), whose BEGIN goes with its first statements
// where the dialect pipelines. No transaction is open when it fails.
func (s *DB) beginTx(ctx context.Context, pc *pconn, write bool) (*tx, error) {
	ordered := write && s.ordered(ctx)
	begin := s.dialect.BeginRead
	switch {
	case ordered:
		begin = s.dialect.BeginOrdered
	case write:
		begin = s.dialect.BeginWrite
	}
	s.stats.tx.Add(1)
	// An ordered write sends its BEGIN with its first statements.
	lazyBegin := ordered && s.dialect.Pipeline != nil
	if !lazyBegin {
		s.stats.stmts.Add(1)
		s.stats.trips.Add(1)
		if _, err := pc.ExecContext(ctx, begin); err != nil {
			return nil, err
		}
	}
	t := &tx{q: pc, conn: pc.conn, d: &s.dialect, onQuery: s.OnQuery, stats: &s.stats, ordered: ordered, begun: !lazyBegin,
		rebound: &s.rebound}
	if lazyBegin {
		t.pending = append(t.pending, Stmt{SQL: begin})
	}
	if write && !ordered {
		t.lockedAt = time.Now()
	}
	return t, nil
}

// commitTx indexes the messages t inserted and commits it (with the
// statements still queued, when there are), counting a write's time
// under the write lock.
func (s *DB) commitTx(ctx context.Context, pc *pconn, t *tx, write bool) error {
	if err := t.indexMessages(ctx); err != nil {
		return err
	}
	if len(t.pending) > 0 {
		if _, err := t.send(ctx, Stmt{SQL: "COMMIT"}, nil); err != nil {
			return err
		}
	} else {
		s.stats.stmts.Add(1)
		s.stats.trips.Add(1)
		if _, err := pc.ExecContext(ctx, "COMMIT"); err != nil {
			return err
		}
	}
	if write && !t.lockedAt.IsZero() {
		s.stats.writes.Add(1)
		s.stats.serial.Add(int64(time.Since(t.lockedAt)))
	}
	return nil
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tx implements hub.Tx; its methods live in one file per domain.
type tx struct {
	q       querier
	conn    *sql.Conn
	d       *Dialect
	onQuery func(string, []any)
	stats   *dbStats
	// pending are the statements queued for the next round trip
	// (Dialect.Pipeline).
	pending []Stmt
	// ordered: a write begun without the write lock (hub.OrderAtCommit);
	// lockQueued: its lock statement is queued or sent; lockedAt: when the
	// write lock was known held (zero: not yet).
	ordered, lockQueued bool
	lockedAt            time.Time
	// newest is the highest message number this transaction inserted
	// (DB.Grown).
	newest int64
	// msgSeq is the number of the last message this transaction inserted
	// with a number it chose (0: read MAX(seq) again), so that a group of
	// posts reads the newest number once.
	msgSeq int64
	// begun: BEGIN has been sent (an ordered write sends it with its
	// first statements; one that sent nothing has nothing to roll back).
	begun bool
	// sendErr is the first failure of a pipelined send: it ended the
	// transaction, whatever the statements after it report.
	sendErr error
	// rebound caches rebind's results (nil: none).
	rebound *rebindCache
	// unindexed are the seqs of the messages this transaction added and
	// has not indexed for search yet (Dialect.IndexMessagesAtCommit).
	unindexed []int64
}

var (
	_ hub.Tx         = (*tx)(nil)
	_ hooks.Tx       = (*tx)(nil)
	_ overview.Tx    = (*tx)(nil)
	_ memory.Tx      = (*tx)(nil)
	_ resume.Tx      = (*tx)(nil)
	_ search.Tx      = (*tx)(nil)
	_ credentials.Tx = (*tx)(nil)
	_ agentmail.Tx   = (*tx)(nil)
)

func (t *tx) rebind(q string) string {
	guard := t.d.GuardLimits && strings.Contains(q, "LIMIT ?")
	if !guard && !t.d.Dollar {
		return q
	}
	if t.rebound != nil {
		if r, ok := t.rebound.m.Load(q); ok {
			return r.(string)
		}
	}
	r := q
	if guard {
		r = strings.ReplaceAll(r, "LIMIT ?", "LIMIT +?")
	}
	if t.d.Dollar {
		b := make([]byte, 0, len(r)+16)
		n := int64(0)
		inStr := false
		for i := 0; i < len(r); i++ {
			c := r[i]
			if c == '\'' {
				inStr = !inStr
			}
			if c == '?' && !inStr {
				n++
				b = strconv.AppendInt(append(b, '$'), n, 10)
				continue
			}
			b = append(b, c)
		}
		r = string(b)
	}
	if t.rebound != nil && t.rebound.n.Load() < maxRebound {
		t.rebound.n.Add(1)
		t.rebound.m.Store(q, r)
	}
	return r
}

// rebindCache keeps the rebound text of the queries a long-lived process
// runs again and again (most are constants), up to maxRebound of them.
type rebindCache struct {
	m sync.Map
	n atomic.Int64
}

const maxRebound = 2048

func (t *tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	q = t.rebind(q)
	if t.onQuery != nil {
		t.onQuery(q, args)
	}
	t.beforeWrite(q)
	if t.msgSeq > 0 && strings.HasPrefix(strings.TrimSpace(q), "DELETE FROM messages") {
		t.msgSeq = 0
	}
	if len(t.pending) > 0 && t.pipelined() {
		n, err := t.send(ctx, Stmt{SQL: q, Args: args}, nil)
		return pipeResult(n), err
	}
	t.stats.stmts.Add(1)
	t.stats.trips.Add(1)
	return t.q.ExecContext(ctx, q, args...)
}

// ready sends what is queued before a statement whose rows the caller
// reads (they are not pipelined).
func (t *tx) ready(ctx context.Context, q string) error {
	t.beforeWrite(q)
	t.stats.stmts.Add(1)
	t.stats.trips.Add(1)
	if t.pipelined() {
		return t.flush(ctx)
	}
	return nil
}

func (t *tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	q = t.rebind(q)
	if t.onQuery != nil {
		t.onQuery(q, args)
	}
	if err := t.ready(ctx, q); err != nil {
		return nil, err
	}
	return t.q.QueryContext(ctx, q, args...)
}

// row runs a query of at most one row. A failure to send what was queued
// before it is reported by the row's Scan.
func (t *tx) row(ctx context.Context, q string, args ...any) *sql.Row {
	q = t.rebind(q)
	if t.onQuery != nil {
		t.onQuery(q, args)
	}
	// A failure to send what was queued is kept in t.sendErr (the
	// transaction reports it); the aborted transaction refuses the query.
	_ = t.ready(ctx, q)
	return t.q.QueryRowContext(ctx, q, args...)
}

// indexed is the index hint for the table reference before it: " INDEXED
// BY name" where the dialect takes hints, "" elsewhere.
func (t *tx) indexed(name string) string {
	if !t.d.IndexHints {
		return ""
	}
	return " INDEXED BY " + name
}

// placeholders returns "?, ?, ?" for n values.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// inListMax is how many values one IN (…) list of a lookup takes, well
// under every backend's limit on bound parameters.
const inListMax = 200

// inLists splits ids into runs of at most inListMax for `… IN (` +
// placeholders(n) + `)`: each yields the run's length n and the query's
// arguments, lead first, then the run.
func inLists(ids []string, lead ...any) iter.Seq2[int, []any] {
	return func(yield func(int, []any) bool) {
		for len(ids) > 0 {
			run := ids[:min(len(ids), inListMax)]
			ids = ids[len(run):]
			args := append([]any(nil), lead...)
			for _, id := range run {
				args = append(args, id)
			}
			if !yield(len(run), args) {
				return
			}
		}
	}
}

func ts(t time.Time) string { return hub.FormatTime(t) }

func nullTS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return hub.FormatTime(*t)
}

// rowDecoder reads a row's stored text (timestamps, JSON lists) and keeps
// the first value it cannot read, so that a damaged row becomes an
// internal error naming its table, row and column instead of a zero time
// or a silently empty list.
type rowDecoder struct {
	table string
	row   func() string
	err   error
}

// decodeRow starts decoding one row of table; row names it (its id) once
// scanned.
func decodeRow(table string, row func() string) *rowDecoder {
	return &rowDecoder{table: table, row: row}
}

func (d *rowDecoder) fail(col string, err error) {
	if d.err == nil {
		d.err = &hub.Error{Code: hub.CodeInternal,
			Message: fmt.Sprintf("stored %s row %s has an unreadable %s", d.table, d.row(), col), Err: err}
	}
}

// time parses a NOT NULL timestamp column.
func (d *rowDecoder) time(col, s string) time.Time {
	t, err := hub.ParseTime(s)
	if err != nil {
		d.fail(col, err)
	}
	return t
}

// nullTime parses a nullable timestamp column (NULL or "" is nil).
func (d *rowDecoder) nullTime(col string, s sql.NullString) *time.Time {
	if !s.Valid || s.String == "" {
		return nil
	}
	t := d.time(col, s.String)
	return &t
}

// json decodes a JSON column into into ("" leaves it as it is).
func (d *rowDecoder) json(col, s string, into any) {
	if s == "" {
		return
	}
	if err := json.Unmarshal([]byte(s), into); err != nil {
		d.fail(col, err)
	}
}

// Err is the first failure, or nil.
func (d *rowDecoder) Err() error { return d.err }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CheckSchema reports whether the database answers with the schema this
// binary migrated it to: SCHEMA_TOO_NEW when a newer bb migrated it since,
// an internal error when it is behind (nothing migrated it), the store's
// error when it does not answer.
func (s *DB) CheckSchema(ctx context.Context) error {
	// A read first: its failure is classified as every read's is
	// (DATABASE_UNAVAILABLE, DATABASE_BUSY...).
	if err := s.Read(ctx, func(tx hub.Tx) error { _, err := tx.LastEventSeq(ctx); return err }); err != nil || s.dialect.Schema == nil {
		return err
	}
	applied, latest, err := s.dialect.Schema(ctx, s.db)
	if err != nil {
		return hub.Internal("read the schema version", err)
	}
	switch {
	case applied > latest:
		return hub.Errorf(hub.CodeSchemaTooNew, "database schema version %d is newer than this server supports (%d): a newer bb migrated it; upgrade this server", applied, latest)
	case applied < latest:
		return hub.Errorf(hub.CodeInternal, "database schema version %d is older than this server's (%d): restart the server to migrate it", applied, latest)
	}
	return nil
}
