package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

const artifactCols = `id, uid, path, produced_by, description, version, bb_refs, task_id, event_id, content_type, created_at, updated_at`

func scanArtifact(sc interface{ Scan(...any) error }) (*hub.Artifact, error) {
	var a hub.Artifact
	var version sql.NullString
	var refs, created, updated string
	if err := sc.Scan(&a.ID, &a.UID, &a.Path, &a.ProducedBy, &a.Description, &version, &refs, &a.TaskID,
		&a.EventID, &a.ContentType, &created, &updated); err != nil {
		return nil, err
	}
	if version.Valid {
		v := version.String
		a.Version = &v
	}
	d := decodeRow("artifacts", func() string { return itoa(a.ID) })
	a.Refs = []hub.Ref{}
	d.json("bb_refs", refs, &a.Refs)
	if a.Refs == nil {
		a.Refs = []hub.Ref{}
	}
	a.CreatedAt, a.UpdatedAt = d.time("created_at", created), d.time("updated_at", updated)
	return &a, d.Err()
}

func (t *tx) UpsertBoardArtifact(ctx context.Context, a *hub.Artifact) (bool, error) {
	if a.Refs == nil {
		a.Refs = []hub.Ref{}
	}
	refs, _ := json.Marshal(a.Refs)
	var version any
	if a.Version != nil {
		version = *a.Version
	}
	existing, err := t.BoardArtifactByPath(ctx, a.Path)
	if err != nil {
		return false, err
	}
	created := existing == nil
	if created {
		err = t.row(ctx, `INSERT INTO artifacts (uid, path, produced_by, description, version, bb_refs, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			a.UID, a.Path, a.ProducedBy, a.Description, version, string(refs), ts(a.CreatedAt), ts(a.UpdatedAt)).Scan(&a.ID)
	} else {
		a.ID = existing.ID
		_, err = t.exec(ctx, `UPDATE artifacts SET produced_by = ?, description = ?, version = ?, bb_refs = ?,
			created_at = ?, updated_at = ? WHERE id = ?`,
			a.ProducedBy, a.Description, version, string(refs), ts(a.CreatedAt), ts(a.UpdatedAt), a.ID)
	}
	if err != nil {
		return false, err
	}
	return created, t.SetRefs(ctx, hub.RefOwnerArtifact, itoa(a.ID), a.Refs)
}

func (t *tx) BoardArtifactByPath(ctx context.Context, path string) (*hub.Artifact, error) {
	a, err := scanArtifact(t.row(ctx, `SELECT `+artifactCols+` FROM artifacts WHERE path = ? AND task_id = ''`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

func (t *tx) ListBoardArtifacts(ctx context.Context, f hub.ArtifactFilter) ([]hub.Artifact, error) {
	where := []string{`task_id = ''`}
	var args []any
	if f.By != "" {
		where = append(where, `produced_by = ?`)
		args = append(args, f.By)
	}
	if !f.Since.IsZero() {
		where = append(where, `updated_at >= ?`)
		args = append(args, ts(f.Since))
	}
	if f.Ref != nil {
		where = append(where, `CAST(id AS TEXT) IN (SELECT owner_id FROM refs WHERE owner_kind = 'artifact' AND ref_where = ? AND ref_what = ? AND ref_ref = ?)`)
		args = append(args, f.Ref.Where, f.Ref.What, f.Ref.Ref.Text)
	}
	q := `SELECT ` + artifactCols + ` FROM artifacts WHERE ` + strings.Join(where, " AND ") + ` ORDER BY updated_at DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Artifact{}
	for rows.Next() {
		a, err := scanArtifact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}

func (t *tx) CountBoardArtifacts(ctx context.Context) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT COUNT(*) FROM artifacts WHERE task_id = ''`).Scan(&n)
	return n, err
}

func (t *tx) DeleteBoardArtifacts(ctx context.Context) (int64, error) {
	if _, err := t.exec(ctx, `DELETE FROM refs WHERE owner_kind = 'artifact' AND owner_id IN (SELECT CAST(id AS TEXT) FROM artifacts WHERE task_id = '')`); err != nil {
		return 0, err
	}
	res, err := t.exec(ctx, `DELETE FROM artifacts WHERE task_id = ''`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
