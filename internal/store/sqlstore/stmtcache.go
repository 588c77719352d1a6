package sqlstore

import (
	"context"
	"database/sql"
)

// maxIdleConns bounds the connections DB keeps open between transactions;
// maxCachedStmts bounds each one's statement cache (queries built with a
// variable number of placeholders would otherwise grow it without end:
// past the bound they are prepared per call, as without a cache).
const (
	maxIdleConns   = 64
	maxCachedStmts = 256
)

// pconn is one database connection held for a transaction, with the
// statements prepared on it by earlier transactions.
type pconn struct {
	conn  *sql.Conn
	cache bool
	stmts map[string]*sql.Stmt
}

// acquire returns a kept connection or opens one from the pool.
func (s *DB) acquire(ctx context.Context) (*pconn, error) {
	select {
	case pc := <-s.idle:
		return pc, nil
	default:
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &pconn{conn: c, cache: s.dialect.CacheStatements}, nil
}

// Exec runs statements one after the other outside any transaction, on
// one kept connection (upkeep such as a log checkpoint, which SQLite
// refuses inside a transaction). It stops at the first failure.
func (s *DB) Exec(ctx context.Context, queries ...string) error {
	pc, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	for _, q := range queries {
		if _, err = pc.conn.ExecContext(ctx, q); err != nil {
			break
		}
	}
	s.releaseConn(pc, err == nil)
	return err
}

// releaseConn keeps a healthy connection of a caching dialect for the
// next transaction and closes the others (returning them to the pool).
func (s *DB) releaseConn(pc *pconn, healthy bool) {
	if healthy && pc.cache {
		select {
		case s.idle <- pc:
			return
		default:
		}
	}
	pc.close()
}

func (pc *pconn) close() {
	for _, st := range pc.stmts {
		_ = st.Close()
	}
	pc.stmts = nil
	_ = pc.conn.Close()
}

// stmt returns the prepared statement for q, or nil when q is not cached
// (the dialect does not cache, or the cache is full).
func (pc *pconn) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if !pc.cache {
		return nil, nil
	}
	if st, ok := pc.stmts[q]; ok {
		return st, nil
	}
	if len(pc.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := pc.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if pc.stmts == nil {
		pc.stmts = make(map[string]*sql.Stmt)
	}
	pc.stmts[q] = st
	return st, nil
}

func (pc *pconn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := pc.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return pc.conn.ExecContext(ctx, q, args...)
	}
	return st.ExecContext(ctx, args...)
}

func (pc *pconn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := pc.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return pc.conn.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext reports a preparation error through the returned row,
// the way database/sql does.
func (pc *pconn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := pc.stmt(ctx, q)
	if err != nil || st == nil {
		return pc.conn.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
