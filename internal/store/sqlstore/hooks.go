package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const hookSessionCols = `client, session_id, agent_id, client_pid, created_at, last_seen, reminded, idle_since`

func scanHookSession(sc interface{ Scan(...any) error }) (*hub.HookSession, error) {
	var hs hub.HookSession
	var created, seen, idle string
	if err := sc.Scan(&hs.Client, &hs.SessionID, &hs.AgentID, &hs.ClientPID, &created, &seen, &hs.Reminded, &idle); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	d := decodeRow("hook_sessions", func() string { return hs.Client + "/" + hs.SessionID })
	hs.CreatedAt, hs.LastSeen = d.time("created_at", created), d.time("last_seen", seen)
	if idle != "" {
		hs.IdleSince = d.time("idle_since", idle)
	}
	return &hs, d.Err()
}

func (t *tx) GetHookSession(ctx context.Context, client, sessionID string) (*hub.HookSession, error) {
	return scanHookSession(t.row(ctx, `SELECT `+hookSessionCols+` FROM hook_sessions WHERE client = ? AND session_id = ?`, client, sessionID))
}

func (t *tx) PutHookSession(ctx context.Context, hs *hub.HookSession) error {
	_, err := t.exec(ctx, `INSERT INTO hook_sessions (`+hookSessionCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (client, session_id) DO UPDATE SET agent_id = excluded.agent_id, client_pid = excluded.client_pid,
		last_seen = excluded.last_seen, reminded = excluded.reminded, idle_since = excluded.idle_since`,
		hs.Client, hs.SessionID, hs.AgentID, hs.ClientPID, ts(hs.CreatedAt), ts(hs.LastSeen), hs.Reminded, tsOrEmpty(hs.IdleSince))
	return err
}

func (t *tx) HookSessionByPID(ctx context.Context, client string, pid int64) (*hub.HookSession, error) {
	q := `SELECT ` + hookSessionCols + ` FROM hook_sessions WHERE client_pid = ?`
	args := []any{pid}
	if client != "" {
		q += ` AND client = ?`
		args = append(args, client)
	}
	return scanHookSession(t.row(ctx, q+` ORDER BY last_seen DESC LIMIT 1`, args...))
}

func (t *tx) IdleHookSessions(ctx context.Context, since time.Time, limit int) ([]hub.HookSession, error) {
	rows, err := t.query(ctx, `SELECT `+hookSessionCols+` FROM hook_sessions WHERE idle_since <> '' AND idle_since >= ?
		ORDER BY idle_since DESC, client, session_id LIMIT ?`, ts(since), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.HookSession{}
	for rows.Next() {
		hs, err := scanHookSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *hs)
	}
	return out, rows.Err()
}

func (t *tx) HookAgents(ctx context.Context, limit int) ([]string, error) {
	rows, err := t.query(ctx, `SELECT agent_id, MAX(last_seen) AS seen FROM hook_sessions GROUP BY agent_id ORDER BY seen DESC, agent_id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id, seen string
		if err := rows.Scan(&id, &seen); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (t *tx) Undelivered(ctx context.Context, agent string, cursor int64, since time.Time, limit int) ([]hub.Message, error) {
	notDelivered := `NOT EXISTS (SELECT 1 FROM mail_deliveries d WHERE d.message_id = m.id AND d.agent = ?)`
	// Every read walks only what is new: the unread rows of the agent's
	// mail, and the urgent broadcasts after the cursor, each kind from its
	// own partial index (high or critical priority; asking for an ack), so
	// the many ordinary board posts are never read.
	// The unread rows are sorted, not found by walking the seq index: on
	// PostgreSQL an index order would walk the whole history whenever the
	// agent has fewer unread rows than the limit ("m.seq + 0" is no index
	// order).
	direct, err := t.messages(ctx, `SELECT `+messageCols+` FROM messages m`+t.indexed("idx_messages_unread")+
		` LEFT JOIN messages p ON p.id = m.reply_to WHERE m.recipient = ? AND m.recipient <> '*' AND m.sender <> ?
		AND m.read_at IS NULL AND m.acked_at IS NULL AND `+notDelivered+` ORDER BY m.seq + 0 LIMIT ?`,
		agent, agent, agent, limit)
	if err != nil {
		return nil, err
	}
	due := ` AND m.seq > ? AND m.created >= ? AND m.sender <> ?
		AND NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.agent = ?
			AND (b.read_at IS NOT NULL OR b.acked_at IS NOT NULL))
		AND ` + notDelivered + ` ORDER BY m.seq LIMIT ?`
	args := []any{cursor, ts(since), agent, agent, agent, limit}
	urgent, err := t.messages(ctx, `SELECT `+messageCols+` FROM messages m`+t.indexed("idx_messages_urgent_seq")+
		` LEFT JOIN messages p ON p.id = m.reply_to WHERE m.priority IN ('high', 'critical') AND m.recipient = '*'`+due, args...)
	if err != nil {
		return nil, err
	}
	asking, err := t.messages(ctx, `SELECT `+messageCols+` FROM messages m`+t.indexed("idx_messages_ack_required")+
		` LEFT JOIN messages p ON p.id = m.reply_to WHERE m.recipient = '*' AND m.requires_ack = 1`+due, args...)
	if err != nil {
		return nil, err
	}
	out := append(direct, urgent...)
	for _, m := range asking {
		if !m.RequiresAck || m.Priority != hub.PriorityHigh && m.Priority != hub.PriorityCritical {
			out = append(out, m) // an urgent one asking for an ack is there already
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (t *tx) UnackedSentBy(ctx context.Context, agent string, before time.Time, limit int) ([]hub.Message, error) {
	// Direct mail from the partial index of what still waits for its ack;
	// a broadcast waits until anybody accepts it.
	return t.messages(ctx, `SELECT `+messageCols+` FROM messages m`+t.indexed("idx_messages_sender_unacked")+
		` LEFT JOIN messages p ON p.id = m.reply_to WHERE m.sender = ? AND m.requires_ack = 1 AND m.acked_at IS NULL
		AND m.category IN ('`+hub.CategoryHandoff+`', '`+hub.CategoryBlocked+`') AND m.created <= ?
		AND (m.recipient <> '*' OR NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.acked_at IS NOT NULL))
		ORDER BY m.seq LIMIT ?`, agent, ts(before), limit)
}

func (t *tx) DeliveryCursor(ctx context.Context, agent string) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT delivery_cursor FROM agents WHERE id = ?`, agent).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

func (t *tx) RaiseDeliveryCursor(ctx context.Context, agent string, seq int64) error {
	_, err := t.exec(ctx, `UPDATE agents SET delivery_cursor = ? WHERE id = ? AND delivery_cursor < ?`, seq, agent, seq)
	return err
}

func (t *tx) MarkDelivered(ctx context.Context, agent string, messageIDs []string, at time.Time, via string) error {
	for _, id := range messageIDs {
		if _, err := t.exec(ctx, `INSERT INTO mail_deliveries (message_id, agent, delivered_at, via) VALUES (?, ?, ?, ?)
			ON CONFLICT (message_id, agent) DO NOTHING`, id, agent, ts(at), via); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) DeliveredAt(ctx context.Context, agent string, messageIDs []string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	for n, args := range inLists(messageIDs, agent) {
		rows, err := t.query(ctx, `SELECT message_id, delivered_at FROM mail_deliveries WHERE agent = ? AND message_id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, at string
			if err := rows.Scan(&id, &at); err != nil {
				rows.Close()
				return nil, err
			}
			d := decodeRow("mail_deliveries", func() string { return id + "/" + agent })
			out[id] = d.time("delivered_at", at)
			if err := d.Err(); err != nil {
				rows.Close()
				return nil, err
			}
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *tx) DeliveredVia(ctx context.Context, agent string, messageIDs []string) (map[string]hub.DeliveryMark, error) {
	out := map[string]hub.DeliveryMark{}
	for n, args := range inLists(messageIDs, agent) {
		rows, err := t.query(ctx, `SELECT message_id, delivered_at, via FROM mail_deliveries WHERE agent = ? AND message_id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, at, via string
			if err := rows.Scan(&id, &at, &via); err != nil {
				rows.Close()
				return nil, err
			}
			d := decodeRow("mail_deliveries", func() string { return id + "/" + agent })
			out[id] = hub.DeliveryMark{At: d.time("delivered_at", at), Via: via}
			if err := d.Err(); err != nil {
				rows.Close()
				return nil, err
			}
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *tx) GetConfig(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := t.row(ctx, `SELECT value FROM board_config WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

func (t *tx) SetConfig(ctx context.Context, key, value string, now time.Time) error {
	if strings.TrimSpace(value) == "" {
		_, err := t.exec(ctx, `DELETE FROM board_config WHERE key = ?`, key)
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO board_config (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, value, ts(now))
	return err
}

func (t *tx) ListConfig(ctx context.Context) (map[string]string, error) {
	rows, err := t.query(ctx, `SELECT key, value FROM board_config ORDER BY key`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}
