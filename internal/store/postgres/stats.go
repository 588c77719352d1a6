package postgres

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"
)

// A young board outgrows its planner statistics. PostgreSQL plans a
// prepared statement from the table's statistics once and keeps that plan
// (each connection of the pool has its own), and autovacuum gathers new
// statistics at most once a minute. So on a board created moments ago the
// hot statements keep plans made for an empty table: a plan that sorts
// every broadcast to find the newest one is as cheap as any other when the
// table is believed to hold one row, and it stays in use while the board
// grows to thousands of messages (measured: the check-in's newest-broadcast
// probe walked all 3,000 broadcasts of a six-second load test).
//
// statsKeeper ANALYZEs the tables every post writes or reads whenever the
// newest message number has grown by growthFactor since the last time
// (from statsFloor on): a new board gets statistics at 256, 1,024,
// 4,096… messages. ANALYZE samples at most 30,000 rows of a table, runs
// beside the writers (it takes no lock they wait for), and makes every
// server re-plan with the new statistics. Past a few hundred thousand
// messages the steps are far apart and autovacuum's own analyses lead.
// Nothing runs while nobody writes.
type statsKeeper struct {
	db      *sql.DB
	ctx     context.Context
	next    atomic.Int64
	running atomic.Bool
}

const (
	statsFloor   = 256
	growthFactor = 4
	// statsTables are the tables a post writes and a check-in reads. The
	// messages' columns are named: with a column list ANALYZE leaves out
	// the expression indexes, whose statistics would run the full-text
	// parser over every sampled message (and no query filters on them).
	statsTables = "messages (id, sender, recipient, type, ttl_hours, created, read_at, acked_at, seq, priority, " +
		"category, thread_id, bead_id, requires_ack, reply_to), message_tags, events, agents, broadcast_acks"
)

// newStatsKeeper starts from the size PostgreSQL's statistics already
// know (none for a new board, or one never analyzed).
func newStatsKeeper(ctx context.Context, db *sql.DB) *statsKeeper {
	k := &statsKeeper{db: db, ctx: ctx}
	var known float64
	_ = db.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'messages'::regclass`).Scan(&known)
	k.next.Store(max(statsFloor, int64(known)*growthFactor))
	return k
}

// grown is sqlstore.DB.Grown: newest is the newest message number a
// commit of this process stored.
func (k *statsKeeper) grown(newest int64) {
	if newest < k.next.Load() || !k.running.CompareAndSwap(false, true) {
		return
	}
	k.next.Store(newest * growthFactor)
	go func() {
		defer k.running.Store(false)
		ctx, cancel := context.WithTimeout(k.ctx, time.Minute)
		defer cancel()
		// A failure (a role that may not analyze, the server going away)
		// only leaves the statistics to autovacuum.
		_, _ = k.db.ExecContext(ctx, "ANALYZE "+statsTables)
	}()
}
