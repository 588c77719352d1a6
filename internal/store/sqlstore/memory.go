package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const memoryCols = `id, key, value, value_type, scope, scope_id, expires_at, created_at, updated_at`

func scanMemory(sc interface{ Scan(...any) error }) (*hub.Memory, error) {
	var m hub.Memory
	var expires sql.NullString
	var created, updated string
	if err := sc.Scan(&m.ID, &m.Key, &m.Value, &m.ValueType, &m.Scope, &m.ScopeID, &expires, &created, &updated); err != nil {
		return nil, err
	}
	d := decodeRow("memory", func() string { return itoa(m.ID) })
	m.ExpiresAt = d.nullTime("expires_at", expires)
	m.CreatedAt, m.UpdatedAt = d.time("created_at", created), d.time("updated_at", updated)
	return &m, d.Err()
}

func (t *tx) UpsertMemory(ctx context.Context, m *hub.Memory) error {
	var created string
	err := t.row(ctx, `INSERT INTO memory (key, value, value_type, scope, scope_id, expires_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (scope, scope_id, key) DO UPDATE SET value = excluded.value, value_type = excluded.value_type,
		expires_at = excluded.expires_at, updated_at = excluded.updated_at
		RETURNING id, created_at`,
		m.Key, m.Value, m.ValueType, m.Scope, m.ScopeID, nullTS(m.ExpiresAt), ts(m.CreatedAt), ts(m.UpdatedAt)).Scan(&m.ID, &created)
	if err != nil {
		return err
	}
	d := decodeRow("memory", func() string { return itoa(m.ID) })
	m.CreatedAt = d.time("created_at", created)
	return d.Err()
}

// unexpired is the condition "not expired at ?".
const unexpired = `(expires_at IS NULL OR expires_at > ?)`

func (t *tx) GetMemory(ctx context.Context, scope, scopeID, key string, now time.Time) (*hub.Memory, error) {
	m, err := scanMemory(t.row(ctx, `SELECT `+memoryCols+` FROM memory WHERE scope = ? AND scope_id = ? AND key = ? AND `+unexpired,
		scope, scopeID, key, ts(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return m, err
}

func (t *tx) ListMemory(ctx context.Context, scope, scopeID string, anyScopeID bool, now time.Time, limit int) ([]hub.Memory, error) {
	q := `SELECT ` + memoryCols + ` FROM memory WHERE scope = ?`
	args := []any{scope}
	if !anyScopeID {
		q += ` AND scope_id = ?`
		args = append(args, scopeID)
	}
	q += ` AND ` + unexpired + ` ORDER BY updated_at DESC, id DESC LIMIT ?`
	args = append(args, ts(now), limit)
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Memory{}
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	return out, rows.Err()
}

func (t *tx) DeleteMemory(ctx context.Context, scope, scopeID, key string, now time.Time) (bool, error) {
	res, err := t.exec(ctx, `DELETE FROM memory WHERE scope = ? AND scope_id = ? AND key = ? AND `+unexpired,
		scope, scopeID, key, ts(now))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (t *tx) DeleteExpiredMemory(ctx context.Context, now time.Time, limit int) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM memory WHERE id IN (SELECT id FROM memory
		WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)`, ts(now), limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
