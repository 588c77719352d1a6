package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync/atomic"
	"time"
)

// Stmt is one statement of a pipeline (Dialect.Pipeline), already rebound.
type Stmt struct {
	SQL  string
	Args []any
}

// Stats are running totals of what the store sent to the database, for
// benchmarks and for the tests that check what an idle server does.
type Stats struct {
	// Transactions begun (read and write), statements sent (BEGIN and
	// COMMIT included, each statement of a pipeline counted), and round
	// trips (a pipeline of many statements is one).
	Transactions, Statements, RoundTrips int64
	// Writes committed, and the time they held the write lock: from the
	// moment the lock was known held (SQLite: BEGIN IMMEDIATE returned;
	// PostgreSQL: the advisory lock's statement answered) to the moment
	// COMMIT answered. That is the serial section every writer of the
	// database waits for.
	Writes     int64
	SerialTime time.Duration
}

type dbStats struct {
	tx, stmts, trips, writes, serial atomic.Int64
}

// Stats returns the running totals since the store was opened.
func (s *DB) Stats() Stats {
	return Stats{
		Transactions: s.stats.tx.Load(), Statements: s.stats.stmts.Load(), RoundTrips: s.stats.trips.Load(),
		Writes: s.stats.writes.Load(), SerialTime: time.Duration(s.stats.serial.Load()),
	}
}

// isWriteSQL reports whether q may change something: anything that is not
// a plain SELECT.
func isWriteSQL(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	return len(q) < 6 || !strings.EqualFold(q[:6], "SELECT")
}

// beforeWrite takes the write lock of an ordered transaction
// (hub.OrderAtCommit) before its first statement that may change
// something: the lock's statement is queued, to travel with the next
// round trip.
func (t *tx) beforeWrite(q string) {
	if t.ordered && !t.lockQueued && isWriteSQL(q) {
		t.orderLock()
	}
}

// orderLock queues the write lock of an ordered transaction now, whatever
// comes next (a read that must see every commit ordered before this one,
// such as the newest message number).
func (t *tx) orderLock() {
	if !t.ordered || t.lockQueued {
		return
	}
	t.lockQueued = true
	t.pending = append(t.pending, Stmt{SQL: t.d.OrderLock})
}

// pipelined reports whether statements may be queued and sent together.
func (t *tx) pipelined() bool { return t.d.Pipeline != nil && t.conn != nil }

// execBlind runs a statement whose outcome the caller does not look at
// beyond its success (an insert or update without RETURNING, whose rows
// affected nobody reads). Where the dialect pipelines, it is queued and
// sent with the next statement that needs an answer, or with COMMIT; a
// failure then surfaces there, which ends the transaction the same way.
func (t *tx) execBlind(ctx context.Context, q string, args ...any) error {
	if !t.pipelined() {
		_, err := t.exec(ctx, q, args...)
		return err
	}
	q = t.rebind(q)
	if t.onQuery != nil {
		t.onQuery(q, args)
	}
	t.beforeWrite(q)
	t.pending = append(t.pending, Stmt{SQL: q, Args: args})
	return nil
}

// send runs the queued statements followed by last (when not empty) in
// one round trip, scanning last's single row into dest when given, and
// returns last's rows affected.
func (t *tx) send(ctx context.Context, last Stmt, dest []any) (n int64, err error) {
	stmts := t.pending
	if last.SQL != "" {
		stmts = append(stmts, last)
	}
	t.pending = nil
	if len(stmts) == 0 {
		return 0, nil
	}
	var rows func(int, func(...any) error) error
	if dest != nil {
		found := false
		last := len(stmts) - 1
		rows = func(i int, scan func(...any) error) error {
			if i != last || found {
				return nil
			}
			found = true
			return scan(dest...)
		}
		defer func() {
			if err == nil && !found {
				err = sql.ErrNoRows
			}
		}()
	}
	return t.pipe(ctx, stmts, rows)
}

// sendRows sends the queued statements in one round trip, calling rows
// with each row of each (by its index among them).
func (t *tx) sendRows(ctx context.Context, rows func(i int, scan func(...any) error) error) (int64, error) {
	stmts := t.pending
	t.pending = nil
	return t.pipe(ctx, stmts, rows)
}

func (t *tx) pipe(ctx context.Context, stmts []Stmt, rows func(int, func(...any) error) error) (int64, error) {
	t.begun = true
	t.stats.stmts.Add(int64(len(stmts)))
	t.stats.trips.Add(1)
	n, err := t.d.Pipeline(ctx, t.conn, stmts, rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) && t.sendErr == nil {
		t.sendErr = err
	}
	if err == nil && t.lockQueued && t.lockedAt.IsZero() {
		t.lockedAt = time.Now()
	}
	return n, err
}

// flush sends the queued statements, if any.
func (t *tx) flush(ctx context.Context) error {
	if len(t.pending) == 0 {
		return nil
	}
	_, err := t.send(ctx, Stmt{}, nil)
	return err
}

// scalar runs a query of one row into dest, in the same round trip as the
// queued statements where the dialect pipelines.
func (t *tx) scalar(ctx context.Context, dest []any, q string, args ...any) error {
	t.beforeWrite(q)
	if !t.pipelined() || len(t.pending) == 0 {
		return t.row(ctx, q, args...).Scan(dest...)
	}
	q = t.rebind(q)
	if t.onQuery != nil {
		t.onQuery(q, args)
	}
	_, err := t.send(ctx, Stmt{SQL: q, Args: args}, dest)
	return err
}

// pipeResult is the sql.Result of a statement sent in a pipeline.
type pipeResult int64

func (r pipeResult) LastInsertId() (int64, error) {
	return 0, errors.New("LastInsertId is not supported")
}
func (r pipeResult) RowsAffected() (int64, error) { return int64(r), nil }
