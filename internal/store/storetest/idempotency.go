package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

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
			rec, err := tx.GetIdempotent(f.Ctx, "alice", "req-1")
			if rec == nil || rec.Command != "post" || len(rec.Reply) == 0 || len(rec.Fingerprint) != 64 {
				t.Errorf("stored: %+v", rec)
			}
			if again, _ := tx.GetIdempotent(f.Ctx, "alice", "req-2"); again != nil {
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
		a, err := f.Svc.AgentStatus(f.Ctx, "alice") // known: she posted
		Ok(t, err)
		if a.CurrentTask != "" {
			t.Errorf("the colliding write changed the task: %q", a.CurrentTask)
		}
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

func testIdempotencyRequests(t *testing.T, open Opener) {
	t.Run("SameKeyDifferentRequestCollides", func(t *testing.T) {
		f := New(t, open)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: "r", Command: "post"})
		_, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "first"})
		Ok(t, err)
		_, err = f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "second"})
		WantCode(t, err, hub.CodeIdempotencyMismatch)
		assertMessageCount(t, f, 1)
		// The same request again is still a replay.
		m, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "first"})
		Ok(t, err)
		if m.Body != "first" {
			t.Errorf("replay: %q", m.Body)
		}
	})

	t.Run("AnyRequestReplaysWhateverTheArguments", func(t *testing.T) {
		f := New(t, open)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: "r", Command: "post", AnyRequest: true})
		_, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "first"})
		Ok(t, err)
		m, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "second"})
		Ok(t, err)
		if m.Body != "first" {
			t.Errorf("replay: %q", m.Body)
		}
		assertMessageCount(t, f, 1)
	})

	t.Run("InvalidRequestIDIsRefused", func(t *testing.T) {
		f := New(t, open)
		for _, rid := range []string{strings.Repeat("r", hub.MaxRequestIDLen+1), "has space", "tab\there", "é"} {
			ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: rid, Command: "post"})
			_, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "x"})
			WantCode(t, err, hub.CodeInvalidInput)
		}
		assertMessageCount(t, f, 0)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "alice", RequestID: strings.Repeat("r", hub.MaxRequestIDLen), Command: "post"})
		_, err := f.Svc.Post(ctx, hub.PostInput{From: "alice", Content: "x"})
		Ok(t, err)
	})

	t.Run("ReserveReleaseHeartbeatReplay", func(t *testing.T) {
		f := New(t, open)
		for _, id := range []string{"agent-ui-1", "agent-api-1"} {
			_, _, err := f.Svc.RegisterAgent(f.Ctx, hub.RegisterInput{ID: id, Role: "worker"})
			Ok(t, err)
		}
		key := func(rid, cmd string) context.Context {
			return hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "agent-ui-1", RequestID: rid, Command: cmd})
		}
		in := hub.ReserveInput{Agent: "agent-ui-1", Scope: "src/a.go", BeadID: "bb-1"}
		first, err := f.Svc.Reserve(key("r1", "agent reserve"), in)
		Ok(t, err)
		events := len(f.Events())
		f.Clock.Advance(time.Minute)
		again, err := f.Svc.Reserve(key("r1", "agent reserve"), in)
		Ok(t, err)
		if again.Reservation.ID != first.Reservation.ID || again.Renewed || !again.Reservation.ExpiresAt.Equal(first.Reservation.ExpiresAt) {
			t.Errorf("replay renewed: %+v, first %+v", again, first)
		}
		if n := len(f.Events()); n != events {
			t.Errorf("replay recorded %d events", n-events)
		}
		// Another scope under the same id is another request.
		_, err = f.Svc.Reserve(key("r1", "agent reserve"), hub.ReserveInput{Agent: "agent-ui-1", Scope: "src/b.go", BeadID: "bb-1"})
		WantCode(t, err, hub.CodeIdempotencyMismatch)

		hb, err := f.Svc.Heartbeat(key("h1", "agent heartbeat"), "agent-ui-1")
		Ok(t, err)
		f.Clock.Advance(time.Minute)
		hb2, err := f.Svc.Heartbeat(key("h1", "agent heartbeat"), "agent-ui-1")
		Ok(t, err)
		if !hb2.LastSeen.Equal(hb.LastSeen) {
			t.Errorf("heartbeat replay touched last_seen: %v, then %v", hb.LastSeen, hb2.LastSeen)
		}

		rel, err := f.Svc.Release(key("x1", "agent release"), "agent-ui-1", "", "src/a.go")
		Ok(t, err)
		rel2, err := f.Svc.Release(key("x1", "agent release"), "agent-ui-1", "", "src/a.go")
		Ok(t, err) // a retry is not RESERVATION_NOT_FOUND: it replays
		if rel2.ID != rel.ID || rel2.State != hub.ResReleased {
			t.Errorf("release replay: %+v", rel2)
		}
	})

	t.Run("RefusedReserveStoresNoReplyButKeepsItsConflict", func(t *testing.T) {
		f := New(t, open)
		for _, id := range []string{"agent-ui-1", "agent-api-1"} {
			_, _, err := f.Svc.RegisterAgent(f.Ctx, hub.RegisterInput{ID: id, Role: "worker"})
			Ok(t, err)
		}
		_, err := f.Svc.Reserve(f.Ctx, hub.ReserveInput{Agent: "agent-api-1", Scope: "src/*", BeadID: "bb-1"})
		Ok(t, err)
		ctx := hub.WithIdempotency(f.Ctx, hub.IdemKey{Agent: "agent-ui-1", RequestID: "r1", Command: "agent reserve"})
		in := hub.ReserveInput{Agent: "agent-ui-1", Scope: "src/a.go", BeadID: "bb-1"}
		for i := 0; i < 2; i++ {
			res, err := f.Svc.Reserve(ctx, in)
			WantCode(t, err, hub.CodeReservationConflict)
			if len(res.Incursions) != 0 {
				t.Errorf("attempt %d: a refused reserve entered nobody's reservation, yet %d incursions", i, len(res.Incursions))
			}
		}
		conflicts, incursions := 0, 0
		for _, e := range f.Events() {
			switch e.Type {
			case hub.EventReservationConflict:
				conflicts++
			case hub.EventIncursion:
				incursions++
			}
		}
		if conflicts != 2 || incursions != 0 {
			t.Errorf("reservation.conflict events: %d, INCURSION: %d; want one conflict per attempt and no incursion", conflicts, incursions)
		}
		f.Read(func(tx hub.Tx) error {
			rec, err := tx.GetIdempotent(f.Ctx, "agent-ui-1", "r1")
			if rec != nil {
				t.Errorf("a refusal stored a reply: %+v", rec)
			}
			return err
		})
	})
}
