// Package bigboard fills a migrated SQLite board with a large, realistic
// history fast (direct SQL, prepared statements, large transactions), for
// benchmarks that compare a command's cost on a small and a big board.
//
// The rows are those the product writes: board posts (broadcasts with a
// tag), bb agent mail (direct, with a bead), Agent Mail messages (direct,
// 24 h TTL, project:name identities), read and ack state, the agents and
// their read cursors, and the full-text index. Everything older than the
// last Fresh messages has been read (and acked where asked) by its
// recipients, so a reader's unread set is the same size on every board:
// only the history grows.
//
// A board is seeded once per test binary into a template file (Template)
// and copied per benchmark, never rebuilt per run.
package bigboard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Spec is the shape of a seeded board.
type Spec struct {
	// Messages is the total number of messages (seq 1..Messages).
	Messages int
	// Broadcasts of them are board posts (every Messages/Broadcasts-th);
	// the rest alternate between bb agent mail and Agent Mail.
	Broadcasts int
	// Agents is the number of agents (agent-00…) and of Agent Mail
	// identities (proj:agent-00…); default 20.
	Agents int
	// Fresh is how many of the newest messages nobody has read yet;
	// default 200.
	Fresh int
	// Now is the board's present: the newest message is one step before
	// it and the oldest within the last 20 hours, so no Agent Mail message
	// has expired (pass it to the service's clock).
	Now time.Time
}

// Reader names the agents whose view the benchmarks measure.
const (
	Reader     = "agent-00"
	MailReader = "proj:agent-00"
	// HookReader is an agent that only ever hears from the board through
	// its coding agent's hooks: it never ran bb log (read cursor 0), and
	// every urgent broadcast before the fresh ones was delivered to it.
	HookReader = "hook-00"
)

func (s *Spec) defaults() {
	if s.Agents <= 1 {
		s.Agents = 20
	}
	if s.Fresh <= 0 {
		s.Fresh = 200
	}
	if s.Broadcasts <= 0 {
		s.Broadcasts = 1
	}
}

// Agent is the id of the i-th agent.
func Agent(i int) string { return fmt.Sprintf("agent-%02d", i) }

// MailIdentity is the Agent Mail identity of the i-th agent.
func MailIdentity(i int) string { return "proj:" + Agent(i) }

// UUID is the id of the message with sequence number seq: a valid
// 8-4-4-4-12 hex id that sorts in seq order (so seeding appends to the
// primary key instead of inserting at random places).
func UUID(seq int) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", seq, seq)
}

// Words in the bodies, for the search benchmark: each body has 12 words
// drawn from w0…w4999, "deploy" is in 1 message of 10, "zephyr" in 1 of
// 10,000.
const (
	CommonWord = "deploy"
	RareWord   = "zephyr"
)

// Kind of a message, by its age index r (0 = the newest).
type Kind int

const (
	Post      Kind = iota // a board post (broadcast)
	AgentMail             // bb agent send (direct, with a bead)
	MailDrop              // agent-mail send (direct, 24 h TTL)
)

func (s *Spec) kind(r int) Kind {
	step := max(1, s.Messages/s.Broadcasts)
	if r%step == 0 {
		return Post
	}
	if (r/step+r)%2 == 0 {
		return AgentMail
	}
	return MailDrop
}

// Seed fills db (a migrated, empty board) as spec says. The full-text
// triggers are set aside while rows go in and the index is built in one
// statement afterwards, as a migration would.
func Seed(ctx context.Context, db *sql.DB, spec Spec) error {
	spec.defaults()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, p := range []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -131072", "PRAGMA temp_store = MEMORY"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return err
		}
	}
	triggers, err := dropFTSTriggers(ctx, conn)
	if err != nil {
		return err
	}
	if err := seedAgents(ctx, conn, spec); err != nil {
		return err
	}
	const batch = 50_000
	for start := 0; start < spec.Messages; start += batch {
		if err := seedBatch(ctx, conn, spec, start, min(start+batch, spec.Messages)); err != nil {
			return err
		}
	}
	for _, q := range []string{
		`INSERT INTO messages_fts (rowid, subject, body) SELECT seq, subject, body FROM messages`,
		`INSERT INTO messages_fts (messages_fts) VALUES ('optimize')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, ddl := range triggers {
		if _, err := conn.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	for _, q := range []string{"PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA synchronous = NORMAL"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func dropFTSTriggers(ctx context.Context, conn *sql.Conn) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts_%'`)
	if err != nil {
		return nil, err
	}
	var names, ddls []string
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			rows.Close()
			return nil, err
		}
		names, ddls = append(names, name), append(ddls, ddl)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := conn.ExecContext(ctx, "DROP TRIGGER "+n); err != nil {
			return nil, err
		}
	}
	return ddls, nil
}

