package sqlstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

const eventCols = `seq, id, type, agent, to_agent, bead_id, task_id, project_id, scope, message, payload, created_at, archived, credential`

func (t *tx) AppendEvent(ctx context.Context, e *hub.Event) error {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	payload := string(e.Payload)
	if payload == "" {
		payload = "{}"
	}
	if e.Credential == "" {
		e.Credential = hub.AuditCredential(ctx)
	}
	q := `INSERT ` + t.d.AppendOnly + `INTO events (id, type, agent, to_agent, bead_id, task_id, project_id, scope, message, payload, created_at, archived, credential)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	args := []any{e.ID, e.Type, e.Agent, e.ToAgent, e.BeadID, e.TaskID, e.ProjectID, e.Scope, e.Message, payload,
		ts(e.CreatedAt), b2i(e.Archived), e.Credential}
	if t.ordered {
		// An ordered write (hub.OrderAtCommit) learns no event seq: the
		// event travels with the next round trip, under the write lock.
		return t.execBlind(ctx, q, args...)
	}
	return t.scalar(ctx, []any{&e.Seq}, q+` RETURNING seq`, args...)
}

func (t *tx) ListEvents(ctx context.Context, f hub.EventFilter) ([]hub.Event, error) {
	where := []string{`seq > ?`}
	args := []any{f.AfterSeq}
	if len(f.Types) > 0 {
		where = append(where, `type IN (`+placeholders(len(f.Types))+`)`)
		for _, ty := range f.Types {
			args = append(args, ty)
		}
	}
	if f.Agent != "" {
		where = append(where, `(agent = ? OR to_agent = ?)`)
		args = append(args, f.Agent, f.Agent)
	}
	if f.BeadID != "" {
		// A work item's events: those about it as a bead (mail,
		// reservations) and, when it is a task, those about the task.
		where = append(where, `(bead_id = ? OR task_id = ?)`)
		args = append(args, f.BeadID, f.BeadID)
	}
	if f.TaskID != "" {
		where = append(where, `task_id = ?`)
		args = append(args, f.TaskID)
	}
	order := ` ORDER BY seq`
	if f.Desc {
		order = ` ORDER BY seq DESC`
	}
	q := `SELECT ` + eventCols + ` FROM events WHERE ` + strings.Join(where, " AND ") + order
	if f.Limit > 0 {
		q += ` LIMIT ` + itoa(int64(f.Limit)) // literal: see ListMessages
	}
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

// scanEvent reads one row of eventCols.
func scanEvent(sc interface{ Scan(...any) error }) (hub.Event, error) {
	var e hub.Event
	var payload, created string
	var archived int
	if err := sc.Scan(&e.Seq, &e.ID, &e.Type, &e.Agent, &e.ToAgent, &e.BeadID, &e.TaskID, &e.ProjectID,
		&e.Scope, &e.Message, &payload, &created, &archived, &e.Credential); err != nil {
		return e, err
	}
	d := decodeRow("events", func() string { return itoa(e.Seq) })
	e.Payload = []byte(payload)
	e.CreatedAt = d.time("created_at", created)
	e.Archived = archived != 0
	return e, d.Err()
}

func (t *tx) LastEventSeq(ctx context.Context) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&n)
	return n, err
}
