package boardtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit"
)

// binDir holds the bb binary built once for this package.
var binDir string

func TestMain(m *testing.M) {
	// bb, plus the drop-ins for the cross-surface scripts of
	// testdata/script/product.
	testkit.Main(m, testkit.Options{Commands: []string{"bb", "agent-mail", "vybe"}, BinDir: &binDir, After: removeSizeBoards})
}

func bbPath() string { return filepath.Join(binDir, "bb") }

// bbCmd prepares a bb process in dir with a clean environment plus env.
func bbCmd(dir string, env []string, args ...string) *exec.Cmd {
	c := exec.Command(bbPath(), args...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	return c
}

// initBoard runs `bb init` in a fresh temporary directory and returns it.
func initBoard(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if out, err := bbCmd(dir, nil, "init").CombinedOutput(); err != nil {
		tb.Fatalf("bb init: %v\n%s", err, out)
	}
	return dir
}

// SeedOptions shape the messages seedBoard inserts.
type SeedOptions struct {
	From     string
	To       string // recipient of a direct message ("" = broadcast)
	ReplyTo  int64  // seq of the parent (0 = none)
	Tags     []string
	Priority hub.Priority
	Refs     []hub.Ref
	// Start is the time of the first message; each next one is Step later.
	Start time.Time
	Step  time.Duration
}

// seedBoard inserts n messages into the board database at dbPath through
// the store (InsertMessage + AppendEvent, like bb post), in batches of one
// transaction each so that 100k messages take seconds.
func seedBoard(ctx context.Context, dbPath string, n int, o SeedOptions) error {
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if o.From == "" {
		o.From = "seed"
	}
	if o.Priority == "" {
		o.Priority = hub.PriorityNormal
	}
	if o.Start.IsZero() {
		o.Start = time.Now().UTC().Add(-time.Duration(n) * time.Second)
	}
	if o.Step == 0 {
		o.Step = time.Second
	}
	const batch = 5000
	for done := 0; done < n; {
		k := min(batch, n-done)
		err := st.Write(ctx, func(tx hub.Tx) error {
			var parent *hub.Message
			if o.ReplyTo > 0 {
				p, err := tx.MessageBySeq(ctx, o.ReplyTo)
				if err != nil {
					return err
				}
				if p == nil {
					return fmt.Errorf("seed: no message %d to reply to", o.ReplyTo)
				}
				parent = p
			}
			for j := done; j < done+k; j++ {
				at := o.Start.Add(time.Duration(j) * o.Step).Truncate(time.Microsecond)
				m := hub.Message{UUID: uuid.NewString(), From: o.From, To: hub.Broadcast, Type: "broadcast",
					Body: fmt.Sprintf("seeded message %d: the quick brown fox jumps over the lazy dog", j+1),
					Tags: o.Tags, Priority: o.Priority, Refs: o.Refs, CreatedAt: at}
				if o.To != "" {
					m.To, m.Type, m.Subject = o.To, "direct", "direct"
				}
				if parent != nil {
					m.ReplyTo = parent.UUID
				}
				if err := tx.InsertMessage(ctx, &m); err != nil {
					return err
				}
				e := &hub.Event{Type: hub.EventMessagePosted, Agent: m.From, ToAgent: hub.Broadcast, Message: "seeded", CreatedAt: at}
				if err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		done += k
	}
	return nil
}

// seedBoardFast fills a fresh board with n varied messages (senders
// agent-00..19, one tag of area-0..49 each, priorities in turn, a
// gh:issue ref on every 100th) using prepared statements in large
// transactions: the rows are exactly those InsertMessage and AppendEvent
// write, at a rate that makes a 100k board in seconds.
func seedBoardFast(ctx context.Context, dbPath string, n int, start time.Time) error {
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	db := st.SQL()
	var base int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM messages`).Scan(&base); err != nil {
		return err
	}
	const batch = 10000
	for done := 0; done < n; done += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		insMsg, err1 := tx.PrepareContext(ctx, `INSERT INTO messages (id, sender, recipient, body, type, ttl_hours, created, seq, tags, priority, bb_refs, indexed_by_writer)
			VALUES (?, ?, '*', ?, 'broadcast', NULL, ?, ?, ?, ?, ?, 1)`)
		insTag, err2 := tx.PrepareContext(ctx, `INSERT INTO message_tags (message_id, tag, seq) VALUES (?, ?, ?)`)
		insRef, err3 := tx.PrepareContext(ctx, `INSERT INTO refs (owner_kind, owner_id, ref_where, ref_what, ref_ref, numeric) VALUES ('message', ?, 'gh', 'issue', ?, 1)`)
		insEv, err4 := tx.PrepareContext(ctx, `INSERT INTO events (id, type, agent, to_agent, message, payload, created_at) VALUES (?, ?, ?, '*', ?, ?, ?)`)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			_ = tx.Rollback()
			return err
		}
		for j := done; j < min(done+batch, n); j++ {
			seq := base + int64(j) + 1
			id := uuid.NewString()
			from := fmt.Sprintf("agent-%02d", j%20)
			tag := fmt.Sprintf("area-%d", j%50)
			prio := hub.Priorities[j%len(hub.Priorities)]
			at := hub.FormatTime(start.Add(time.Duration(j) * time.Second))
			refs := "[]"
			if j%100 == 0 {
				refs = fmt.Sprintf(`[{"where":"gh","what":"issue","ref":%d}]`, j/100)
				if _, err := insRef.ExecContext(ctx, id, fmt.Sprint(j/100)); err != nil {
					_ = tx.Rollback()
					return err
				}
			}
			body := fmt.Sprintf("seeded message %d: the quick brown fox jumps over the lazy dog", j+1)
			if _, err := insMsg.ExecContext(ctx, id, from, body, at, seq, `["`+tag+`"]`, string(prio), refs); err != nil {
				_ = tx.Rollback()
				return err
			}
			if _, err := insTag.ExecContext(ctx, id, tag, seq); err != nil {
				_ = tx.Rollback()
				return err
			}
			payload := fmt.Sprintf(`{"id":%d,"uuid":%q,"priority":%q,"tags":[%q]}`, seq, id, prio, tag)
			if _, err := insEv.ExecContext(ctx, uuid.NewString(), hub.EventMessagePosted, from, "seeded", payload, at); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		// The search index, as the store writes it at the end of a
		// transaction.
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts (rowid, subject, body)
			SELECT seq, subject, body FROM messages WHERE seq > ?`, base+int64(done)); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
