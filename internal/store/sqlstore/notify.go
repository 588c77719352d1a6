package sqlstore

import (
	"context"
	"time"
)

func (t *tx) NotifiedOf(ctx context.Context, channel string, ids []string) ([]string, error) {
	var out []string
	for n, args := range inLists(ids, channel) {
		rows, err := t.query(ctx, `SELECT item_id FROM attention_notified WHERE channel = ? AND item_id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, id)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *tx) MarkNotified(ctx context.Context, channel string, ids []string, at, forgetBefore time.Time) error {
	if _, err := t.exec(ctx, `DELETE FROM attention_notified WHERE channel = ? AND sent_at < ?`, channel, ts(forgetBefore)); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := t.exec(ctx, `INSERT INTO attention_notified (channel, item_id, sent_at) VALUES (?, ?, ?)
			ON CONFLICT (channel, item_id) DO NOTHING`, channel, id, ts(at)); err != nil {
			return err
		}
	}
	return nil
}