// at is the creation time of the message with 0-based index i.
func (s *Spec) at(i int) time.Time {
	step := 20 * time.Hour / time.Duration(s.Messages+1)
	return s.Now.Add(-time.Duration(s.Messages-i) * step).Truncate(time.Microsecond)
}

// fresh reports whether message i is among the unread newest.
func (s *Spec) fresh(i int) bool { return i >= s.Messages-s.Fresh }

func seedAgents(ctx context.Context, conn *sql.Conn, s Spec) error {
	created := hub.FormatTime(s.Now.Add(-30 * time.Hour))
	seen := hub.FormatTime(s.Now)
	// A bb agent has read the board up to the newest message before the
	// fresh ones.
	cursor := max(0, s.Messages-s.Fresh)
	if _, err := conn.ExecContext(ctx, `INSERT INTO agents (id, registered, status, created_at, last_seen, updated_at)
		VALUES (?, 1, 'active', ?, ?, ?)`, HookReader, created, seen, seen); err != nil {
		return err
	}
	for i := 0; i < s.Agents; i++ {
		for _, id := range []string{Agent(i), MailIdentity(i)} {
			// The Agent Mail reader's receipts cover every broadcast
			// before the fresh ones (seedBatch), which its mail cursor
			// records.
			mailCursor := 0
			if id == MailReader {
				mailCursor = cursor
			}
			// bb agents acked every broadcast before the fresh ones that
			// asked for it, which their ack cursor records.
			ackCursor := 0
			if id == Agent(i) {
				ackCursor = cursor
			}
			if _, err := conn.ExecContext(ctx, `INSERT INTO agents (id, registered, status, created_at, last_seen, updated_at,
				read_cursor, mail_cursor, ack_cursor) VALUES (?, 1, 'active', ?, ?, ?, ?, ?, ?)`,
				id, created, seen, seen, cursor, mailCursor, ackCursor); err != nil {
				return err
			}
		}
	}
	return nil
}

