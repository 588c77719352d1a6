package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func (t *tx) GetIdempotent(ctx context.Context, agent, requestID string) (*hub.IdemRecord, error) {
	var cmd, fp, reply string
	err := t.row(ctx, `SELECT command, fingerprint, reply FROM idempotency WHERE agent = ? AND request_id = ?`, agent, requestID).Scan(&cmd, &fp, &reply)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &hub.IdemRecord{Command: cmd, Fingerprint: fp, Reply: []byte(reply)}, nil
}

func (t *tx) PutIdempotent(ctx context.Context, agent, requestID string, rec hub.IdemRecord, now time.Time) error {
	_, err := t.exec(ctx, `INSERT INTO idempotency (agent, request_id, command, fingerprint, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		agent, requestID, rec.Command, rec.Fingerprint, string(rec.Reply), ts(now))
	return err
}
