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

// Agent Mail (seed 004) queries. Expiry and ordering decisions are the
// core's; these only fetch rows along the indexes of migration 004.

const mailCols = `id, sender, recipient, subject, body, refs, reply_to, type, ttl_hours, created, read_at, acked_at, seq`

func scanMail(sc interface{ Scan(...any) error }) (hub.MailRow, error) {
	var r hub.MailRow
	var refs, replyTo, readAt, ackedAt sql.NullString
	var ttl, seq sql.NullInt64
	if err := sc.Scan(&r.ID, &r.Sender, &r.Recipient, &r.Subject, &r.Body, &refs, &replyTo, &r.Type, &ttl,
		&r.Created, &readAt, &ackedAt, &seq); err != nil {
		return r, err
	}
	r.Refs, r.ReplyTo, r.ReadAt, r.AckedAt = nullStr(refs), nullStr(replyTo), nullStr(readAt), nullStr(ackedAt)
	if ttl.Valid {
		h := int(ttl.Int64)
		r.TTLHours = &h
	}
	r.Seq = seq.Int64
	return r, nil
}

func nullStr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

func (t *tx) mailRows(ctx context.Context, q string, args ...any) ([]hub.MailRow, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.MailRow{}
	for rows.Next() {
		r, err := scanMail(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (t *tx) MailInbox(ctx context.Context, q hub.MailInboxQuery) ([]hub.MailRow, error) {
	recipient := q.Agent
	if q.Broadcast {
		recipient = hub.Broadcast
	}
	where := `recipient = ? AND sender <> ?`
	args := []any{recipient, q.Agent}
	from := `messages`
	if q.Unread {
		if q.Broadcast {
			// Only the broadcasts after the reader's mail cursor (all
			// before it are read): a range of (recipient, requires_ack,
			// seq), not every broadcast of the board's history.
			from += t.indexed("idx_messages_recipient_ack_seq")
			where += ` AND requires_ack IN (0, 1) AND seq > COALESCE((SELECT mail_cursor FROM agents WHERE id = ?), 0)
				AND NOT EXISTS (SELECT 1 FROM broadcast_acks ba
				WHERE ba.message_id = messages.id AND ba.agent = ? AND ba.read_at IS NOT NULL)`
			args = append(args, q.Agent, q.Agent)
		} else {
			from += t.indexed("idx_messages_unread")
			where += ` AND read_at IS NULL AND recipient <> '*'`
		}
	}
	if q.From != "" {
		where += ` AND sender = ?`
		args = append(args, q.From)
	}
	sqlq := `SELECT ` + mailCols + ` FROM ` + from + ` WHERE ` + where + ` ORDER BY created`
	if q.Limit >= 0 {
		sqlq += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	return t.mailRows(ctx, sqlq, args...)
}

// AdvanceMailCursor moves agent's mail cursor over the broadcasts it has
// read since (see advanceCursor).
func (t *tx) AdvanceMailCursor(ctx context.Context, agent string) error {
	return t.advanceCursor(ctx, agent, "mail_cursor", "read_at", "0, 1")
}

// AdvanceAckCursor moves agent's ack cursor over the broadcasts asking for
// an ack that it has acked since (see advanceCursor).
func (t *tx) AdvanceAckCursor(ctx context.Context, agent string) error {
	return t.advanceCursor(ctx, agent, "ack_cursor", "acked_at", "1")
}

// advanceCursor moves the agents column cursor to just before the oldest
// broadcast after it (requires_ack in acks, not the agent's own) without
// the agent's receipt column set, or to the newest message when there is
// none. Each call walks only what was read or acked since the last one.
func (t *tx) advanceCursor(ctx context.Context, agent, cursor, receipt, acks string) error {
	var cur int64
	err := t.row(ctx, `SELECT `+cursor+` FROM agents WHERE id = ?`, agent).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	next := int64(-1)
	for _, ack := range strings.Split(acks, ", ") {
		var seq int64
		err := t.row(ctx, `SELECT m.seq FROM messages m`+t.indexed("idx_messages_recipient_ack_seq")+`
			WHERE m.recipient = '*' AND m.requires_ack = `+ack+` AND m.seq > ? AND m.sender <> ?
			AND NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.agent = ? AND b.`+receipt+` IS NOT NULL)
			ORDER BY m.seq LIMIT 1`, cur, agent, agent).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		if next < 0 || seq-1 < next {
			next = seq - 1
		}
	}
	if next < 0 {
		if next, err = t.LastMessageSeq(ctx); err != nil {
			return err
		}
	}
	if next <= cur {
		return nil
	}
	_, err = t.exec(ctx, `UPDATE agents SET `+cursor+` = ? WHERE id = ?`, next, agent)
	return err
}

func (t *tx) MailByID(ctx context.Context, id string) (*hub.MailRow, error) {
	r, err := scanMail(t.row(ctx, `SELECT `+mailCols+` FROM messages WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (t *tx) MailReplyTo(ctx context.Context, id string) (string, bool, error) {
	var parent sql.NullString
	err := t.row(ctx, `SELECT reply_to FROM messages WHERE id = ?`, id).Scan(&parent)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return parent.String, err == nil, err
}

func (t *tx) MailThread(ctx context.Context, rootID string) ([]hub.MailRow, error) {
	// UNION (not UNION ALL) ends the walk on reply_to cycles.
	return t.mailRows(ctx, `WITH RECURSIVE thread(id) AS (
			SELECT id FROM messages WHERE id = ?
			UNION
			SELECT m.id FROM messages m JOIN thread t ON m.reply_to = t.id WHERE m.reply_to IS NOT NULL
		)
		SELECT `+mailCols+` FROM messages WHERE id IN (SELECT id FROM thread) ORDER BY created`, rootID)
}

func (t *tx) MailAgents(ctx context.Context) ([]string, error) {
	// A skip scan over the sender and recipient indexes: one index probe
	// per distinct agent instead of reading every message.
	seen := map[string]bool{}
	for _, col := range []string{"sender", "recipient"} {
		var last sql.NullString
		for {
			var next sql.NullString
			q := `SELECT MIN(` + col + `) FROM messages`
			var args []any
			if last.Valid {
				q += ` WHERE ` + col + ` > ?`
				args = append(args, last.String)
			}
			if err := t.row(ctx, q, args...).Scan(&next); err != nil {
				return nil, err
			}
			if !next.Valid {
				break
			}
			if !(col == "recipient" && next.String == hub.Broadcast) {
				seen[next.String] = true
			}
			last = next
		}
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out, nil
}

func (t *tx) MailFirstSeen(ctx context.Context, id string) (string, bool, error) {
	var first sql.NullString
	err := t.row(ctx, `SELECT MIN(c) FROM (
			SELECT MIN(created) AS c FROM messages WHERE sender = ?
			UNION ALL SELECT MIN(created) AS c FROM messages WHERE recipient = ?) AS seen`, id, id).Scan(&first)
	return first.String, first.Valid, err
}

const mailChunk = 500

// MailCounts reads the running totals the triggers of migration 027 keep
// (mail_counts per agent, broadcast_senders per sender), so its cost does
// not grow with the board's history.
func (t *tx) MailCounts(ctx context.Context, agents []string) ([]hub.MailCounts, error) {
	type totals struct{ directUnread, directUnacked, read, acked int64 }
	per := map[string]totals{}
	for start := 0; start < len(agents); start += mailChunk {
		chunk := agents[start:min(start+mailChunk, len(agents))]
		args := make([]any, len(chunk))
		for i, a := range chunk {
			args[i] = a
		}
		rows, err := t.query(ctx, `SELECT agent, direct_unread, direct_unacked, broadcasts_read, broadcasts_acked
			FROM mail_counts WHERE agent IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var a string
			var c totals
			if err := rows.Scan(&a, &c.directUnread, &c.directUnacked, &c.read, &c.acked); err != nil {
				rows.Close()
				return nil, err
			}
			per[a] = c
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	// Broadcasts each agent did not send itself.
	var total int64
	sent := map[string]int64{}
	rows, err := t.query(ctx, `SELECT sender, broadcasts FROM broadcast_senders`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		sent[s] = n
		total += n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]hub.MailCounts, 0, len(agents))
	for _, a := range agents {
		c, b := per[a], total-sent[a]
		out = append(out, hub.MailCounts{Agent: a, Unread: c.directUnread + b - c.read, Unacked: c.directUnacked + b - c.acked})
	}
	return out, nil
}

const mailExpiryCols = `id, sender, subject, ttl_hours, created, seq`

// regularCreated matches the UTC storage format family ("T" separator,
// "+00:00" offset), whose text order is time order.
const regularCreated = `'____-__-__T%+00:00'`

// regularExpired selects the regular rows older than the cutoff (first
// argument) along idx_messages_expiring.
const regularExpired = `ttl_hours IS NOT NULL AND created < ? AND ttl_hours = 24 AND created LIKE ` + regularCreated

func (t *tx) MailExpiryCandidates(ctx context.Context, regularCutoff time.Time) ([]hub.MailRow, []hub.MailRow, error) {
	scan := func(q string, args ...any) ([]hub.MailRow, error) {
		rows, err := t.query(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := []hub.MailRow{}
		for rows.Next() {
			var r hub.MailRow
			var ttl, seq sql.NullInt64
			if err := rows.Scan(&r.ID, &r.Sender, &r.Subject, &ttl, &r.Created, &seq); err != nil {
				return nil, err
			}
			if ttl.Valid {
				h := int(ttl.Int64)
				r.TTLHours = &h
			}
			r.Seq = seq.Int64
			out = append(out, r)
		}
		return out, rows.Err()
	}
	regular, err := scan(`SELECT `+mailExpiryCols+` FROM messages WHERE `+regularExpired+` ORDER BY created`, ts(regularCutoff))
	if err != nil {
		return nil, nil, err
	}
	irregular, err := scan(`SELECT ` + mailExpiryCols + ` FROM messages
		WHERE ttl_hours IS NOT NULL AND (ttl_hours <> 24 OR created NOT LIKE ` + regularCreated + `)
		ORDER BY created`)
	if err != nil {
		return nil, nil, err
	}
	return regular, irregular, nil
}

func (t *tx) DeleteMailBefore(ctx context.Context, regularCutoff time.Time, keep []string) error {
	if err := t.indexMessages(ctx); err != nil {
		return err
	}
	where := regularExpired
	args := []any{ts(regularCutoff)}
	if len(keep) > 0 {
		where += ` AND id NOT IN (` + placeholders(len(keep)) + `)`
		for _, id := range keep {
			args = append(args, id)
		}
	}
	sub := `(SELECT id FROM messages WHERE ` + where + `)`
	for _, q := range []string{
		`DELETE FROM broadcast_acks WHERE message_id IN ` + sub,
		`DELETE FROM message_tags WHERE message_id IN ` + sub,
		`DELETE FROM refs WHERE owner_kind = 'message' AND owner_id IN ` + sub,
		`DELETE FROM messages WHERE ` + where,
	} {
		if _, err := t.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) DeleteMail(ctx context.Context, ids []string) error {
	if err := t.indexMessages(ctx); err != nil {
		return err
	}
	for start := 0; start < len(ids); start += mailChunk {
		chunk := ids[start:min(start+mailChunk, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		in := `(` + placeholders(len(chunk)) + `)`
		for _, q := range []string{
			`DELETE FROM broadcast_acks WHERE message_id IN ` + in,
			`DELETE FROM message_tags WHERE message_id IN ` + in,
			`DELETE FROM refs WHERE owner_kind = 'message' AND owner_id IN ` + in,
			`DELETE FROM messages WHERE id IN ` + in,
		} {
			if _, err := t.exec(ctx, q, args...); err != nil {
				return err
			}
		}
	}
	return nil
}
