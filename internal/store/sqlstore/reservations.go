package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

const reservationCols = `id, scope, wildcard, agent_id, bead_id, state, created_at, expires_at, released_at`

func (t *tx) reservations(ctx context.Context, q string, args ...any) ([]hub.Reservation, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Reservation{}
	for rows.Next() {
		var r hub.Reservation
		var wild int
		var created, expires string
		var released sql.NullString
		if err := rows.Scan(&r.ID, &r.Scope, &wild, &r.AgentID, &r.BeadID, &r.State, &created, &expires, &released); err != nil {
			return nil, err
		}
		r.Wildcard = wild != 0
		d := decodeRow("reservations", func() string { return r.ID })
		r.CreatedAt, r.ExpiresAt, r.ReleasedAt = d.time("created_at", created), d.time("expires_at", expires), d.nullTime("released_at", released)
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// OverlappingActive runs two index-driven queries on the partial index
// idx_reservations_active_scope (the literal state = 'active' lets the
// planner use it): equality on the scope and its ancestors, and a range scan
// for descendants. It never compares against every active row. On
// PostgreSQL the scope column must use the "C" collation so that the range
// is byte order, as on SQLite.
func (t *tx) OverlappingActive(ctx context.Context, p string, ancestors []string, limit int) ([]hub.Reservation, error) {
	keys := append([]string{p}, ancestors...)
	args := make([]any, 0, len(keys)+1)
	for _, k := range keys {
		args = append(args, k)
	}
	args = append(args, limit)
	eq, err := t.reservations(ctx, `SELECT `+reservationCols+` FROM reservations
		WHERE state = 'active' AND scope IN (`+placeholders(len(keys))+`) LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	lo, hi := hub.DescendantRange(p)
	below, err := t.reservations(ctx, `SELECT `+reservationCols+` FROM reservations
		WHERE state = 'active' AND scope >= ? AND scope < ? AND scope <> ? ORDER BY scope LIMIT ?`, lo, hi, p, limit)
	if err != nil {
		return nil, err
	}
	return append(eq, below...), nil
}

func (t *tx) InsertReservation(ctx context.Context, r *hub.Reservation) error {
	_, err := t.exec(ctx, `INSERT INTO reservations (`+reservationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Scope, b2i(r.Wildcard), r.AgentID, r.BeadID, r.State, ts(r.CreatedAt), ts(r.ExpiresAt), nullTS(r.ReleasedAt))
	return err
}

func (t *tx) UpdateReservation(ctx context.Context, r *hub.Reservation) error {
	_, err := t.exec(ctx, `UPDATE reservations SET state = ?, wildcard = ?, bead_id = ?, expires_at = ?, released_at = ? WHERE id = ?`,
		r.State, b2i(r.Wildcard), r.BeadID, ts(r.ExpiresAt), nullTS(r.ReleasedAt), r.ID)
	return err
}

func reservationWhere(f hub.ReservationFilter, withStates bool) (string, []any) {
	where := []string{"1 = 1"}
	var args []any
	if withStates && len(f.States) == 1 && f.States[0] == hub.ResActive {
		where = append(where, `state = 'active'`) // literal: matches the partial index
	} else if withStates && len(f.States) > 0 {
		where = append(where, `state IN (`+placeholders(len(f.States))+`)`)
		for _, s := range f.States {
			args = append(args, s)
		}
	}
	if f.AgentID != "" {
		where = append(where, `agent_id = ?`)
		args = append(args, f.AgentID)
	}
	if f.BeadID != "" {
		where = append(where, `bead_id = ?`)
		args = append(args, f.BeadID)
	}
	if f.Scope != "" {
		where = append(where, `scope = ?`)
		args = append(args, f.Scope)
	}
	return strings.Join(where, " AND "), args
}

func (t *tx) ListReservations(ctx context.Context, f hub.ReservationFilter) ([]hub.Reservation, error) {
	where, args := reservationWhere(f, true)
	q := `SELECT ` + reservationCols + ` FROM reservations WHERE ` + where + ` ORDER BY created_at DESC, id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return t.reservations(ctx, q, args...)
}

func (t *tx) CountReservations(ctx context.Context, f hub.ReservationFilter) (map[string]int64, error) {
	where, args := reservationWhere(f, false)
	rows, err := t.query(ctx, `SELECT state, COUNT(*) FROM reservations WHERE `+where+` GROUP BY state`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{hub.ResActive: 0, hub.ResReleased: 0, hub.ResExpired: 0}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

func (t *tx) IncursionsOnActive(ctx context.Context, agent string, limit int) (int64, error) {
	var n, none int64
	q, args := t.incursionsSQL(agent, limit)
	err := t.row(ctx, q, args...).Scan(&n, &none)
	return n, err
}

// incursionsSQL counts (up to limit) the incursions on agent since its
// oldest active reservation was made (none without one): one row (count, 0).
func (t *tx) incursionsSQL(agent string, limit int) (string, []any) {
	return `SELECT COUNT(*) AS n, 0 AS newest FROM (SELECT 1 FROM events WHERE to_agent = ? AND type = '` + hub.EventIncursion + `'
		AND created_at >= (SELECT MIN(created_at) FROM reservations WHERE agent_id = ? AND state = 'active') LIMIT ` + itoa(int64(limit)) + `) x`,
		[]any{agent, agent}
}

func (t *tx) InProgressTasksOwnedBy(ctx context.Context, agent string, limit int) ([]string, error) {
	rows, err := t.query(ctx, `SELECT id FROM tasks WHERE owner = ? AND status = 'in_progress' ORDER BY id LIMIT ?`, agent, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (t *tx) InProgressTaskOwners(ctx context.Context, limit int) (map[string][]string, error) {
	rows, err := t.query(ctx, `SELECT owner, id FROM tasks WHERE status = 'in_progress' AND owner <> '' ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var o, id string
		if err := rows.Scan(&o, &id); err != nil {
			return nil, err
		}
		out[o] = append(out[o], id)
	}
	return out, rows.Err()
}
