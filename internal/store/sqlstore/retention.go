package sqlstore

import (
	"context"
	"time"
)

// Retention: each call forgets at most limit rows, so that one write
// transaction never holds the write lock long (housekeeping.Retain loops).

// RemoveEventsBefore removes the oldest timeline events, in seq order, as
// long as each was created before cutoff: at most limit of them, and never
// past the first one that is newer, so what is kept is always every event
// after a sequence number (no gap in the middle). It returns how many it
// removed and the highest seq removed (0 when none).
func (t *tx) RemoveEventsBefore(ctx context.Context, cutoff time.Time, limit int) (int64, int64, error) {
	rows, err := t.query(ctx, `SELECT seq, created_at FROM events ORDER BY seq LIMIT ?`, limit)
	if err != nil {
		return 0, 0, err
	}
	c := ts(cutoff)
	var through, first int64
	for rows.Next() {
		var seq int64
		var at string
		if err := rows.Scan(&seq, &at); err != nil {
			rows.Close()
			return 0, 0, err
		}
		if at >= c {
			break
		}
		if first == 0 {
			first = seq
		}
		through = seq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	if through == 0 {
		return 0, 0, nil
	}
	res, err := t.exec(ctx, `DELETE FROM events WHERE seq >= ? AND seq <= ?`, first, through)
	if err != nil {
		return 0, 0, err
	}
	n, err := res.RowsAffected()
	return n, through, err
}

// RemoveReceiptsBefore removes at most limit delivery records (a hook put
// the message into the recipient's context) older than cutoff whose
// message the recipient has since read or acked: such a message is never
// delivered again, so the record only remembers when.
func (t *tx) RemoveReceiptsBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM mail_deliveries WHERE (message_id, agent) IN (
		SELECT d.message_id, d.agent FROM mail_deliveries d JOIN messages m ON m.id = d.message_id
		WHERE d.delivered_at < ? AND (
			(m.recipient = d.agent AND (m.read_at IS NOT NULL OR m.acked_at IS NOT NULL))
			OR EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = d.message_id AND b.agent = d.agent
				AND (b.read_at IS NOT NULL OR b.acked_at IS NOT NULL)))
		LIMIT ?)`, ts(cutoff), limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// RemoveNotifiedBefore removes at most limit records of what a notifier
// told its channels, sent before cutoff.
func (t *tx) RemoveNotifiedBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM attention_notified WHERE (channel, item_id) IN (
		SELECT channel, item_id FROM attention_notified WHERE sent_at < ? LIMIT ?)`, ts(cutoff), limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// CountEventsBefore counts the events created before cutoff.
func (t *tx) CountEventsBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT COUNT(*) FROM events WHERE created_at < ?`, ts(cutoff)).Scan(&n)
	return n, err
}
