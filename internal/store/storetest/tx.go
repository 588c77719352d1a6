package storetest

import (
	"errors"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testTransactions(t *testing.T, open Opener) {
	t.Run("RollbackLeavesNothing", func(t *testing.T) {
		f := New(t, open)
		boom := errors.New("boom")
		err := f.Store.Write(f.Ctx, func(tx hub.Tx) error {
			now := f.Svc.Now()
			Ok(t, tx.TouchAgent(f.Ctx, "alice", now))
			m := hub.Message{UUID: "44444444-4444-4444-8444-444444444444", From: "alice", To: hub.Broadcast, Body: "x", CreatedAt: now,
				Tags: []string{"t"}, Refs: []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID("1")}}}
			Ok(t, tx.InsertMessage(f.Ctx, &m))
			Ok(t, tx.MarkRead(f.Ctx, &m, "bob", now))
			a := hub.Artifact{Path: "a.txt", ProducedBy: "alice", CreatedAt: now, UpdatedAt: now}
			_, err := tx.UpsertBoardArtifact(f.Ctx, &a)
			Ok(t, err)
			Ok(t, tx.AppendEvent(f.Ctx, &hub.Event{Type: "x", CreatedAt: now}))
			Ok(t, tx.PutIdempotent(f.Ctx, "alice", "r", hub.IdemRecord{Command: "c", Reply: []byte(`{}`)}, now))
			// Visible inside the transaction.
			got, err := tx.MessageBySeq(f.Ctx, m.Seq)
			Ok(t, err)
			if got == nil {
				t.Error("insert not visible inside its own transaction")
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Write returned %v, want the callback's error", err)
		}
		f.Read(func(tx hub.Tx) error {
			as, err := tx.ListAgents(f.Ctx)
			Ok(t, err)
			ms, err := tx.ListMessages(f.Ctx, hub.MessageFilter{})
			Ok(t, err)
			arts, err := tx.ListBoardArtifacts(f.Ctx, hub.ArtifactFilter{})
			Ok(t, err)
			evs, err := tx.ListEvents(f.Ctx, hub.EventFilter{})
			Ok(t, err)
			rec, err := tx.GetIdempotent(f.Ctx, "alice", "r")
			found := rec != nil
			Ok(t, err)
			ms2, err := tx.ListMessages(f.Ctx, hub.MessageFilter{Tags: []string{"t"}})
			Ok(t, err)
			if len(as)+len(ms)+len(arts)+len(evs)+len(ms2) != 0 || found {
				t.Errorf("after rollback: %d agents, %d messages, %d artifacts, %d events, idempotency %v", len(as), len(ms), len(arts), len(evs), found)
			}
			return nil
		})
		// The store is still usable and seq restarts at 1.
		m := f.Post(hub.PostInput{From: "alice", Content: "after"})
		if m.Seq != 1 {
			t.Errorf("first message after a rollback is #%d", m.Seq)
		}
	})

	t.Run("DomainErrorIsReturnedAsIs", func(t *testing.T) {
		f := New(t, open)
		err := f.Store.Write(f.Ctx, func(tx hub.Tx) error { return hub.Errorf(hub.CodeNotFound, "nope") })
		WantCode(t, err, hub.CodeNotFound)
		err = f.Store.Read(f.Ctx, func(tx hub.Tx) error { return hub.Errorf(hub.CodeConflict, "nope") })
		WantCode(t, err, hub.CodeConflict)
	})

	t.Run("ReadSeesCommittedWrites", func(t *testing.T) {
		f := New(t, open)
		f.Post(hub.PostInput{From: "alice", Content: "x"})
		f.Read(func(tx hub.Tx) error {
			n, err := tx.LastMessageSeq(f.Ctx)
			if n != 1 {
				t.Errorf("LastMessageSeq = %d", n)
			}
			return err
		})
	})
}
