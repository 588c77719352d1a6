package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const messageCols = `m.id, m.sender, m.recipient, m.subject, m.body, m.refs, m.reply_to, m.type, m.ttl_hours,
	m.created, m.read_at, m.acked_at, m.seq, m.tags, m.priority, m.bb_refs, m.category, m.thread_id,
	m.bead_id, m.requires_ack, p.seq`

const messageFrom = ` FROM messages m LEFT JOIN messages p ON p.id = m.reply_to`

func scanMessage(sc interface{ Scan(...any) error }) (*hub.Message, error) {
	var m hub.Message
	var refs, replyTo, readAt, ackedAt sql.NullString
	var ttl, seq, parentSeq sql.NullInt64
	var created, tags, prio, bbRefs string
	var reqAck int
	if err := sc.Scan(&m.UUID, &m.From, &m.To, &m.Subject, &m.Body, &refs, &replyTo, &m.Type, &ttl,
		&created, &readAt, &ackedAt, &seq, &tags, &prio, &bbRefs, &m.Category, &m.ThreadID,
		&m.BeadID, &reqAck, &parentSeq); err != nil {
		return nil, err
	}
	if refs.Valid {
		s := refs.String
		m.MailRefs = &s
	}
	m.ReplyTo = replyTo.String
	if ttl.Valid {
		h := int(ttl.Int64)
		m.TTLHours = &h
	}
	m.CreatedAt = parseTS(created)
	m.ReadAt, m.AckedAt = parseNullTS(readAt), parseNullTS(ackedAt)
	m.Seq = seq.Int64
	if parentSeq.Valid {
		ps := parentSeq.Int64
		m.ReplyToSeq = &ps
	}
	m.Tags = []string{}
	_ = json.Unmarshal([]byte(tags), &m.Tags)
	if m.Tags == nil {
		m.Tags = []string{}
	}
	m.Priority = hub.Priority(prio)
	m.Refs = []hub.Ref{}
	_ = json.Unmarshal([]byte(bbRefs), &m.Refs)
	if m.Refs == nil {
		m.Refs = []hub.Ref{}
	}
	m.RequiresAck = reqAck != 0
	return &m, nil
}

