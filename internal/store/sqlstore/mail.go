package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
			d := decodeRow("messages", func() string { return m.UUID })
			r.ReadAt, r.AckedAt = d.nullTime("read_at", readAt), d.nullTime("acked_at", ackedAt)
			return r, d.Err()
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
	d := decodeRow("broadcast_acks", func() string { return m.UUID + "/" + agent })
	r.ReadAt, r.AckedAt = d.nullTime("read_at", readAt), d.nullTime("acked_at", ackedAt)
	return r, d.Err()
}

func (t *tx) MarkRead(ctx context.Context, m *hub.Message, agent string, at time.Time) error {
	// With at's own offset (UTC for every surface but agent-mail, which
	// writes the reader's local offset as the original did). Nothing
	// orders or compares read_at as text.
	stamp := at.Format(hub.TimeLayout)
	if !m.IsBroadcast() {
		_, err := t.exec(ctx, `UPDATE messages SET read_at = ? WHERE id = ? AND read_at IS NULL`, stamp, m.UUID)
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO broadcast_acks (message_id, agent, read_at, message_seq) VALUES (?, ?, ?, ?)
		ON CONFLICT (message_id, agent) DO UPDATE SET read_at = excluded.read_at WHERE broadcast_acks.read_at IS NULL`,
		m.UUID, agent, stamp, receiptSeq(m))
	return err
}

func (t *tx) MarkAcked(ctx context.Context, m *hub.Message, agent string, at time.Time) error {
	if !m.IsBroadcast() {
		_, err := t.exec(ctx, `UPDATE messages SET acked_at = ? WHERE id = ? AND acked_at IS NULL`, ts(at), m.UUID)
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO broadcast_acks (message_id, agent, acked_at, message_seq) VALUES (?, ?, ?, ?)
		ON CONFLICT (message_id, agent) DO UPDATE SET acked_at = excluded.acked_at WHERE broadcast_acks.acked_at IS NULL`,
		m.UUID, agent, ts(at), receiptSeq(m))
	return err
}

// receiptSeq is the message_seq of a new receipt of m: its seq, or NULL
// when unknown (the table's trigger then looks it up).
func receiptSeq(m *hub.Message) any {
	if m.Seq <= 0 {
		return nil
	}
	return m.Seq
}

