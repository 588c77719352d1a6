package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
)

// testInbox checks the inbox pages of one state (unread, read, acked)
// against the whole inbox filtered by state: a page of a state is read from
// indexes holding only the rows in that state (and the agent's read and ack
// cursors), which must never change what the page holds.
func testInbox(t *testing.T, open Opener) {
	t.Run("StatePagesMatchTheWholeInbox", func(t *testing.T) {
		f := New(t, open)
		agents := []string{"agent-a", "agent-b", "agent-c"}
		for _, id := range agents {
			_, _, err := f.Svc.RegisterAgent(f.Ctx, hub.RegisterInput{ID: id, Role: "worker"})
			Ok(t, err)
		}
		x := uint32(7)
		rnd := func(n int) int { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return int(x % uint32(n)) }
		var msgs []hub.Message
		insert := func(n int) {
			for range n {
				from := agents[rnd(len(agents))]
				m := hub.Message{UUID: fmt.Sprintf("55555555-5555-4555-8555-%012d", len(msgs)), From: from,
					Body: "m", CreatedAt: T0().Add(time.Duration(len(msgs)) * time.Second), RequiresAck: rnd(3) == 0}
				if rnd(2) == 0 {
					m.To = hub.Broadcast
				} else {
					m.To = agents[rnd(len(agents))]
					if m.To == from {
						m.To = hub.Broadcast
					}
				}
				if rnd(2) == 0 {
					m.BeadID = "bb-1"
				}
				f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &m) })
				msgs = append(msgs, m)
			}
		}
		// Receipts given through the service, so the cursors move as they
		// do in the product: reads, acks (with and without a read first).
		// With ackAll, agent-a acks every broadcast asking for one, so its
		// ack cursor moves.
		receipts := func(ackAll bool) {
			for _, m := range msgs {
				for _, a := range agents {
					if a == m.From || (!m.IsBroadcast() && m.To != a) {
						continue
					}
					r := rnd(5)
					if ackAll && a == "agent-a" && m.IsBroadcast() && m.RequiresAck {
						r = 1
					}
					switch r {
					case 0:
						_, err := f.Svc.ReadMail(f.Ctx, a, m.UUID)
						Ok(t, err)
					case 1:
						_, err := f.Svc.AckMail(f.Ctx, a, m.UUID)
						Ok(t, err)
					}
				}
			}
		}
		insert(40)
		receipts(true)
		// The oldest broadcast asking agent-a for an ack that it has not
		// given (just after its ack cursor), read through a receipt and,
		// being the newest message, through the read cursor too.
		last := hub.Message{UUID: "55555555-5555-4555-8555-999999999999", From: "agent-b", To: hub.Broadcast,
			Body: "ack me", CreatedAt: T0().Add(time.Duration(len(msgs)) * time.Second), RequiresAck: true}
		f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &last) })
		msgs = append(msgs, last)
		_, err := f.Svc.ReadMail(f.Ctx, "agent-a", last.UUID)
		Ok(t, err)
		// agent-a reads the board (its read cursor moves past everything
		// so far); more traffic and receipts follow.
		_, err = f.Svc.Log(f.Ctx, hub.LogQuery{Reader: "agent-a", Limit: hub.MaxLogLimit})
		Ok(t, err)
		insert(40)
		receipts(false)
		insert(10)
		for _, a := range agents {
			all, err := f.Svc.Inbox(f.Ctx, hub.InboxQuery{Agent: a, Limit: hub.MaxInboxLimit})
			Ok(t, err)
			if len(all) == hub.MaxInboxLimit {
				t.Fatalf("%s: the whole inbox does not fit one page", a)
			}
			for _, state := range []string{hub.StateUnread, hub.StateRead, hub.StateAcked} {
				var want []string
				for _, it := range all {
					if it.State == state {
						want = append(want, it.UUID)
					}
				}
				if len(want) < 3 {
					t.Errorf("%s %s: only %d messages, too few to check a page", a, state, len(want))
				}
				for _, limit := range []int{1, 2, 5, hub.MaxInboxLimit} {
					page, err := f.Svc.Inbox(f.Ctx, hub.InboxQuery{Agent: a, State: state, Limit: limit})
					Ok(t, err)
					var got []string
					for _, it := range page {
						if it.State != state {
							t.Errorf("%s %s page of %d: %s is %s", a, state, limit, it.UUID, it.State)
						}
						got = append(got, it.UUID)
					}
					if w := want[:min(limit, len(want))]; !slices.Equal(got, w) {
						t.Errorf("%s %s page of %d:\n got %v\nwant %v", a, state, limit, got, w)
					}
				}
			}
		}
	})

	// The status counts come from running totals kept by the store on
	// every insert, receipt and delete; they must equal what the receipts
	// themselves say, message by message.
	t.Run("MailCountsMatchTheReceipts", func(t *testing.T) {
		f := New(t, open)
		ids := []string{"p:a", "p:b", "p:c", "p:d"}
		x := uint32(11)
		rnd := func(n int) int { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return int(x % uint32(n)) }
		var msgs []hub.Message
		check := func(when string) {
			t.Helper()
			var got []hub.MailCounts
			want := map[string]hub.MailCounts{}
			f.Read(func(tx hub.Tx) (err error) {
				if got, err = tx.(agentmail.Tx).MailCounts(f.Ctx, append(ids, "p:nobody")); err != nil {
					return err
				}
				for _, a := range append(ids, "p:nobody") {
					c := hub.MailCounts{Agent: a}
					for _, m := range msgs {
						if m.From == a || (!m.IsBroadcast() && m.To != a) {
							continue
						}
						r, err := tx.ReceiptOf(f.Ctx, &m, a)
						if err != nil {
							return err
						}
						if r.ReadAt == nil {
							c.Unread++
						}
						if r.AckedAt == nil {
							c.Unacked++
						}
					}
					want[a] = c
				}
				return nil
			})
			for _, c := range got {
				if c != want[c.Agent] {
					t.Errorf("%s: %s counts %+v, the receipts give %+v", when, c.Agent, c, want[c.Agent])
				}
			}
		}
		at := T0()
		for round := range 4 {
			for i := range 15 {
				n := round*15 + i
				m := hub.Message{UUID: fmt.Sprintf("66666666-6666-4666-8666-%012d", n), From: ids[rnd(len(ids))],
					Body: "m", CreatedAt: at.Add(time.Duration(n) * time.Second)}
				switch rnd(4) {
				case 0:
					m.To = hub.Broadcast
				case 1:
					m.To = m.From // to itself: never counted
				default:
					m.To = ids[rnd(len(ids))]
				}
				if rnd(4) == 0 && !m.IsBroadcast() {
					// Written with its receipt already set, as another
					// tool may.
					m.ReadAt = &at
				}
				f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &m) })
				msgs = append(msgs, m)
			}
			f.Write(func(tx hub.Tx) error {
				for i := range msgs {
					m := &msgs[i]
					for _, a := range ids {
						var err error
						switch rnd(8) {
						case 0:
							err = tx.MarkRead(f.Ctx, m, a, at)
						case 1:
							err = tx.MarkAcked(f.Ctx, m, a, at)
						case 2:
							err = tx.MarkAckedLatest(f.Ctx, m, a, at.Add(time.Minute))
						}
						if err != nil {
							return err
						}
					}
				}
				return nil
			})
			check(fmt.Sprintf("round %d", round))
			// Delete a few, broadcasts with receipts among them.
			var gone []string
			for len(gone) < 5 {
				i := rnd(len(msgs))
				gone = append(gone, msgs[i].UUID)
				msgs = slices.Delete(msgs, i, i+1)
			}
			f.Write(func(tx hub.Tx) error { return tx.(agentmail.Tx).DeleteMail(f.Ctx, gone) })
			check(fmt.Sprintf("round %d after deleting", round))
		}
	})
}