func (t *tx) InsertMessage(ctx context.Context, m *hub.Message) error {
	if m.Seq == 0 {
		if err := t.row(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages`).Scan(&m.Seq); err != nil {
			return err
		}
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if m.Refs == nil {
		m.Refs = []hub.Ref{}
	}
	if m.Priority == "" {
		m.Priority = hub.PriorityNormal
	}
	if m.Type == "" {
		m.Type = "direct"
		if m.IsBroadcast() {
			m.Type = "broadcast"
		}
	}
	tags, _ := json.Marshal(m.Tags)
	refs, _ := json.Marshal(m.Refs)
	var ttl, mailRefs, replyTo any
	if m.TTLHours != nil {
		ttl = *m.TTLHours
	}
	if m.MailRefs != nil {
		mailRefs = *m.MailRefs
	}
	if m.ReplyTo != "" {
		replyTo = m.ReplyTo
	}
	_, err := t.exec(ctx, `INSERT INTO messages (id, sender, recipient, subject, body, refs, reply_to, type, ttl_hours,
		created, read_at, acked_at, seq, tags, priority, bb_refs, category, thread_id, bead_id, requires_ack)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.UUID, m.From, m.To, m.Subject, m.Body, mailRefs, replyTo, m.Type, ttl,
		ts(m.CreatedAt), nullTS(m.ReadAt), nullTS(m.AckedAt), m.Seq, string(tags), string(m.Priority), string(refs),
		m.Category, m.ThreadID, m.BeadID, b2i(m.RequiresAck))
	if err != nil {
		return err
	}
	for _, tag := range m.Tags {
		if _, err := t.exec(ctx, `INSERT INTO message_tags (message_id, tag, seq) VALUES (?, ?, ?)`, m.UUID, tag, m.Seq); err != nil {
			return err
		}
	}
	return t.SetRefs(ctx, hub.RefOwnerMessage, m.UUID, m.Refs)
}

func (t *tx) oneMessage(ctx context.Context, where string, arg any) (*hub.Message, error) {
	m, err := scanMessage(t.row(ctx, `SELECT `+messageCols+messageFrom+` WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return m, err
}

func (t *tx) MessageBySeq(ctx context.Context, seq int64) (*hub.Message, error) {
	return t.oneMessage(ctx, `m.seq = ?`, seq)
}

func (t *tx) MessageByUUID(ctx context.Context, id string) (*hub.Message, error) {
	return t.oneMessage(ctx, `m.id = ?`, id)
}

func (t *tx) ListMessages(ctx context.Context, f hub.MessageFilter) ([]hub.Message, error) {
	var where []string
	var args []any
	if !f.Since.IsZero() {
		// The MIN(seq) bound lets the planner walk the seq index from the
		// first recent message instead of scanning the whole table.
		where = append(where, `m.seq >= (SELECT MIN(seq) FROM messages WHERE created >= ?) AND m.created >= ?`)
		args = append(args, ts(f.Since), ts(f.Since))
	}
	if f.From != "" {
		where = append(where, `m.sender = ?`)
		args = append(args, f.From)
	}
	if len(f.Priorities) > 0 {
		where = append(where, `m.priority IN (`+placeholders(len(f.Priorities))+`)`)
		for _, p := range f.Priorities {
			args = append(args, string(p))
		}
	}
	if len(f.Tags) > 0 {
		where = append(where, `m.id IN (SELECT message_id FROM message_tags WHERE tag IN (`+placeholders(len(f.Tags))+`))`)
		for _, tg := range f.Tags {
			args = append(args, tg)
		}
	}
	if f.Ref != nil {
		where = append(where, `m.id IN (SELECT owner_id FROM refs WHERE owner_kind = 'message' AND ref_where = ? AND ref_what = ? AND ref_ref = ?)`)
		args = append(args, f.Ref.Where, f.Ref.What, f.Ref.Ref.Text)
	}
	where = append(where, `m.seq IS NOT NULL`)
	q := `SELECT ` + messageCols + messageFrom + ` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY m.seq DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return t.messages(ctx, q, args...)
}

func (t *tx) messages(ctx context.Context, q string, args ...any) ([]hub.Message, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	return out, rows.Err()
}

func (t *tx) Replies(ctx context.Context, parentUUID string, limit int) ([]hub.Message, error) {
	return t.messages(ctx, `SELECT `+messageCols+messageFrom+` WHERE m.reply_to = ? ORDER BY m.created, m.seq LIMIT ?`, parentUUID, limit)
}

func (t *tx) CountMessagesBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT COUNT(*) FROM messages WHERE created < ?`, ts(cutoff)).Scan(&n)
	return n, err
}

func (t *tx) DeleteMessagesBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	c := ts(cutoff)
	for _, q := range []string{
		`DELETE FROM broadcast_acks WHERE message_id IN (SELECT id FROM messages WHERE created < ?)`,
		`DELETE FROM message_tags WHERE message_id IN (SELECT id FROM messages WHERE created < ?)`,
		`DELETE FROM refs WHERE owner_kind = 'message' AND owner_id IN (SELECT id FROM messages WHERE created < ?)`,
	} {
		if _, err := t.exec(ctx, q, c); err != nil {
			return 0, err
		}
	}
	res, err := t.exec(ctx, `DELETE FROM messages WHERE created < ?`, c)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) UnreadCount(ctx context.Context, agent string, limit int) (int64, error) {
	var direct, bcast int64
	if err := t.row(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE recipient = ? AND sender <> ?
		AND read_at IS NULL AND acked_at IS NULL LIMIT ?) x`, agent, agent, limit).Scan(&direct); err != nil {
		return 0, err
	}
	if err := t.row(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM messages m
		WHERE m.seq > COALESCE((SELECT read_cursor FROM agents WHERE id = ?), 0)
		AND m.recipient = '*' AND m.sender <> ?
		AND NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.agent = ?
			AND (b.read_at IS NOT NULL OR b.acked_at IS NOT NULL))
		LIMIT ?) x`, agent, agent, agent, limit).Scan(&bcast); err != nil {
		return 0, err
	}
	n := direct + bcast
	if n > int64(limit) {
		n = int64(limit)
	}
	return n, nil
}

func (t *tx) LastMessageSeq(ctx context.Context) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT COALESCE(MAX(seq), 0) FROM messages`).Scan(&n)
	return n, err
}
