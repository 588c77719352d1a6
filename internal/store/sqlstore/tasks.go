package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const taskCols = `id, title, description, status, priority, project_id, blocked_reason, owner, version, created_at, updated_at`

func scanTask(sc interface{ Scan(...any) error }) (*hub.Task, error) {
	var t hub.Task
	var created, updated string
	if err := sc.Scan(&t.ID, &t.Title, &t.Description, &t.Status, &t.Priority, &t.ProjectID, &t.BlockedReason,
		&t.Owner, &t.Version, &created, &updated); err != nil {
		return nil, err
	}
	d := decodeRow("tasks", func() string { return t.ID })
	t.CreatedAt, t.UpdatedAt = d.time("created_at", created), d.time("updated_at", updated)
	return &t, d.Err()
}

func (t *tx) InsertTask(ctx context.Context, k *hub.Task) error {
	_, err := t.exec(ctx, `INSERT INTO tasks (`+taskCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.Title, k.Description, k.Status, k.Priority, k.ProjectID, k.BlockedReason, k.Owner, k.Version,
		ts(k.CreatedAt), ts(k.UpdatedAt))
	return err
}

func (t *tx) GetTask(ctx context.Context, id string) (*hub.Task, error) {
	k, err := scanTask(t.row(ctx, `SELECT `+taskCols+` FROM tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	k.DependsOn, err = t.TaskDeps(ctx, id)
	return k, err
}

func (t *tx) UpdateTask(ctx context.Context, k *hub.Task) error {
	_, err := t.exec(ctx, `UPDATE tasks SET title = ?, description = ?, status = ?, priority = ?, project_id = ?,
		blocked_reason = ?, owner = ?, version = ?, updated_at = ? WHERE id = ?`,
		k.Title, k.Description, k.Status, k.Priority, k.ProjectID, k.BlockedReason, k.Owner, k.Version, ts(k.UpdatedAt), k.ID)
	return err
}

func (t *tx) DeleteTask(ctx context.Context, id string) error {
	if _, err := t.exec(ctx, `DELETE FROM task_deps WHERE task_id = ? OR depends_on = ?`, id, id); err != nil {
		return err
	}
	_, err := t.exec(ctx, `DELETE FROM tasks WHERE id = ?`, id)
	return err
}

func (t *tx) ListTasks(ctx context.Context, f hub.TaskFilter) ([]hub.Task, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where = append(where, `status = ?`)
		args = append(args, f.Status)
	}
	if f.Owner != "" {
		where = append(where, `owner = ?`)
		args = append(args, f.Owner)
	}
	if f.ProjectID != "" {
		where = append(where, `project_id = ?`)
		args = append(args, f.ProjectID)
	}
	if f.Priority >= 0 {
		where = append(where, `priority = ?`)
		args = append(args, f.Priority)
	}
	q := `SELECT ` + taskCols + ` FROM tasks`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY priority DESC, created_at DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	out, err := t.scanTasks(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return out, t.fillDeps(ctx, out)
}

func (t *tx) scanTasks(ctx context.Context, q string, args ...any) ([]hub.Task, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Task{}
	for rows.Next() {
		k, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *k)
	}
	return out, rows.Err()
}

// fillDeps loads the dependencies of tasks with one query.
func (t *tx) fillDeps(ctx context.Context, tasks []hub.Task) error {
	if len(tasks) == 0 {
		return nil
	}
	idx := make(map[string]int, len(tasks))
	for i, k := range tasks {
		idx[k.ID] = i
	}
	var rows *sql.Rows
	var err error
	if len(tasks) <= 500 {
		args := make([]any, len(tasks))
		for i, k := range tasks {
			args[i] = k.ID
		}
		rows, err = t.query(ctx, `SELECT task_id, depends_on FROM task_deps WHERE task_id IN (`+placeholders(len(args))+`) ORDER BY task_id, created_at, depends_on`, args...)
	} else {
		rows, err = t.query(ctx, `SELECT task_id, depends_on FROM task_deps ORDER BY task_id, created_at, depends_on`)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, dep string
		if err := rows.Scan(&id, &dep); err != nil {
			return err
		}
		if i, ok := idx[id]; ok {
			tasks[i].DependsOn = append(tasks[i].DependsOn, dep)
		}
	}
	return rows.Err()
}

func (t *tx) AddTaskDep(ctx context.Context, taskID, dependsOn string, now time.Time) error {
	_, err := t.exec(ctx, `INSERT INTO task_deps (task_id, depends_on, created_at) VALUES (?, ?, ?)
		ON CONFLICT (task_id, depends_on) DO NOTHING`, taskID, dependsOn, ts(now))
	return err
}

func (t *tx) RemoveTaskDep(ctx context.Context, taskID, dependsOn string) (bool, error) {
	res, err := t.exec(ctx, `DELETE FROM task_deps WHERE task_id = ? AND depends_on = ?`, taskID, dependsOn)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (t *tx) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	return column[string](ctx, t, q, args...)
}

// column runs a query of one column and returns its values.
func column[T any](ctx context.Context, t *tx, q string, args ...any) ([]T, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (t *tx) TaskDeps(ctx context.Context, taskID string) ([]string, error) {
	return t.strings(ctx, `SELECT depends_on FROM task_deps WHERE task_id = ? ORDER BY created_at, depends_on`, taskID)
}

func (t *tx) TaskDependents(ctx context.Context, taskID string) ([]string, error) {
	return t.strings(ctx, `SELECT task_id FROM task_deps WHERE depends_on = ? ORDER BY created_at, task_id`, taskID)
}

func (t *tx) UnresolvedDeps(ctx context.Context, taskID string) (int, error) {
	var n int
	err := t.row(ctx, `SELECT COUNT(*) FROM task_deps d JOIN tasks x ON x.id = d.depends_on
		WHERE d.task_id = ? AND x.status <> 'completed'`, taskID).Scan(&n)
	return n, err
}

const unresolvedClause = `NOT EXISTS (SELECT 1 FROM task_deps d JOIN tasks x ON x.id = d.depends_on
	WHERE d.task_id = tasks.id AND x.status <> 'completed')`

func (t *tx) NextPendingTasks(ctx context.Context, projectID string, scoped bool, skip string, limit int) ([]hub.Task, error) {
	q := `SELECT ` + taskCols + ` FROM tasks WHERE status = 'pending'`
	var args []any
	if scoped {
		q += ` AND project_id = ?`
		args = append(args, projectID)
	}
	if skip != "" {
		q += ` AND id <> ?`
		args = append(args, skip)
	}
	q += ` AND ` + unresolvedClause + ` ORDER BY priority DESC, created_at ASC, id ASC LIMIT ?`
	args = append(args, limit)
	return t.scanTasks(ctx, q, args...)
}

func (t *tx) CountTasks(ctx context.Context, status, projectID string, scoped bool) (int64, error) {
	q := `SELECT COUNT(*) FROM tasks WHERE status = ?`
	args := []any{status}
	if scoped {
		q += ` AND project_id = ?`
		args = append(args, projectID)
	}
	var n int64
	err := t.row(ctx, q, args...).Scan(&n)
	return n, err
}

func (t *tx) MessagesForBead(ctx context.Context, beadID string, limit int) ([]hub.TaskMention, error) {
	rows, err := t.query(ctx, `SELECT id, COALESCE(seq, 0), sender, recipient, subject, created FROM messages
		WHERE bead_id = ? ORDER BY created DESC LIMIT ?`, beadID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.TaskMention{}
	for rows.Next() {
		var m hub.TaskMention
		var created string
		if err := rows.Scan(&m.UUID, &m.Seq, &m.From, &m.To, &m.Subject, &created); err != nil {
			return nil, err
		}
		d := decodeRow("messages", func() string { return m.UUID })
		m.CreatedAt = d.time("created", created)
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (t *tx) ReservationsForBead(ctx context.Context, beadID string, limit int) ([]hub.TaskReservation, error) {
	rows, err := t.query(ctx, `SELECT id, scope, wildcard, agent_id, state, created_at, expires_at FROM reservations
		WHERE bead_id = ? ORDER BY created_at DESC LIMIT ?`, beadID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.TaskReservation{}
	for rows.Next() {
		var r hub.TaskReservation
		var wild int
		var created, expires string
		if err := rows.Scan(&r.ID, &r.Scope, &wild, &r.AgentID, &r.State, &created, &expires); err != nil {
			return nil, err
		}
		r.Wildcard = wild != 0
		d := decodeRow("reservations", func() string { return r.ID })
		r.CreatedAt, r.ExpiresAt = d.time("created_at", created), d.time("expires_at", expires)
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (t *tx) Counts(ctx context.Context, now time.Time) (hub.TaskCounts, error) {
	var c hub.TaskCounts
	rows, err := t.query(ctx, `SELECT status, COUNT(*) FROM tasks GROUP BY status`)
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			rows.Close()
			return c, err
		}
		switch st {
		case hub.TaskPending:
			c.Pending = n
		case hub.TaskInProgress:
			c.InProgress = n
		case hub.TaskCompleted:
			c.Completed = n
		case hub.TaskBlocked:
			c.Blocked = n
		default:
			c.Unknown += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	n := ts(now)
	week := ts(now.Add(-7 * 24 * time.Hour))
	err = t.row(ctx, `SELECT
		(SELECT COUNT(*) FROM events),
		(SELECT COUNT(*) FROM events WHERE archived <> 0),
		(SELECT COUNT(*) FROM memory),
		(SELECT COUNT(*) FROM memory WHERE expires_at IS NOT NULL AND expires_at <= ?),
		(SELECT COUNT(*) FROM agents),
		(SELECT COUNT(*) FROM agents WHERE last_seen >= ?),
		(SELECT COUNT(DISTINCT project_id) FROM tasks WHERE project_id <> '')`, n, week).Scan(
		&c.Events, &c.EventsArchived, &c.Memory, &c.MemoryExpired, &c.Agents, &c.AgentsActive7d, &c.Projects)
	return c, err
}
