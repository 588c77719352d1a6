// Package storecopy copies a whole board from one store to another (SQLite
// to PostgreSQL and back), table by table, for `bb migrate`. Both stores
// are opened (and so migrated to the same schema version) by the caller.
package storecopy

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
)

// tableOrder is the stable copy order of the known tables (parents before
// the rows that point at them); tables added by later migrations follow in
// name order. orderBy keeps each table's rows in a stable order too.
var tableOrder = []struct{ name, orderBy string }{
	{"agents", "id"},
	{"messages", "seq, id"},
	{"broadcast_acks", "message_id, agent"},
	{"message_tags", "message_id, tag"},
	{"artifacts", "id"},
	{"refs", "owner_kind, owner_id, ref_where, ref_what, ref_ref"},
	{"events", "seq"},
	{"reservations", "created_at, id"},
	{"tasks", "id"},
	{"task_deps", "task_id, depends_on"},
	{"memory", "id"},
	{"idempotency", "agent, request_id"},
}

// BatchRows is how many rows one target transaction inserts.
const BatchRows = 500

// Progress is told, after every batch, how far the copy of table is.
type Progress func(table string, done, total int64)

// TableCount is the row count of one table in the source and the target.
type TableCount struct {
	Table  string `json:"table"`
	Source int64  `json:"source_rows"`
	Target int64  `json:"target_rows"`
}

// Result describes a finished copy.
type Result struct {
	Tables []TableCount `json:"tables"`
	Rows   int64        `json:"rows"`
}

// Options control Copy.
type Options struct {
	// Force empties a non-empty target first instead of refusing.
	Force    bool
	Progress Progress
}

type side struct {
	db *sqlstore.DB
	d  sqlstore.Dialect
}

func newSide(db *sqlstore.DB) (side, error) {
	switch db.Backend() {
	case "sqlite":
		return side{db, sqlite.Dialect()}, nil
	case "postgres":
		return side{db, postgres.Dialect()}, nil
	}
	return side{}, hub.Errorf(hub.CodeInvalidInput, "cannot copy a %s store", db.Backend())
}

func (s side) pg() bool { return s.d.Dollar }

// bind rewrites '?' to $n for PostgreSQL (the queries here hold no '?'
// inside literals).
func (s side) bind(q string) string {
	if !s.pg() {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// tables lists the store's data tables (not its bookkeeping ones).
func (s side) tables(ctx context.Context, q querier) ([]string, error) {
	// Plain tables only: the full-text indexes (virtual tables and their
	// shadow tables) are rebuilt by the target's own triggers, or for
	// messages on SQLite by RebuildMessageIndex after the copy; the Agent
	// Mail status totals by the target's triggers too.
	query := `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`
	if s.pg() {
		query = `SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_version'`
	}
	names, err := strings1(ctx, q, query)
	return slices.DeleteFunc(names, Derived), err
}

// Derived reports whether a board table is kept by the store's own
// triggers from other tables (the Agent Mail status totals): a copy
// leaves it out and the target rebuilds it.
func Derived(table string) bool { return table == "mail_counts" || table == "broadcast_senders" }

// identity returns the auto-numbered column of each table that has one
// (SQLite AUTOINCREMENT, PostgreSQL identity).
func (s side) identity(ctx context.Context, q querier, tables []string) (map[string]string, error) {
	out := map[string]string{}
	if s.pg() {
		rows, err := q.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND is_identity = 'YES'`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var t, c string
			if err := rows.Scan(&t, &c); err != nil {
				return nil, err
			}
			out[t] = c
		}
		return out, rows.Err()
	}
	for _, t := range tables {
		var ddl string
		if err := q.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, t).Scan(&ddl); err != nil {
			return nil, err
		}
		if !strings.Contains(strings.ToUpper(ddl), "AUTOINCREMENT") {
			continue
		}
		var col string
		if err := q.QueryRowContext(ctx, `SELECT name FROM pragma_table_info(?) WHERE pk = 1`, t).Scan(&col); err != nil {
			return nil, err
		}
		out[t] = col
	}
	return out, nil
}

// highWater is the last number the table's counter handed out (which may
// exceed MAX(col) after deletes).
func (s side) highWater(ctx context.Context, q querier, table, col string) (int64, error) {
	var n sql.NullInt64
	if s.pg() {
		var seq sql.NullString
		if err := q.QueryRowContext(ctx, `SELECT pg_get_serial_sequence($1, $2)`, table, col).Scan(&seq); err != nil {
			return 0, err
		}
		if !seq.Valid {
			return 0, nil
		}
		err := q.QueryRowContext(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+seq.String).Scan(&n)
		return n.Int64, err
	}
	err := q.QueryRowContext(ctx, `SELECT seq FROM sqlite_sequence WHERE name = ?`, table).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n.Int64, err
}

func (s side) setHighWater(ctx context.Context, q querier, table, col string, n int64) error {
	if s.pg() {
		var max sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT MAX(`+quote(col)+`) FROM `+quote(table)).Scan(&max); err != nil {
			return err
		}
		if max.Int64 > n {
			n = max.Int64
		}
		if n < 1 {
			_, err := q.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), 1, false)`, table, col)
			return err
		}
		_, err := q.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), $3, true)`, table, col, n)
		return err
	}
	res, err := q.ExecContext(ctx, `UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?`, n, table)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 0 && n > 0 {
		_, err = q.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, table, n)
	}
	return err
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func strings1(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func count(ctx context.Context, q querier, table string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quote(table)).Scan(&n)
	return n, err
}

