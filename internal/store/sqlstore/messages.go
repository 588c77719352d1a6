package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const messageCols = `m.id, m.sender, m.recipient, m.subject, m.body, m.refs, m.reply_to, m.type, m.ttl_hours,
	m.created, m.read_at, m.acked_at, m.seq, m.tags, m.priority, m.bb_refs, m.category, m.thread_id,
	m.bead_id, m.requires_ack, m.intent, m.spoken_by, p.seq`

const messageFrom = ` FROM messages m LEFT JOIN messages p ON p.id = m.reply_to`

func scanMessage(sc interface{ Scan(...any) error }) (*hub.Message, error) {
	var m hub.Message
	var refs, replyTo, readAt, ackedAt sql.NullString
	var ttl, seq, parentSeq sql.NullInt64
	var created, tags, prio, bbRefs, intent, spoken string
	var reqAck int
	if err := sc.Scan(&m.UUID, &m.From, &m.To, &m.Subject, &m.Body, &refs, &replyTo, &m.Type, &ttl,
		&created, &readAt, &ackedAt, &seq, &tags, &prio, &bbRefs, &m.Category, &m.ThreadID,
		&m.BeadID, &reqAck, &intent, &spoken, &parentSeq); err != nil {
		return nil, err
	}
	m.SpokenBy = hub.SpeakerOrAgent(hub.Speaker(spoken))
	if refs.Valid {
		s := refs.String
		m.MailRefs = &s
	}
	m.ReplyTo = replyTo.String
	if ttl.Valid {
		h := int(ttl.Int64)
		m.TTLHours = &h
	}
	d := decodeRow("messages", func() string { return m.UUID })
	m.CreatedAt = d.time("created", created)
	m.ReadAt, m.AckedAt = d.nullTime("read_at", readAt), d.nullTime("acked_at", ackedAt)
	m.Seq = seq.Int64
	if parentSeq.Valid {
		ps := parentSeq.Int64
		m.ReplyToSeq = &ps
	}
	m.Tags = []string{}
	d.json("tags", tags, &m.Tags)
	if m.Tags == nil {
		m.Tags = []string{}
	}
	m.Priority = hub.Priority(prio)
	m.Refs = []hub.Ref{}
	d.json("bb_refs", bbRefs, &m.Refs)
	if m.Refs == nil {
		m.Refs = []hub.Ref{}
	}
	m.RequiresAck = reqAck != 0
	if intent != "" {
		m.Intent = &hub.Intent{}
		_ = json.Unmarshal([]byte(intent), m.Intent)
	}
	return &m, d.Err()
}

