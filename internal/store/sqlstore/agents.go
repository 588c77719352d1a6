package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const agentCols = `id, display_name, role, registered, current_task, progress, status, blockers,
	created_at, last_seen, updated_at, version, event_cursor, focus_task_id, focus_project_id, worktree, branch, host, status_since`

func scanAgent(sc interface{ Scan(...any) error }) (*hub.Agent, error) {
	var a hub.Agent
	var reg int
	var blockers sql.NullString
	var created, seen, updated, since string
	if err := sc.Scan(&a.ID, &a.DisplayName, &a.Role, &reg, &a.CurrentTask, &a.Progress, &a.Status, &blockers,
		&created, &seen, &updated, &a.Version, &a.EventCursor, &a.FocusTaskID, &a.FocusProjectID,
		&a.Where.Worktree, &a.Where.Branch, &a.Where.Host, &since); err != nil {
		return nil, err
	}
	a.Registered = reg != 0
	if blockers.Valid {
		b := blockers.String
		a.Blockers = &b
	}
	d := decodeRow("agents", func() string { return a.ID })
	a.CreatedAt, a.LastSeen, a.UpdatedAt = d.time("created_at", created), d.time("last_seen", seen), d.time("updated_at", updated)
	if since != "" {
		a.StatusSince = d.time("status_since", since)
	}
	return &a, d.Err()
}

func (t *tx) GetAgent(ctx context.Context, id string) (*hub.Agent, error) {
	a, err := scanAgent(t.row(ctx, `SELECT `+agentCols+` FROM agents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

func (t *tx) PutAgent(ctx context.Context, a *hub.Agent) error {
	var blockers any
	if a.Blockers != nil {
		blockers = *a.Blockers
	}
	if a.Version == 0 {
		a.Version = 1
	}
	_, err := t.exec(ctx, `INSERT INTO agents (`+agentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name, role = excluded.role,
		registered = excluded.registered, current_task = excluded.current_task, progress = excluded.progress,
		status = excluded.status, blockers = excluded.blockers, last_seen = excluded.last_seen,
		updated_at = excluded.updated_at, version = excluded.version, event_cursor = excluded.event_cursor,
		focus_task_id = excluded.focus_task_id, focus_project_id = excluded.focus_project_id,
		worktree = excluded.worktree, branch = excluded.branch, host = excluded.host, status_since = excluded.status_since`,
		a.ID, a.DisplayName, a.Role, b2i(a.Registered), a.CurrentTask, a.Progress, a.Status, blockers,
		ts(a.CreatedAt), ts(a.LastSeen), ts(a.UpdatedAt), a.Version, a.EventCursor, a.FocusTaskID, a.FocusProjectID,
		a.Where.Worktree, a.Where.Branch, a.Where.Host, tsOrEmpty(a.StatusSince))
	return err
}

func (t *tx) TouchAgent(ctx context.Context, id string, now time.Time) error {
	n := ts(now)
	return t.execBlind(ctx, `INSERT INTO agents (id, created_at, last_seen, updated_at, status_since) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen
		WHERE agents.last_seen < excluded.last_seen`, id, n, n, n, n)
}

func (t *tx) ListAgents(ctx context.Context) ([]hub.Agent, error) {
	rows, err := t.query(ctx, `SELECT `+agentCols+` FROM agents ORDER BY last_seen DESC, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Agent{}
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}

func (t *tx) MarkOfflineBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := t.exec(ctx, `UPDATE agents SET status = 'offline' WHERE status <> 'offline' AND last_seen < ?`, ts(cutoff))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) DeleteAgentsWithStatus(ctx context.Context, status string) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM agents WHERE status = ?`, status)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) SetReadCursor(ctx context.Context, id string, seq int64) error {
	return t.execBlind(ctx, `UPDATE agents SET read_cursor = ? WHERE id = ? AND read_cursor < ?`, seq, id, seq)
}

func (t *tx) SetReadCursorPastOwn(ctx context.Context, id string, after, seq int64) error {
	return t.execBlind(ctx, `UPDATE agents SET read_cursor = ? WHERE id = ? AND read_cursor < ?
		AND NOT EXISTS (SELECT 1 FROM messages`+t.indexed("idx_messages_recipient_ack_seq")+`
			WHERE recipient = '*' AND requires_ack IN (0, 1) AND seq > ? AND seq <= ? AND sender <> ?)`,
		seq, id, seq, after, seq, id)
}

// tsOrEmpty is t as stored, or "" when it is unknown (zero).
func tsOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return ts(t)
}