// ordered puts the known tables first, in tableOrder, then the others.
func ordered(tables []string) (names []string, orderBy map[string]string) {
	have := map[string]bool{}
	for _, t := range tables {
		have[t] = true
	}
	orderBy = map[string]string{}
	for _, t := range tableOrder {
		if have[t.name] {
			names = append(names, t.name)
			orderBy[t.name] = t.orderBy
			delete(have, t.name)
		}
	}
	var rest []string
	for t := range have {
		rest = append(rest, t)
	}
	sort.Strings(rest)
	for _, t := range rest {
		names = append(names, t)
		orderBy[t] = "1"
	}
	return names, orderBy
}

// begin opens a transaction on a dedicated connection with the side's own
// statements (a write takes the writer lock, like every store write).
func (s side) begin(ctx context.Context, write bool) (*sql.Conn, func(commit bool) error, error) {
	conn, err := s.db.SQL().Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	begin := s.d.BeginRead
	if s.pg() && !write {
		begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	}
	if write {
		begin = s.d.BeginWrite
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if write && s.d.AfterBeginWrite != "" {
		if _, err := conn.ExecContext(ctx, s.d.AfterBeginWrite); err != nil {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			return nil, nil, err
		}
	}
	end := func(commit bool) error {
		defer conn.Close()
		if commit {
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
				return err
			}
			return nil
		}
		_, err := conn.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	return conn, end, nil
}

// Copy copies every table of src into dst. The source is read in one
// snapshot; the target is written in transactions of BatchRows rows. A
// non-empty target is refused unless o.Force, which empties it first (in
// one transaction). At the end every table is counted on both sides.
func Copy(ctx context.Context, srcDB, dstDB *sqlstore.DB, o Options) (Result, error) {
	var res Result
	src, err := newSide(srcDB)
	if err != nil {
		return res, err
	}
	dst, err := newSide(dstDB)
	if err != nil {
		return res, err
	}
	sconn, sEnd, err := src.begin(ctx, false)
	if err != nil {
		return res, hub.Internal("read source", err)
	}
	defer func() { _ = sEnd(false) }()

	srcTables, dstTables, err := matchTables(ctx, src, sconn, dst, dstDB)
	if err != nil {
		return res, err
	}
	if err := clearTarget(ctx, dst, dstDB, dstTables, o.Force); err != nil {
		return res, err
	}
	srcIdent, err := src.identity(ctx, sconn, srcTables)
	if err != nil {
		return res, hub.Internal("read source counters", err)
	}
	dstIdent, err := dst.identity(ctx, dstDB.SQL(), dstTables)
	if err != nil {
		return res, hub.Internal("read target counters", err)
	}
	tables, orderBy := ordered(srcTables)
	for _, t := range tables {
		total, err := count(ctx, sconn, t)
		if err != nil {
			return res, hub.Internal("count "+t, err)
		}
		if err := copyTable(ctx, sconn, dst, t, orderBy[t], total, o.Progress); err != nil {
			return res, err
		}
		res.Tables = append(res.Tables, TableCount{Table: t, Source: total})
		res.Rows += total
	}
	// The rows went in with plain INSERTs: index the messages for search
	// where the store does it itself.
	if err := dstDB.RebuildMessageIndex(ctx); err != nil {
		return res, hub.Internal("index messages for search", err)
	}
	if err := carryCounters(ctx, src, sconn, dst, srcIdent, dstIdent); err != nil {
		return res, err
	}
	return res, checkCounts(ctx, dstDB, res.Tables)
}

// matchTables lists the tables of both sides and refuses a target that
// lacks one of the source's (another schema version).
func matchTables(ctx context.Context, src side, sconn *sql.Conn, dst side, dstDB *sqlstore.DB) (srcTables, dstTables []string, err error) {
	if srcTables, err = src.tables(ctx, sconn); err != nil {
		return nil, nil, hub.Internal("list source tables", err)
	}
	if dstTables, err = dst.tables(ctx, dstDB.SQL()); err != nil {
		return nil, nil, hub.Internal("list target tables", err)
	}
	dstHas := map[string]bool{}
	for _, t := range dstTables {
		dstHas[t] = true
	}
	for _, t := range srcTables {
		if !dstHas[t] {
			return nil, nil, hub.Errorf(hub.CodeInvalidInput, "target has no table %q: is it a Blackboard database of the same version?", t)
		}
	}
	return srcTables, dstTables, nil
}

// clearTarget refuses a target that holds rows (or, with force, empties
// it in one transaction), and drops the new board's repository row: the
// source's replaces it.
func clearTarget(ctx context.Context, dst side, dstDB *sqlstore.DB, dstTables []string, force bool) error {
	var nonEmpty []string
	hasRepository := false
	for _, t := range dstTables {
		if t == "repository" {
			hasRepository = true
			continue // the one row every new board has: replaced below
		}
		n, err := count(ctx, dstDB.SQL(), t)
		if err != nil {
			return hub.Internal("count target rows", err)
		}
		if n > 0 {
			nonEmpty = append(nonEmpty, fmt.Sprintf("%s: %d", t, n))
		}
	}
	if len(nonEmpty) > 0 {
		if !force {
			sort.Strings(nonEmpty)
			return hub.Errorf(hub.CodeConflict, "target %s is not empty (%s rows); use --force to replace its contents",
				dstDB.Location(), strings.Join(nonEmpty, ", "))
		}
		conn, end, err := dst.begin(ctx, true)
		if err != nil {
			return hub.Internal("empty target", err)
		}
		for i := len(dstTables) - 1; i >= 0; i-- {
			if _, err := conn.ExecContext(ctx, `DELETE FROM `+quote(dstTables[i])); err != nil {
				_ = end(false)
				return hub.Internal("empty target table "+dstTables[i], err)
			}
		}
		if err := end(true); err != nil {
			return hub.Internal("empty target", err)
		}
	}
	if hasRepository {
		if _, err := dstDB.SQL().ExecContext(ctx, `DELETE FROM repository`); err != nil {
			return hub.Internal("empty target table repository", err)
		}
	}
	return nil
}

// carryCounters sets the target's auto-number counters to the source's
// high-water marks, so that ids never go back.
func carryCounters(ctx context.Context, src side, sconn *sql.Conn, dst side, srcIdent, dstIdent map[string]string) error {
	if len(dstIdent) == 0 {
		return nil
	}
	conn, end, err := dst.begin(ctx, true)
	if err != nil {
		return hub.Internal("set counters", err)
	}
	for t, col := range dstIdent {
		var hw int64
		if sc, ok := srcIdent[t]; ok {
			if hw, err = src.highWater(ctx, sconn, t, sc); err != nil {
				_ = end(false)
				return hub.Internal("read counter of "+t, err)
			}
		}
		if err := dst.setHighWater(ctx, conn, t, col, hw); err != nil {
			_ = end(false)
			return hub.Internal("set counter of "+t, err)
		}
	}
	if err := end(true); err != nil {
		return hub.Internal("set counters", err)
	}
	return nil
}

// checkCounts counts every copied table in the target: each must hold
// what the source held.
func checkCounts(ctx context.Context, dstDB *sqlstore.DB, tables []TableCount) error {
	for i := range tables {
		n, err := count(ctx, dstDB.SQL(), tables[i].Table)
		if err != nil {
			return hub.Internal("count target rows", err)
		}
		tables[i].Target = n
		if n != tables[i].Source {
			return hub.Errorf(hub.CodeInternal, "count check failed for table %s: source has %d rows, target %d",
				tables[i].Table, tables[i].Source, n)
		}
	}
	return nil
}

func copyTable(ctx context.Context, sconn *sql.Conn, dst side, table, orderBy string, total int64, progress Progress) error {
	if progress != nil {
		progress(table, 0, total)
	}
	if total == 0 {
		return nil
	}
	rows, err := sconn.QueryContext(ctx, `SELECT * FROM `+quote(table)+` ORDER BY `+orderBy)
	if err != nil {
		return hub.Internal("read "+table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return hub.Internal("read "+table, err)
	}
	qcols := make([]string, len(cols))
	for i, c := range cols {
		qcols[i] = quote(c)
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	var batch []any
	n := 0
	var done int64
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := `INSERT INTO ` + quote(table) + ` (` + strings.Join(qcols, ", ") + `) VALUES ` +
			strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
		conn, end, err := dst.begin(ctx, true)
		if err != nil {
			return hub.Internal("write "+table, err)
		}
		if _, err := conn.ExecContext(ctx, dst.bind(q), batch...); err != nil {
			_ = end(false)
			return hub.Internal("write "+table, err)
		}
		if err := end(true); err != nil {
			return hub.Internal("write "+table, err)
		}
		done += int64(n)
		if progress != nil {
			progress(table, done, total)
		}
		batch, n = batch[:0], 0
		return nil
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return hub.Internal("read "+table, err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b) // every column is TEXT or INTEGER
			}
		}
		batch = append(batch, vals...)
		n++
		if n == BatchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return hub.Internal("read "+table, err)
	}
	return flush()
}
