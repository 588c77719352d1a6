package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func (t *tx) ReceiptOf(ctx context.Context, m *hub.Message, agent string) (hub.Receipt, error) {
	r := hub.Receipt{MessageUUID: m.UUID, Agent: agent}
	if !m.IsBroadcast() {
		var readAt, ackedAt sql.NullString
		err := t.row(ctx, `SELECT read_at, acked_at FROM messages WHERE id = ?`, m.UUID).Scan(&readAt, &ackedAt)
		if errors.Is(err, sql.ErrNoRows) {
			return r, nil
		}
		if err != nil {
			return r, err
		}
		if agent == m.To {
			r.ReadAt, r.AckedAt = parseNullTS(readAt), parseNullTS(ackedAt)
		}
		return r, nil
	}
	var readAt, ackedAt sql.NullString
	err := t.row(ctx, `SELECT read_at, acked_at FROM broadcast_acks WHERE message_id = ? AND agent = ?`, m.UUID, agent).Scan(&readAt, &ackedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	r.ReadAt, r.AckedAt = parseNullTS(readAt), parseNullTS(ackedAt)
	return r, nil
}

func (t *tx) MarkRead(ctx context.Context, m *hub.Message, agent string, at time.Time) error {
	if !m.IsBroadcast() {
		_, err := t.exec(ctx, `UPDATE messages SET read_at = ? WHERE id = ? AND read_at IS NULL`, ts(at), m.UUID)
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO broadcast_acks (message_id, agent, read_at) VALUES (?, ?, ?)
		ON CONFLICT (message_id, agent) DO UPDATE SET read_at = excluded.read_at WHERE broadcast_acks.read_at IS NULL`,
		m.UUID, agent, ts(at))
	return err
}

func (t *tx) MarkAcked(ctx context.Context, m *hub.Message, agent string, at time.Time) error {
	if !m.IsBroadcast() {
		_, err := t.exec(ctx, `UPDATE messages SET acked_at = ? WHERE id = ? AND acked_at IS NULL`, ts(at), m.UUID)
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO broadcast_acks (message_id, agent, acked_at) VALUES (?, ?, ?)
		ON CONFLICT (message_id, agent) DO UPDATE SET acked_at = excluded.acked_at WHERE broadcast_acks.acked_at IS NULL`,
		m.UUID, agent, ts(at))
	return err
}
