package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

func (t *tx) GetIdempotent(ctx context.Context, agent, requestID string) (string, []byte, bool, error) {
	var cmd, reply string
	err := t.row(ctx, `SELECT command, reply FROM idempotency WHERE agent = ? AND request_id = ?`, agent, requestID).Scan(&cmd, &reply)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	return cmd, []byte(reply), true, nil
}

func (t *tx) PutIdempotent(ctx context.Context, agent, requestID, command string, reply []byte, now time.Time) error {
	_, err := t.exec(ctx, `INSERT INTO idempotency (agent, request_id, command, reply, created_at) VALUES (?, ?, ?, ?, ?)`,
		agent, requestID, command, string(reply), ts(now))
	return err
}
