package storetest

import (
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testIdempotency(t *testing.T, open Opener) {
	t.Run("ReplayReturnsTheStoredReply", func(t *testing.T) {
		f := New(t, open)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: "req-1", Command: "post"})
		first, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "once"})
		Ok(t, err)
		again, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "once"})
		Ok(t, err)
		if again.Seq != first.Seq || again.UUID != first.UUID || again.Body != "once" {
			t.Errorf("replay: got #%d %s, want #%d %s", again.Seq, again.UUID, first.Seq, first.UUID)
		}
		assertMessageCount(t, f, 1)
		if n := len(f.Events()); n != 1 {
			t.Errorf("replay appended events: %d", n)
		}
		// The same request id of another agent is a different key.
		ctxB := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "bob", RequestID: "req-1", Command: "post"})
		b, err := f.Svc.Post(ctxB, hub.PostInput{From: "bob", Content: "bob's"})
		Ok(t, err)
		if b.Seq == first.Seq {
			t.Errorf("bob's request replayed alice's reply")
		}
		assertMessageCount(t, f, 2)
		f.Read(func(tx hub.Tx) error {
			cmd, reply, found, err := tx.GetIdempotent(f.Ctx, "alice", "req-1")
			if !found || cmd != "post" || len(reply) == 0 {
				t.Errorf("stored: found %v cmd %q reply %q", found, cmd, reply)
			}
			_, _, found, _ = tx.GetIdempotent(f.Ctx, "alice", "req-2")
			if found {
				t.Errorf("unused key found")
			}
			return err
		})
	})

	t.Run("CollisionOnAnotherCommand", func(t *testing.T) {
		f := New(t, open)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: "r", Command: "post"})
		_, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "x"})
		Ok(t, err)
		ctx2 := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: "r", Command: "status set"})
		_, err = f.Svc.SetStatus(ctx2, "alice", hub.StatusUpdate{Task: ptr("t")})
		WantCode(t, err, hub.CodeIdempotencyMismatch)
		_, err = f.Svc.AgentStatus(f.Ctx, "alice")
		WantCode(t, err, hub.CodeNotFound) // the colliding write did nothing
	})

	t.Run("FailedWriteStoresNoReply", func(t *testing.T) {
		f := New(t, open)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: "r", Command: "post"})
		_, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "x", ReplyTo: 42})
		WantCode(t, err, hub.CodeNotFound)
		m, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "x"})
		Ok(t, err)
		if m.Seq != 1 {
			t.Errorf("retry after a failure: #%d", m.Seq)
		}
	})
}