func seedBatch(ctx context.Context, conn *sql.Conn, s Spec, from, to int) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	insMsg, err1 := tx.PrepareContext(ctx, `INSERT INTO messages (id, sender, recipient, subject, body, type, ttl_hours,
		created, read_at, acked_at, seq, tags, priority, bead_id, requires_ack)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	insTag, err2 := tx.PrepareContext(ctx, `INSERT INTO message_tags (message_id, tag, seq) VALUES (?, ?, ?)`)
	insAck, err3 := tx.PrepareContext(ctx, `INSERT INTO broadcast_acks (message_id, agent, read_at, acked_at, message_seq) VALUES (?, ?, ?, ?, ?)`)
	insDelivery, err4 := tx.PrepareContext(ctx, `INSERT INTO mail_deliveries (message_id, agent, delivered_at) VALUES (?, ?, ?)`)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return err
	}
	defer insDelivery.Close()
	defer insMsg.Close()
	defer insTag.Close()
	defer insAck.Close()
	x := uint32(2463534242) ^ uint32(from)
	rnd := func() uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
	var body strings.Builder
	for i := from; i < to; i++ {
		seq := i + 1
		id := UUID(seq)
		at := s.at(i)
		created := hub.FormatTime(at)
		body.Reset()
		for k := 0; k < 12; k++ {
			fmt.Fprintf(&body, "w%d ", rnd()%5000)
		}
		if i%10 == 0 {
			body.WriteString(CommonWord + " ")
		}
		if i%10_000 == 5 {
			body.WriteString(RareWord + " ")
		}
		// The layout counts from the newest message back, so the newest
		// messages (what a reader sees) are the same on every board size.
		r := s.Messages - 1 - i
		sender := r % s.Agents
		if s.kind(r) == Post {
			sender = r / max(1, s.Messages/s.Broadcasts) % s.Agents // every agent posts
		}
		recipient := (sender + 1 + (r/s.Agents)%(s.Agents-1)) % s.Agents
		var readAt, ackedAt, ttl any
		var subject, typ, to, from, tags, prio, bead = "", "direct", "", "", "[]", "normal", ""
		reqAck := 0
		read := !s.fresh(i)
		switch s.kind(r) {
		case Post:
			typ, to, from = "broadcast", hub.Broadcast, Agent(sender)
			tag := fmt.Sprintf("area-%d", r%50)
			tags = `["` + tag + `"]`
			if _, err := insTag.ExecContext(ctx, id, tag, seq); err != nil {
				return err
			}
			switch {
			case r%200 == 0:
				prio = "critical"
			case r%40 == 0:
				prio = "high"
			}
			if r%100 == 0 {
				reqAck = 1
			}
		case AgentMail:
			from, to, bead = Agent(sender), Agent(recipient), fmt.Sprintf("bead-%d", r%500)
			if r%25 == 1 {
				reqAck = 1
			}
		case MailDrop:
			from, to, subject, ttl = MailIdentity(sender), MailIdentity(recipient), fmt.Sprintf("subject %d", seq), 24
		}
		if read && to != hub.Broadcast {
			readAt = hub.FormatTime(at.Add(time.Second))
			if reqAck == 1 {
				ackedAt = readAt
			}
		}
		body := strings.TrimSpace(body.String())
		if _, err := insMsg.ExecContext(ctx, id, from, to, subject, body, typ, ttl, created, readAt, ackedAt, seq,
			tags, prio, bead, reqAck); err != nil {
			return err
		}
		if read && to == hub.Broadcast {
			// bb agents read broadcasts through their read cursor; those
			// asked to ack did. The Agent Mail reader marked each read.
			readAt := hub.FormatTime(at.Add(time.Second))
			if reqAck == 1 {
				for a := 0; a < s.Agents; a++ {
					if a != sender {
						if _, err := insAck.ExecContext(ctx, id, Agent(a), readAt, readAt, seq); err != nil {
							return err
						}
					}
				}
			}
			if _, err := insAck.ExecContext(ctx, id, MailReader, readAt, nil, seq); err != nil {
				return err
			}
			if reqAck == 1 || prio != "normal" {
				if _, err := insDelivery.ExecContext(ctx, id, HookReader, readAt); err != nil {
					return err
				}
			}
		}
	}
	return tx.Commit()
}

// CopyFile copies the board file src to dst (the template to a
// benchmark's own board).
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Build creates the board file at path with open (which creates and
// migrates it, returning the database and how to close it) and seeds it.
func Build(ctx context.Context, path string, spec Spec, open func(path string) (*sql.DB, func() error, error)) error {
	db, closeDB, err := open(path)
	if err != nil {
		return err
	}
	return errors.Join(Seed(ctx, db, spec), closeDB())
}

// Layout is the version of the seeded layout; it is part of a cached
// template's file name, so a change to what Seed writes makes new files.
const Layout = 2

// Template returns the path of a seeded template board of spec inside dir,
// building it with open the first time. With BB_BENCH_BOARDS set to a
// directory, templates are kept there between runs (a 1M board takes
// minutes to seed); the file is written under a temporary name and renamed
// when complete, so an interrupted seed is never used. The caller copies
// the template (CopyFile) and opens the copy; it never writes to it
// otherwise.
func Template(ctx context.Context, dir string, spec Spec, open func(path string) (*sql.DB, func() error, error)) (string, error) {
	if keep := os.Getenv("BB_BENCH_BOARDS"); keep != "" {
		dir = keep
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	spec.defaults()
	p := filepath.Join(dir, fmt.Sprintf("board-v%d-%d-%d-%d.db", Layout, spec.Messages, spec.Broadcasts, spec.Now.Unix()))
	if _, err := os.Stat(p); err == nil {
		// Kept from an earlier run: open it once, so migrations added
		// since are applied to the template and not to every copy.
		_, closeDB, err := open(p)
		if err != nil {
			return "", err
		}
		return p, closeDB()
	}
	tmp := p + ".seeding"
	for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		_ = os.Remove(f)
	}
	if err := Build(ctx, tmp, spec, open); err != nil {
		return "", err
	}
	for _, f := range []string{tmp + "-wal", tmp + "-shm"} {
		_ = os.Remove(f) // checkpointed and closed: nothing left in them
	}
	return p, os.Rename(tmp, p)
}
