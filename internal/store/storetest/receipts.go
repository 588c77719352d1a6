package storetest

import (
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testReceipts(t *testing.T, open Opener) {
	receipt := func(f *Fixture, m *hub.Message, agent string) hub.Receipt {
		var r hub.Receipt
		f.Read(func(tx hub.Tx) (err error) { r, err = tx.ReceiptOf(f.Ctx, m, agent); return })
		return r
	}

	t.Run("DirectReceiptLivesOnTheMessage", func(t *testing.T) {
		f := New(t, open)
		m := hub.Message{UUID: "33333333-3333-4333-8333-333333333333", From: "alice", To: "bob", Body: "hi", CreatedAt: T0()}
		f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &m) })
		if r := receipt(f, &m, "bob"); r.ReadAt != nil || r.AckedAt != nil || r.Agent != "bob" || r.MessageUUID != m.UUID {
			t.Fatalf("fresh receipt: %+v", r)
		}
		t1 := T0().Add(time.Minute)
		t2 := T0().Add(2 * time.Minute)
		f.Write(func(tx hub.Tx) error { return tx.MarkAcked(f.Ctx, &m, "bob", t1) })
		r := receipt(f, &m, "bob")
		if r.AckedAt == nil || !r.AckedAt.Equal(t1) || r.ReadAt != nil {
			t.Fatalf("after ack (read and ack are independent): %+v", r)
		}
		f.Write(func(tx hub.Tx) error { return tx.MarkRead(f.Ctx, &m, "bob", t1) })
		f.Write(func(tx hub.Tx) error { return tx.MarkRead(f.Ctx, &m, "bob", t2) })
		f.Write(func(tx hub.Tx) error { return tx.MarkAcked(f.Ctx, &m, "bob", t2) })
		r = receipt(f, &m, "bob")
		if r.ReadAt == nil || !r.ReadAt.Equal(t1) || !r.AckedAt.Equal(t1) {
			t.Errorf("second read/ack must not move the first time: %+v", r)
		}
		// The columns of the row itself (Agent Mail reads them directly).
		var got *hub.Message
		f.Read(func(tx hub.Tx) (err error) { got, err = tx.MessageByUUID(f.Ctx, m.UUID); return })
		if got.ReadAt == nil || !got.ReadAt.Equal(t1) || got.AckedAt == nil || !got.AckedAt.Equal(t1) {
			t.Errorf("message row: read_at %v acked_at %v", got.ReadAt, got.AckedAt)
		}
		// Someone else has no receipt of a direct message.
		if r := receipt(f, &m, "carol"); r.ReadAt != nil || r.AckedAt != nil {
			t.Errorf("carol's receipt of bob's message: %+v", r)
		}
	})

	t.Run("BroadcastReceiptIsPerAgent", func(t *testing.T) {
		f := New(t, open)
		m := f.Post(hub.PostInput{From: "alice", Content: "to all"})
		t1 := T0().Add(time.Minute)
		t2 := T0().Add(2 * time.Minute)
		f.Write(func(tx hub.Tx) error { return tx.MarkRead(f.Ctx, &m, "bob", t1) })
		f.Write(func(tx hub.Tx) error { return tx.MarkAcked(f.Ctx, &m, "carol", t2) })
		if r := receipt(f, &m, "bob"); r.ReadAt == nil || !r.ReadAt.Equal(t1) || r.AckedAt != nil {
			t.Errorf("bob: %+v", r)
		}
		if r := receipt(f, &m, "carol"); r.ReadAt != nil || r.AckedAt == nil || !r.AckedAt.Equal(t2) {
			t.Errorf("carol: %+v", r)
		}
		if r := receipt(f, &m, "dave"); r.ReadAt != nil || r.AckedAt != nil {
			t.Errorf("dave: %+v", r)
		}
		f.Write(func(tx hub.Tx) error { return tx.MarkRead(f.Ctx, &m, "bob", t2) })
		f.Write(func(tx hub.Tx) error { return tx.MarkAcked(f.Ctx, &m, "bob", t2) })
		if r := receipt(f, &m, "bob"); !r.ReadAt.Equal(t1) || r.AckedAt == nil || !r.AckedAt.Equal(t2) {
			t.Errorf("bob after second read and an ack: %+v", r)
		}
		// The broadcast row itself carries no receipt.
		var got *hub.Message
		f.Read(func(tx hub.Tx) (err error) { got, err = tx.MessageByUUID(f.Ctx, m.UUID); return })
		if got.ReadAt != nil || got.AckedAt != nil {
			t.Errorf("broadcast row has read_at/acked_at: %v %v", got.ReadAt, got.AckedAt)
		}
	})
}
