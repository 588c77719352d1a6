package sqlstore

import (
	"context"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

func (t *tx) InsertTaskArtifact(ctx context.Context, a *hub.Artifact) error {
	return t.row(ctx, `INSERT INTO artifacts (uid, path, produced_by, description, task_id, event_id, content_type, created_at, updated_at)
		VALUES (?, ?, ?, '', ?, ?, ?, ?, ?) RETURNING id`,
		a.UID, a.Path, a.ProducedBy, a.TaskID, a.EventID, a.ContentType, ts(a.CreatedAt), ts(a.UpdatedAt)).Scan(&a.ID)
}

func (t *tx) ListTaskArtifacts(ctx context.Context, taskID string, limit int) ([]hub.Artifact, error) {
	rows, err := t.query(ctx, `SELECT id, uid, path, produced_by, task_id, event_id, content_type, created_at, updated_at
		FROM artifacts WHERE task_id = ? AND task_id <> '' ORDER BY id DESC LIMIT ?`, taskID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Artifact{}
	for rows.Next() {
		var a hub.Artifact
		var created, updated string
		if err := rows.Scan(&a.ID, &a.UID, &a.Path, &a.ProducedBy, &a.TaskID, &a.EventID, &a.ContentType, &created, &updated); err != nil {
			return nil, err
		}
		d := decodeRow("artifacts", func() string { return itoa(a.ID) })
		a.CreatedAt, a.UpdatedAt = d.time("created_at", created), d.time("updated_at", updated)
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func (t *tx) scanEvents(ctx context.Context, q string, args ...any) ([]hub.Event, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Event{}
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (t *tx) TaskEvents(ctx context.Context, f hub.TaskEventFilter) ([]hub.Event, error) {
	where := []string{`seq > ?`}
	args := []any{f.SinceSeq}
	if f.Agent != "" {
		where = append(where, `agent = ?`)
		args = append(args, f.Agent)
	}
	if f.TaskID != "" {
		where = append(where, `task_id = ?`)
		args = append(args, f.TaskID)
	}
	if f.Kind != "" {
		where = append(where, `type = ?`)
		args = append(args, f.Kind)
	}
	if f.ProjectID != "" {
		where = append(where, `project_id = ?`)
		args = append(args, f.ProjectID)
	}
	if !f.IncludeArchived {
		where = append(where, `archived = 0`)
	}
	order := ` ORDER BY seq DESC`
	if f.Asc {
		order = ` ORDER BY seq ASC`
	}
	args = append(args, f.Limit)
	return t.scanEvents(ctx, `SELECT `+eventCols+` FROM events WHERE `+strings.Join(where, " AND ")+order+` LIMIT ?`, args...)
}

func (t *tx) EventsMentioning(ctx context.Context, id string, limit int) ([]hub.Event, error) {
	return t.scanEvents(ctx, `SELECT `+eventCols+` FROM events WHERE seq IN (
		SELECT seq FROM events WHERE task_id = ? AND task_id <> ''
		UNION SELECT seq FROM events WHERE bead_id = ? AND bead_id <> '')
		ORDER BY seq DESC LIMIT ?`, id, id, limit)
}

func (t *tx) EventsAfter(ctx context.Context, after int64, projectID string, scoped bool, limit int) ([]hub.Event, error) {
	q := `SELECT ` + eventCols + ` FROM events WHERE seq > ? AND archived = 0`
	args := []any{after}
	if scoped {
		q += ` AND (project_id = ? OR project_id = '')`
		args = append(args, projectID)
	}
	q += ` ORDER BY seq ASC LIMIT ` + itoa(int64(limit)) // literal: see ListMessages
	return t.scanEvents(ctx, q, args...)
}
