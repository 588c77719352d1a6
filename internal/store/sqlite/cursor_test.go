package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// The ack and mail cursors only bound where the acks-owed count and Agent
// Mail's unread broadcasts start: acking or reading out of order never
// hides a broadcast, and a broadcast after the cursor is always seen.
func TestAckAndMailCursorsNeverHideABroadcast(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	const me = "proj:reader"
	var msgs []*hub.Message
	post := func() {
		t.Helper()
		i := len(msgs) + 1
		m := &hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), From: "proj:boss", To: hub.Broadcast,
			Subject: fmt.Sprint("b", i), Body: "x", RequiresAck: true, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		if err := st.Write(ctx, func(tx hub.Tx) error { return tx.InsertMessage(ctx, m) }); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	for range 3 {
		post()
	}
	if err := st.Write(ctx, func(tx hub.Tx) error { return tx.TouchAgent(ctx, me, t0) }); err != nil {
		t.Fatal(err)
	}
	owed := func() int64 {
		t.Helper()
		var n int64
		if err := st.Read(ctx, func(tx hub.Tx) (err error) { n, err = tx.AcksOwed(ctx, me, 100); return err }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	unread := func() int {
		t.Helper()
		var rows []hub.MailRow
		if err := st.Read(ctx, func(tx hub.Tx) (err error) {
			rows, err = tx.(agentmail.Tx).MailInbox(ctx, hub.MailInboxQuery{Agent: me, Broadcast: true, Unread: true, Limit: -1})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	cursors := func() (ack, mail int64) {
		t.Helper()
		if err := st.SQL().QueryRowContext(ctx, `SELECT ack_cursor, mail_cursor FROM agents WHERE id = ?`, me).Scan(&ack, &mail); err != nil {
			t.Fatal(err)
		}
		return ack, mail
	}
	act := func(i int) {
		t.Helper()
		m := msgs[i]
		if err := st.Write(ctx, func(tx hub.Tx) error {
			return errors.Join(tx.MarkAcked(ctx, m, me, t0), tx.AdvanceAckCursor(ctx, me),
				tx.MarkRead(ctx, m, me, t0), tx.(agentmail.Tx).AdvanceMailCursor(ctx, me))
		}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		act                 int // index of the broadcast acked and read, -1 = post one
		owed, unread        int
		ackCursor, mailCurs int64
	}{
		{act: 1, owed: 2, unread: 2, ackCursor: 0, mailCurs: 0}, // out of order: the cursors stay before #1
		{act: 0, owed: 1, unread: 1, ackCursor: 2, mailCurs: 2}, // #1 and #2 done: both cursors pass them
		{act: 2, owed: 0, unread: 0, ackCursor: 3, mailCurs: 3},
		{act: -1, owed: 1, unread: 1, ackCursor: 3, mailCurs: 3}, // a new broadcast after the cursors is seen
	}
	for i, s := range steps {
		if s.act < 0 {
			post()
		} else {
			act(s.act)
		}
		ack, mail := cursors()
		if got := owed(); got != int64(s.owed) {
			t.Errorf("step %d: %d acks owed, want %d", i, got, s.owed)
		}
		if got := unread(); got != s.unread {
			t.Errorf("step %d: %d unread broadcasts, want %d", i, got, s.unread)
		}
		if ack != s.ackCursor || mail != s.mailCurs {
			t.Errorf("step %d: cursors ack %d mail %d, want %d %d", i, ack, mail, s.ackCursor, s.mailCurs)
		}
	}
}

// The delivery cursor lets a hook-only agent (read cursor 0) skip the
// broadcasts delivered before; it never skips one still due: a batch cut at
// the delivery limit resumes where it stopped, the agent's own and ordinary
// posts are passed over, and an urgent broadcast after the cursor is
// delivered.
func TestDeliveryCursorNeverSkipsADueBroadcast(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	svc := app.New(hub.NewService(st, hub.FixedClock{T: t0.Add(time.Hour)}, t.TempDir()))
	const me = "hook-agent"
	if err := st.Write(ctx, func(tx hub.Tx) error { return tx.TouchAgent(ctx, me, t0) }); err != nil {
		t.Fatal(err)
	}
	n := 0
	post := func(from string, prio hub.Priority, ack bool) string {
		t.Helper()
		n++
		m := &hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), From: from, To: hub.Broadcast,
			Subject: fmt.Sprint("b", n), Body: "x", Priority: prio, RequiresAck: ack, CreatedAt: t0.Add(time.Duration(n) * time.Second)}
		if err := st.Write(ctx, func(tx hub.Tx) error { return tx.InsertMessage(ctx, m) }); err != nil {
			t.Fatal(err)
		}
		return m.UUID
	}
	deliver := func() []string {
		t.Helper()
		d, err := svc.DeliverNew(ctx, me)
		if err != nil {
			t.Fatal(err)
		}
		return d.Delivered
	}
	cursor := func() int64 {
		t.Helper()
		var c int64
		if err := st.Read(ctx, func(tx hub.Tx) (err error) { c, err = tx.(hooks.Tx).DeliveryCursor(ctx, me); return err }); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// 25 urgent broadcasts between ordinary ones: more than one delivery
	// holds (20).
	var due []string
	for i := range 25 {
		post("boss", hub.PriorityNormal, false)
		switch i % 3 {
		case 0:
			due = append(due, post("boss", hub.PriorityHigh, false))
		case 1:
			due = append(due, post("boss", hub.PriorityNormal, true))
		default:
			due = append(due, post("boss", hub.PriorityCritical, true))
		}
	}
	first := deliver()
	if len(first) != 20 || cursor() == 0 {
		t.Fatalf("first delivery: %d messages, cursor %d; want 20 and a cursor", len(first), cursor())
	}
	mine := post(me, hub.PriorityCritical, false)
	second := deliver()
	got := map[string]bool{}
	for _, id := range append(first, second...) {
		got[id] = true
	}
	for _, id := range due {
		if !got[id] {
			t.Errorf("due broadcast %s never delivered (first %d, second %d)", id, len(first), len(second))
		}
	}
	if got[mine] || len(got) != len(due) {
		t.Errorf("delivered %d messages (own one: %v), want exactly the %d due", len(got), got[mine], len(due))
	}
	if again := deliver(); len(again) != 0 {
		t.Errorf("third delivery with nothing new gave %v", again)
	}
	late := post("boss", hub.PriorityHigh, false)
	if d := deliver(); len(d) != 1 || d[0] != late {
		t.Errorf("urgent broadcast after the cursor: delivered %v, want [%s]", d, late)
	}
}