func (t *tx) ReadCursor(ctx context.Context, agent string) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT read_cursor FROM agents WHERE id = ?`, agent).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// extraScan appends extra destinations to a row scan, so scanMessage can
// read the message columns and the caller the columns after them.
type extraScan struct {
	rows  *sql.Rows
	extra []any
}

func (e extraScan) Scan(dest ...any) error { return e.rows.Scan(append(dest, e.extra...)...) }

// Effective receipt columns of the inbox owner: the row for direct
// messages, broadcast_acks (alias b) for broadcasts.
const (
	effRead  = `(CASE WHEN m.recipient = '*' THEN b.read_at ELSE m.read_at END)`
	effAcked = `(CASE WHEN m.recipient = '*' THEN b.acked_at ELSE m.acked_at END)`
)

// Inbox reads a page of an agent's inbox, newest first. Its messages are
// two streams, each read from its own index newest first and cut at the
// page, then merged: what was addressed to the agent, and the broadcasts.
// So the page costs the same on a board of a million messages as on one of
// a thousand (BenchmarkBoardSize); one OR over both would sort them all.
func (t *tx) Inbox(ctx context.Context, f hub.InboxFilter) ([]hub.InboxEntry, error) {
	var parts []string
	var args []any
	add := func(q string, a ...any) {
		parts = append(parts, fmt.Sprintf(`SELECT * FROM (%s) x%d`, q, len(parts)))
		args = append(args, a...)
	}
	const cols = `SELECT m.id, m.created, m.seq, `
	const newest = ` ORDER BY m.created DESC, m.seq DESC LIMIT ?`
	acks := ` LEFT JOIN broadcast_acks b ON b.message_id = m.id AND b.agent = ?`
	switch {
	case f.BeadID != "":
		// One work item's messages are few: walk them.
		where, a := inboxState(f, effRead, effAcked)
		add(cols+effRead+` AS r, `+effAcked+` AS a FROM messages m`+t.indexed("idx_messages_bead")+acks+
			` WHERE m.bead_id = ? AND m.bead_id <> '' AND (m.recipient = ? OR m.recipient = '*') AND m.sender <> ?`+where+newest,
			append(append([]any{f.Agent, f.BeadID, f.Agent, f.Agent}, a...), f.Limit)...)
	case !f.MailOnly && (f.State == hub.StateRead || f.State == hub.StateAcked):
		t.receiptStreams(f, add)
	default:
		// Addressed to the agent.
		index := "idx_messages_recipient_created"
		switch {
		case f.State == hub.StateUnread:
			index = "idx_messages_unread" // only the unread rows
		case f.MailOnly:
			index = "idx_messages_mail_recipient_created"
		}
		where, a := inboxState(f, `m.read_at`, `m.acked_at`)
		add(cols+`m.read_at AS r, m.acked_at AS a FROM messages m`+t.indexed(index)+
			` WHERE m.recipient = ? AND m.recipient <> '*' AND m.sender <> ?`+where+newest, append(append([]any{f.Agent, f.Agent}, a...), f.Limit)...)
		// Broadcasts. The unread ones are those after the agent's read
		// cursor without a receipt: the newest of them by seq, in the two
		// ranges of (recipient, requires_ack, seq), so that a long history
		// read long ago is never walked.
		if f.State == hub.StateUnread {
			where, a := inboxState(f, `b.read_at`, `b.acked_at`)
			for _, ack := range []int{0, 1} {
				add(cols+`b.read_at AS r, b.acked_at AS a FROM messages m`+t.indexed("idx_messages_recipient_ack_seq")+acks+
					` WHERE m.recipient = '*' AND m.requires_ack = ? AND m.seq > ? AND m.sender <> ?`+where+` ORDER BY m.seq DESC LIMIT ?`,
					append(append([]any{f.Agent, ack, f.Cursor, f.Agent}, a...), f.Limit)...)
			}
			break
		}
		index = "idx_messages_recipient_created"
		if f.MailOnly {
			index = "idx_messages_mail_recipient_created"
		}
		where, a = inboxState(f, `b.read_at`, `b.acked_at`)
		add(cols+`b.read_at AS r, b.acked_at AS a FROM messages m`+t.indexed(index)+acks+
			` WHERE m.recipient = '*' AND m.sender <> ?`+where+newest, append(append([]any{f.Agent, f.Agent}, a...), f.Limit)...)
	}
	// The page is cut from the merged streams before any full row is read,
	// so only the rows shown are fetched.
	q := `SELECT ` + messageCols + `, x.r, x.a FROM (SELECT * FROM (` + strings.Join(parts, " UNION ALL ") + `) u
		ORDER BY u.created DESC, u.seq DESC LIMIT ?) x
		JOIN messages m ON m.id = x.id LEFT JOIN messages p ON p.id = m.reply_to
		ORDER BY m.created DESC, m.seq DESC`
	rows, err := t.query(ctx, q, append(args, f.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.InboxEntry{}
	for rows.Next() {
		var readAt, ackedAt sql.NullString
		m, err := scanMessage(extraScan{rows, []any{&readAt, &ackedAt}})
		if err != nil {
			return nil, err
		}
		d := decodeRow("messages", func() string { return m.UUID })
		out = append(out, hub.InboxEntry{Message: *m, Receipt: hub.Receipt{MessageUUID: m.UUID, Agent: f.Agent,
			ReadAt: d.nullTime("read_at", readAt), AckedAt: d.nullTime("acked_at", ackedAt)}})
		if err := d.Err(); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// receiptStreams adds the streams of a page of f.Agent's read or acked
// messages, each read newest first from an index that holds only rows in
// that state, so the page never walks a history of messages in another
// state:
//
//   - direct messages, from the partial indexes on messages by receipt;
//   - broadcasts with the agent's receipt in that state, from the partial
//     indexes on broadcast_acks(agent, message_seq);
//   - for read, also the broadcasts at or before the read cursor without a
//     receipt (read through the cursor) and not acked: those not asking
//     for an ack, and those asking for one after the agent's ack cursor
//     (every one at or before it is acked).
func (t *tx) receiptStreams(f hub.InboxFilter, add func(string, ...any)) {
	const cols = `SELECT m.id, m.created, m.seq, `
	read := f.State == hub.StateRead
	direct, receipts := "idx_messages_acked_recipient_created", "idx_broadcast_acks_acked"
	directState, state := ` AND m.acked_at IS NOT NULL`, ` AND b.acked_at IS NOT NULL`
	receiptArgs := []any{f.Agent}
	if read {
		direct, receipts = "idx_messages_read_recipient_created", "idx_broadcast_acks_read"
		directState = ` AND m.read_at IS NOT NULL AND m.acked_at IS NULL`
		state = ` AND b.read_at IS NOT NULL AND b.acked_at IS NULL AND b.message_seq > ?`
		receiptArgs = append(receiptArgs, f.Cursor)
	}
	add(cols+`m.read_at AS r, m.acked_at AS a FROM messages m`+t.indexed(direct)+
		` WHERE m.recipient = ? AND m.sender <> ?`+directState+` ORDER BY m.created DESC, m.seq DESC LIMIT ?`, f.Agent, f.Agent, f.Limit)
	add(cols+`b.read_at AS r, b.acked_at AS a FROM broadcast_acks b`+t.indexed(receipts)+
		` JOIN messages m ON m.id = b.message_id WHERE b.agent = ?`+state+
		` AND m.recipient = '*' AND m.sender <> ? ORDER BY b.message_seq DESC LIMIT ?`, append(receiptArgs, f.Agent, f.Limit)...)
	if !read {
		return
	}
	acks := ` LEFT JOIN broadcast_acks b ON b.message_id = m.id AND b.agent = ?`
	for _, ack := range []int{0, 1} {
		from, args := `0`, []any{f.Agent}
		if ack == 1 {
			from = `COALESCE((SELECT ack_cursor FROM agents WHERE id = ?), 0)`
			args = append(args, f.Agent)
		}
		add(cols+`b.read_at AS r, b.acked_at AS a FROM messages m`+t.indexed("idx_messages_recipient_ack_seq")+acks+
			` WHERE m.recipient = '*' AND m.requires_ack = `+fmt.Sprint(ack)+` AND m.seq > `+from+` AND m.seq <= ? AND m.sender <> ?
			AND b.acked_at IS NULL ORDER BY m.seq DESC LIMIT ?`, append(args, f.Cursor, f.Agent, f.Limit)...)
	}
}

// inboxState renders f's state and mail-only filters over the receipt
// columns read and acked (" AND …", or "" for none). A broadcast at or
// before the agent's read cursor counts as read.
func inboxState(f hub.InboxFilter, read, acked string) (string, []any) {
	var where string
	var args []any
	cursorRead := `(m.recipient = '*' AND m.seq <= ?)`
	switch f.State {
	case hub.StateUnread:
		where = ` AND ` + acked + ` IS NULL AND ` + read + ` IS NULL AND NOT ` + cursorRead
		args = append(args, f.Cursor)
	case hub.StateRead:
		where = ` AND ` + acked + ` IS NULL AND (` + read + ` IS NOT NULL OR ` + cursorRead + `)`
		args = append(args, f.Cursor)
	case hub.StateAcked:
		where = ` AND ` + acked + ` IS NOT NULL`
	}
	if f.MailOnly && f.BeadID == "" {
		where += ` AND m.bead_id <> ''`
	}
	return where, args
}

// ackWindow bounds how many recent broadcasts requiring an ack a check-in
// looks at.
const ackWindow = 500

func (t *tx) AcksOwed(ctx context.Context, agent string, limit int) (int64, error) {
	var direct, bcast, none int64
	q, args := t.acksDirectSQL(agent, limit)
	if err := t.row(ctx, q, args...).Scan(&direct, &none); err != nil {
		return 0, err
	}
	q, args = t.acksBroadcastSQL(agent, limit)
	if err := t.row(ctx, q, args...).Scan(&bcast, &none); err != nil {
		return 0, err
	}
	return min(direct+bcast, int64(limit)), nil
}

// acksDirectSQL counts (up to limit) the messages addressed to agent that
// wait for its ack: one row (count, 0).
func (t *tx) acksDirectSQL(agent string, limit int) (string, []any) {
	return `SELECT COUNT(*) AS n, 0 AS newest FROM (SELECT 1 FROM messages` + t.indexed("idx_messages_ack_owed") + ` WHERE recipient = ? AND recipient <> '*' AND requires_ack = 1
		AND acked_at IS NULL AND sender <> ? LIMIT ` + itoa(int64(limit)) + `) x`, []any{agent, agent}
}

// acksBroadcastSQL counts (up to limit) the broadcasts after agent's ack
// cursor, among the newest ackWindow asking for an ack, that agent has not
// acked (other than its own): one row (count, 0).
func (t *tx) acksBroadcastSQL(agent string, limit int) (string, []any) {
	return `SELECT COUNT(*) AS n, 0 AS newest FROM (SELECT w.id FROM
		(SELECT id, sender FROM messages WHERE recipient = '*' AND requires_ack = 1
			AND seq > COALESCE((SELECT ack_cursor FROM agents WHERE id = ?), 0) ORDER BY seq DESC LIMIT ` + itoa(ackWindow) + `) w
		WHERE w.sender <> ? AND NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = w.id AND b.agent = ?
			AND b.acked_at IS NOT NULL) LIMIT ` + itoa(int64(limit)) + `) x`, []any{agent, agent, agent}
}

// mailWhere renders a MailFilter over bb agent messages (bead_id set).
func mailWhere(f hub.MailFilter) (string, []any) {
	where := []string{`m.bead_id <> ''`}
	var args []any
	if f.BeadID != "" {
		where = append(where, `m.bead_id = ?`)
		args = append(args, f.BeadID)
	}
	if f.Agent != "" {
		where = append(where, `(m.sender = ? OR m.recipient = ? OR m.recipient = '*')`)
		args = append(args, f.Agent, f.Agent)
	}
	return strings.Join(where, " AND "), args
}

func (t *tx) MailStateCounts(ctx context.Context, f hub.MailFilter) (map[string]int64, error) {
	where, args := mailWhere(f)
	rows, err := t.query(ctx, `SELECT CASE WHEN m.acked_at IS NOT NULL THEN 'acked' WHEN m.read_at IS NOT NULL THEN 'read' ELSE 'unread' END AS st,
		COUNT(*) FROM messages m WHERE `+where+` AND m.recipient <> '*' GROUP BY st`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{"unread": 0, "read": 0, "acked": 0, "broadcast": 0}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Broadcasts reach every agent, so the agent filter does not narrow
	// them; a bb post is a broadcast without a bead.
	q, bargs := `SELECT COUNT(*) FROM messages m WHERE m.recipient = '*'`, []any{}
	if f.BeadID != "" {
		q, bargs = q+` AND m.bead_id = ?`, append(bargs, f.BeadID)
	}
	var n int64
	if err := t.row(ctx, q, bargs...).Scan(&n); err != nil {
		return nil, err
	}
	out["broadcast"] = n
	return out, nil
}

func (t *tx) UnackedRequired(ctx context.Context, f hub.MailFilter) ([]hub.Message, error) {
	where, args := mailWhere(f)
	// A direct message is unacked while acked_at is NULL; a broadcast while
	// the agent asked about (or, without one, anybody) has not acked it.
	bcast := `NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.acked_at IS NOT NULL)`
	if f.Agent != "" {
		bcast = `(CASE WHEN m.sender = ? THEN NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.acked_at IS NOT NULL)
			ELSE NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.agent = ? AND b.acked_at IS NOT NULL) END)`
		args = append(args, f.Agent, f.Agent)
	}
	q := `SELECT ` + messageCols + messageFrom + ` WHERE ` + where + ` AND m.requires_ack = 1
		AND ((m.recipient <> '*' AND m.acked_at IS NULL) OR (m.recipient = '*' AND ` + bcast + `))
		ORDER BY m.seq DESC LIMIT ?`
	limit := f.Limit
	if limit <= 0 {
		limit = hub.StatusLimit
	}
	return t.messages(ctx, q, append(args, limit)...)
}

func (t *tx) MarkAckedLatest(ctx context.Context, m *hub.Message, agent string, at time.Time) error {
	if !m.IsBroadcast() {
		_, err := t.exec(ctx, `UPDATE messages SET acked_at = ? WHERE id = ?`, ts(at), m.UUID)
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO broadcast_acks (message_id, agent, acked_at, message_seq) VALUES (?, ?, ?, ?)
		ON CONFLICT (message_id, agent) DO UPDATE SET acked_at = excluded.acked_at`,
		m.UUID, agent, ts(at), receiptSeq(m))
	return err
}
