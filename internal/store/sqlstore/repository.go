package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

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

func (t *tx) RecordBranchEdits(ctx context.Context, agent string, w hub.Where, paths []string, at, forgetBefore time.Time) error {
	for n, args := range inLists(paths, ts(forgetBefore)) {
		if _, err := t.exec(ctx, `DELETE FROM branch_edits WHERE edited_at < ? AND path IN (`+placeholders(n)+`)`, args...); err != nil {
			return err
		}
	}
	for _, p := range paths {
		if _, err := t.exec(ctx, `INSERT INTO branch_edits (agent_id, branch, path, worktree, host, edited_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (agent_id, branch, path) DO UPDATE SET worktree = excluded.worktree, host = excluded.host, edited_at = excluded.edited_at`,
			agent, w.Branch, p, w.Worktree, w.Host, ts(at)); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) BranchEditsOn(ctx context.Context, paths []string, limit int) ([]hub.BranchEdit, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(paths)+1)
	for _, p := range paths {
		args = append(args, p)
	}
	args = append(args, limit)
	rows, err := t.query(ctx, `SELECT agent_id, branch, path, worktree, host, edited_at FROM branch_edits
		WHERE path IN (`+placeholders(len(paths))+`) ORDER BY edited_at DESC LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hub.BranchEdit
	for rows.Next() {
		var e hub.BranchEdit
		var at string
		if err := rows.Scan(&e.AgentID, &e.Branch, &e.Path, &e.Worktree, &e.Host, &at); err != nil {
			return nil, err
		}
		d := decodeRow("branch_edits", func() string { return e.AgentID + "/" + e.Path })
		e.EditedAt = d.time("edited_at", at)
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
