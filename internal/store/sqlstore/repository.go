package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/blackboard-hub/bb/internal/hub"
)

func (t *tx) GetRepository(ctx context.Context) (hub.RepositoryRecord, error) {
	var r hub.RepositoryRecord
	err := t.row(ctx, `SELECT scopes, repo_id FROM repository WHERE id = 1`).Scan(&r.Scopes, &r.RepoID)
	if errors.Is(err, sql.ErrNoRows) {
		return hub.RepositoryRecord{Scopes: hub.ScopesRelative}, nil
	}
	return r, err
}

func (t *tx) PutRepository(ctx context.Context, r hub.RepositoryRecord) error {
	_, err := t.exec(ctx, `INSERT INTO repository (id, scopes, repo_id) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET scopes = excluded.scopes, repo_id = excluded.repo_id`, r.Scopes, r.RepoID)
	return err
}

func (t *tx) RebaseScopes(ctx context.Context, fn func(string) (string, bool)) (int, error) {
	rows, err := t.query(ctx, `SELECT id, scope FROM reservations WHERE scope LIKE '/%' OR scope LIKE '_:%'`)
	if err != nil {
		return 0, err
	}
	type change struct{ id, scope string }
	var changes []change
	for rows.Next() {
		var id, scope string
		if err := rows.Scan(&id, &scope); err != nil {
			rows.Close()
			return 0, err
		}
		if n, ok := fn(scope); ok {
			changes = append(changes, change{id, n})
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, c := range changes {
		if _, err := t.exec(ctx, `UPDATE reservations SET scope = ? WHERE id = ?`, c.scope, c.id); err != nil {
			return 0, err
		}
	}
	return len(changes), nil
}