func (t *tx) InsertMessage(ctx context.Context, m *hub.Message) error {
	chosen := m.Seq == 0
	switch {
	case !chosen:
		t.msgSeq = 0 // a number chosen by the caller: read the newest again next time
	case t.msgSeq > 0:
		m.Seq = t.msgSeq + 1
	default:
		// The newest number, read under the write lock (an ordered write
		// takes it here, in the same round trip).
		t.orderLock()
		if err := t.scalar(ctx, []any{&m.Seq}, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages`); err != nil {
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
		m.Type = hub.TypeDirect
		if m.IsBroadcast() {
			m.Type = hub.BroadcastName
		}
	}
	tags, _ := json.Marshal(m.Tags)
	refs, _ := json.Marshal(m.Refs)
	var ttl, mailRefs, replyTo any
	intent := ""
	if m.Intent != nil {
		b, _ := json.Marshal(m.Intent)
		intent = string(b)
	}
	if m.TTLHours != nil {
		ttl = *m.TTLHours
	}
	if m.MailRefs != nil {
		mailRefs = *m.MailRefs
	}
	if m.ReplyTo != "" {
		replyTo = m.ReplyTo
	}
	// indexed_by_writer = 1 tells the search index trigger that this
	// store indexes the message itself at commit (indexMessages).
	err := t.execBlind(ctx, `INSERT INTO messages (id, sender, recipient, subject, body, refs, reply_to, type, ttl_hours,
		created, read_at, acked_at, seq, tags, priority, bb_refs, category, thread_id, bead_id, requires_ack, intent, spoken_by, indexed_by_writer)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.UUID, m.From, m.To, m.Subject, m.Body, mailRefs, replyTo, m.Type, ttl,
		ts(m.CreatedAt), nullTS(m.ReadAt), nullTS(m.AckedAt), m.Seq, string(tags), string(m.Priority), string(refs),
		m.Category, m.ThreadID, m.BeadID, b2i(m.RequiresAck), intent, string(hub.SpeakerOrAgent(m.SpokenBy)), b2i(t.d.IndexMessagesAtCommit))
	if err != nil {
		return err
	}
	if chosen {
		t.msgSeq = m.Seq
	}
	t.newest = max(t.newest, m.Seq)
	if t.d.IndexMessagesAtCommit {
		t.unindexed = append(t.unindexed, m.Seq)
	}
	for _, tag := range m.Tags {
		if err := t.execBlind(ctx, `INSERT INTO message_tags (message_id, tag, seq) VALUES (?, ?, ?)`, m.UUID, tag, m.Seq); err != nil {
			return err
		}
	}
	// A new message has no refs to replace (its id is new).
	return t.insertRefs(ctx, hub.RefOwnerMessage, m.UUID, m.Refs)
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

func (t *tx) IDsWithPrefix(ctx context.Context, table, prefix string, limit int) ([]string, error) {
	if table != "messages" && table != "tasks" {
		return nil, fmt.Errorf("no id prefixes for table %q", table)
	}
	// A range of the primary key (ids are ASCII), checked exactly; a task
	// may also be named by a prefix of a later _-separated part of its id
	// (task_<time>_<random>: the random part).
	q := `SELECT id FROM ` + table + ` WHERE id >= ? AND id < ? AND substr(id, 1, ?) = ?`
	args := []any{prefix, prefix + "\x7f", len(prefix), prefix}
	if table == "tasks" && !strings.ContainsAny(prefix, "%_!") {
		q += ` OR id LIKE ? ESCAPE '!'`
		args = append(args, "%!_"+prefix+"%")
	}
	rows, err := t.query(ctx, q+` ORDER BY id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (t *tx) MessageByUUID(ctx context.Context, id string) (*hub.Message, error) {
	return t.oneMessage(ctx, `m.id = ?`, id)
}

// denseAt is the number of matching rows from which a filter is treated as
// dense: walking the seq index newest first meets LIMIT matches quickly.
// Below it, the matching seqs are read from the filter's own index and
// only those rows are visited.
const denseAt = 1000

func (t *tx) ListMessages(ctx context.Context, f hub.MessageFilter) ([]hub.Message, error) {
	var where []string
	var args []any
	// Every plan below is index-driven (see BENCHMARKS.md for EXPLAIN
	// QUERY PLAN of each filter): rows are visited newest first on the seq
	// index, or looked up by seq from a short list another index produced.
	if !f.Since.IsZero() {
		since := ts(f.Since)
		dense, err := t.atLeast(ctx, `SELECT 1 FROM messages WHERE created >= ?`, []any{since}, denseAt)
		if err != nil {
			return nil, err
		}
		if dense {
			where = append(where, `m.created >= ?`)
		} else {
			where = append(where, `m.seq IN (SELECT seq FROM messages WHERE created >= ?)`)
		}
		args = append(args, since)
	}
	if f.From != "" {
		where = append(where, `m.sender = ?`) // idx_messages_sender_seq
		args = append(args, f.From)
	}
	if cond, ok := priorityCond(f.Priorities); ok {
		if cond != "" {
			where = append(where, cond)
		}
	} else {
		where = append(where, `m.priority IN (`+placeholders(len(f.Priorities))+`)`)
		for _, p := range f.Priorities {
			args = append(args, string(p))
		}
	}
	if f.BeforeSeq > 0 {
		where = append(where, `m.seq < ?`)
		args = append(args, f.BeforeSeq)
	}
	onlyTags := f.Since.IsZero() && f.From == "" && len(f.Priorities) == 0 && f.Ref == nil && f.Limit > 0 && f.BeforeSeq == 0
	if len(f.Tags) > 0 && onlyTags {
		// The newest Limit messages carrying any of the tags are among the
		// newest Limit of each tag: a bounded range of idx_message_tags_tag
		// per tag, whatever the number of tagged messages.
		arms := make([]string, 0, len(f.Tags))
		for i, tg := range f.Tags {
			arms = append(arms, fmt.Sprintf(`SELECT seq FROM (SELECT seq FROM message_tags WHERE tag = ? ORDER BY seq DESC LIMIT ?) AS t%d`, i))
			args = append(args, tg, f.Limit)
		}
		where = append(where, `m.seq IN (`+strings.Join(arms, ` UNION `)+`)`)
	} else if len(f.Tags) > 0 {
		tagArgs := make([]any, 0, len(f.Tags))
		for _, tg := range f.Tags {
			tagArgs = append(tagArgs, tg)
		}
		in := `tag IN (` + placeholders(len(f.Tags)) + `)`
		dense, err := t.atLeast(ctx, `SELECT 1 FROM message_tags WHERE `+in, tagArgs, denseAt)
		if err != nil {
			return nil, err
		}
		if dense {
			where = append(where, `EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id AND t.`+in+`)`)
		} else {
			where = append(where, `m.seq IN (SELECT seq FROM message_tags WHERE `+in+`)`)
		}
		args = append(args, tagArgs...)
	}
	if f.Ref != nil {
		// Refs are sparse: the owners come from idx_refs_owner_lookup.
		where = append(where, `m.id IN (SELECT owner_id FROM refs WHERE ref_where = ? AND ref_what = ? AND ref_ref = ? AND owner_kind = 'message')`)
		args = append(args, f.Ref.Where, f.Ref.What, f.Ref.Ref.Text)
	}
	where = append(where, `m.seq IS NOT NULL`)
	q := `SELECT ` + messageCols + messageFrom + ` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY m.seq DESC`
	if f.Limit > 0 {
		// A literal, not a parameter: PostgreSQL cannot cost the generic
		// plan of a bound LIMIT and would plan every read of the log
		// again (see noticeCountsSQL).
		q += ` LIMIT ` + itoa(int64(f.Limit))
	}
	return t.messages(ctx, q, args...)
}

// priorityCond renders a priority filter with literal values (they are a
// closed set) so that the partial index idx_messages_urgent_seq applies to
// high/critical filters. ok is false when ps holds an unknown value (the
// caller then binds them as parameters); cond is "" when ps is every
// priority (no filter) or empty.
func priorityCond(ps []hub.Priority) (cond string, ok bool) {
	if len(ps) == 0 {
		return "", true
	}
	set := map[hub.Priority]bool{}
	for _, p := range ps {
		if p.Level() < 0 {
			return "", false
		}
		set[p] = true
	}
	if len(set) == len(hub.Priorities) {
		return "", true
	}
	lits := make([]string, 0, len(set))
	for _, p := range hub.Priorities {
		if set[p] {
			lits = append(lits, "'"+string(p)+"'")
		}
	}
	cond = `m.priority IN (` + strings.Join(lits, ", ") + `)`
	if !set[hub.PriorityLow] && !set[hub.PriorityNormal] {
		// Restates the partial index's predicate so the planner may use it.
		cond = `m.priority IN ('high', 'critical') AND ` + cond
	}
	return cond, true
}

// atLeast reports whether the query q (a SELECT of matching rows) returns
// at least n rows, reading no more than n of them.
func (t *tx) atLeast(ctx context.Context, q string, args []any, n int) (bool, error) {
	var c int
	err := t.row(ctx, `SELECT COUNT(*) FROM (`+q+` LIMIT ?) x`, append(append([]any(nil), args...), n)...).Scan(&c)
	return c >= n, err
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
	if err := t.indexMessages(ctx); err != nil {
		return 0, err
	}
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

func (t *tx) UnreadCounts(ctx context.Context, agent string, limit int) (hub.UnreadCounts, error) {
	var c hub.UnreadCounts
	q, args := t.unreadAddressedSQL(agent, limit)
	if err := t.row(ctx, q, args...).Scan(&c.Addressed, &c.NewestAddressed); err != nil {
		return c, err
	}
	q, args = t.unreadBoardSQL(agent, limit)
	if err := t.row(ctx, q, args...).Scan(&c.Board, &c.NewestBoard); err != nil {
		return c, err
	}
	return c, nil
}

// unreadAddressedSQL counts (up to limit) the unread messages addressed
// to agent and gives the newest one's seq: one row (count, newest).
func (t *tx) unreadAddressedSQL(agent string, limit int) (string, []any) {
	// recipient <> '*' says what the agent's name cannot be: a plan made
	// for any name (PostgreSQL's generic plan) then knows that the board's
	// broadcasts, most of the rows, are not among them.
	return `SELECT COUNT(*) AS n, COALESCE(MAX(seq), 0) AS newest FROM (SELECT seq FROM messages` + t.indexed("idx_messages_unread") + ` WHERE recipient = ? AND recipient <> '*' AND sender <> ?
		AND read_at IS NULL AND acked_at IS NULL LIMIT ` + itoa(int64(limit)) + `) x`, []any{agent, agent}
}

// unreadBoardSQL counts (up to limit) the broadcasts newer than agent's
// read cursor that it has not read one by one, other than its own: one row
// (count, newest seq). Two ranges of idx_messages_recipient_ack_seq
// (requires_ack is 0 or 1), never a walk over the whole board. The index
// holds the sender, so the walk reads a message row (for its id) only when
// the agent has read or acked single broadcasts at all.
func (t *tx) unreadBoardSQL(agent string, limit int) (string, []any) {
	return `SELECT COUNT(*) AS n, COALESCE(MAX(seq), 0) AS newest FROM (SELECT m.seq FROM messages m` + t.indexed("idx_messages_recipient_ack_seq") + `
		WHERE m.recipient = '*' AND m.requires_ack IN (0, 1)
		AND m.seq > COALESCE((SELECT read_cursor FROM agents WHERE id = ?), 0)
		AND m.sender <> ?
		AND (NOT EXISTS (SELECT 1 FROM broadcast_acks WHERE agent = ?)
			OR NOT EXISTS (SELECT 1 FROM broadcast_acks b WHERE b.message_id = m.id AND b.agent = ?
				AND (b.read_at IS NOT NULL OR b.acked_at IS NOT NULL)))
		LIMIT ` + itoa(int64(limit)) + `) x`, []any{agent, agent, agent, agent}
}

// NoticeCounts runs every count of agent's notices and reads its notice
// mark, its read cursor and the newest broadcast in one statement: each
// part is the query of UnreadCounts, AcksOwed or IncursionsOnActive, one
// row per part.
func (t *tx) NoticeCounts(ctx context.Context, agent string, limit int) (hub.NoticeCounts, error) {
	var c noticeRows
	q, args := t.noticeCountsSQL(agent, limit)
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return hub.NoticeCounts{}, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := c.scan(rows.Scan); err != nil {
			return hub.NoticeCounts{}, err
		}
	}
	return c.counts(limit), rows.Err()
}

// NoticeCountsMany is NoticeCounts for several agents, in one round trip
// where the dialect pipelines (with whatever was queued before).
func (t *tx) NoticeCountsMany(ctx context.Context, agents []string, limit int) ([]hub.NoticeCounts, error) {
	out := make([]hub.NoticeCounts, len(agents))
	if !t.pipelined() {
		for i, a := range agents {
			c, err := t.NoticeCounts(ctx, a, limit)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	first := len(t.pending)
	for _, a := range agents {
		q, args := t.noticeCountsSQL(a, limit)
		q = t.rebind(q)
		if t.onQuery != nil {
			t.onQuery(q, args)
		}
		t.pending = append(t.pending, Stmt{SQL: q, Args: args})
	}
	// In an ordered write (bb serve's group commit: the counts, then the
	// posts) the counts travel with the write lock and the newest message
	// number, which the first post needs next: the lock is requested once
	// the counts have run, as it would be by that post's own round trip,
	// and the group saves that round trip.
	newestAt := -1
	if t.ordered && !t.lockQueued && t.msgSeq == 0 {
		t.orderLock()
		q := t.rebind(`SELECT COALESCE(MAX(seq), 0) FROM messages`)
		if t.onQuery != nil {
			t.onQuery(q, nil)
		}
		t.pending = append(t.pending, Stmt{SQL: q})
		newestAt = len(t.pending) - 1
	}
	parts := make([]noticeRows, len(agents))
	var newest int64
	if _, err := t.sendRows(ctx, func(i int, scan func(...any) error) error {
		switch {
		case i == newestAt:
			return scan(&newest)
		case i < first || i >= first+len(agents):
			return nil
		}
		return parts[i-first].scan(scan)
	}); err != nil {
		return nil, err
	}
	if newest > 0 {
		t.msgSeq = newest // the next message this write inserts is newest+1
	}
	for i := range parts {
		out[i] = parts[i].counts(limit)
	}
	return out, nil
}

// noticeCountsSQL is the statement of NoticeCounts.
//
// Its caps (LIMIT) and constants are literals, its only parameters the
// agent's name: PostgreSQL then finds the prepared statement's generic
// plan as cheap as a plan made for the values, and keeps it. With a bound
// LIMIT it cannot cost the generic plan, so it planned this seven-part
// statement again on every check-in (about 1 ms of CPU on an analyzed
// board, more than running it).
func (t *tx) noticeCountsSQL(agent string, limit int) (string, []any) {
	parts := []func(string, int) (string, []any){t.unreadAddressedSQL, t.unreadBoardSQL, t.acksDirectSQL, t.acksBroadcastSQL, t.incursionsSQL}
	var b strings.Builder
	var args []any
	for i, part := range parts {
		q, a := part(agent, limit)
		// Each part's own row, with its number in front: "SELECT i,
		// COUNT(*) …, '' FROM (…)" (no wrapping subquery: every node of
		// this plan is set up again on each check-in).
		q = strings.Replace(q, "SELECT COUNT(*) AS n,", fmt.Sprintf("SELECT %d, COUNT(*) AS n,", i), 1)
		q = strings.Replace(q, " AS newest FROM (", " AS newest, '' FROM (", 1)
		b.WriteString(q + " UNION ALL ")
		args = append(args, a...)
	}
	// The newest broadcast: one index probe per requires_ack value (on
	// PostgreSQL only while its statistics know the board's size: see
	// postgres.statsKeeper).
	b.WriteString(`SELECT -2, COALESCE((SELECT seq FROM messages` + t.indexed("idx_messages_recipient_ack_seq") + ` WHERE recipient = '*' AND requires_ack = 0 ORDER BY seq DESC LIMIT 1), 0),
		COALESCE((SELECT seq FROM messages` + t.indexed("idx_messages_recipient_ack_seq") + ` WHERE recipient = '*' AND requires_ack = 1 ORDER BY seq DESC LIMIT 1), 0), '' UNION ALL `)
	// The agent's own row (none for an unknown agent: cursor 0, mark "",
	// never seen): its notice mark and last_seen in one text, split at the
	// last '|' (neither a mark nor a time holds one).
	b.WriteString(`SELECT -1, read_cursor, 0, notice_mark || '|' || last_seen FROM agents WHERE id = ?`)
	args = append(args, agent)
	return b.String(), args
}

// noticeRows gathers the rows of noticeCountsSQL.
type noticeRows struct {
	c            hub.NoticeCounts
	direct, bcst int64
}

func (r *noticeRows) scan(scan func(...any) error) error {
	var part, n, newest int64
	var mark string
	if err := scan(&part, &n, &newest, &mark); err != nil {
		return err
	}
	switch part {
	case 0:
		r.c.Unread.Addressed, r.c.Unread.NewestAddressed = n, newest
	case 1:
		r.c.Unread.Board, r.c.Unread.NewestBoard = n, newest
	case 2:
		r.direct = n
	case 3:
		r.bcst = n
	case 4:
		r.c.Incursions = n
	case -2:
		r.c.NewestBroadcast = max(n, newest)
	case -1:
		i := strings.LastIndexByte(mark, '|')
		if i < 0 {
			return fmt.Errorf("notice counts: agent row %q has no last_seen", mark)
		}
		r.c.ReadCursor, r.c.Mark = n, mark[:i]
		// An unreadable last_seen reads as never seen: the check-in then
		// writes it again.
		if t, err := hub.ParseTime(mark[i+1:]); err == nil {
			r.c.LastSeen = t
		}
	}
	return nil
}

func (r *noticeRows) counts(limit int) hub.NoticeCounts {
	c := r.c
	c.AcksOwed = min(r.direct+r.bcst, int64(limit))
	return c
}

func (t *tx) NoticeMark(ctx context.Context, agent string) (string, error) {
	var m string
	err := t.row(ctx, `SELECT notice_mark FROM agents WHERE id = ?`, agent).Scan(&m)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return m, err
}

func (t *tx) SetNoticeMark(ctx context.Context, agent, mark string) error {
	return t.execBlind(ctx, `UPDATE agents SET notice_mark = ? WHERE id = ?`, mark, agent)
}

func (t *tx) LastMessageSeq(ctx context.Context) (int64, error) {
	var n int64
	err := t.row(ctx, `SELECT COALESCE(MAX(seq), 0) FROM messages`).Scan(&n)
	return n, err
}
