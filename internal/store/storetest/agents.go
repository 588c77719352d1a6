package storetest

import (
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testAgents(t *testing.T, open Opener) {
	t.Run("GetMissingIsNil", func(t *testing.T) {
		f := New(t, open)
		f.Read(func(tx hub.Tx) error {
			a, err := tx.GetAgent(f.Ctx, "nobody")
			if a != nil {
				t.Errorf("GetAgent(missing) = %+v, want nil", a)
			}
			return err
		})
	})

	t.Run("PutAgentRoundTripAndOverwrite", func(t *testing.T) {
		f := New(t, open)
		now := f.Svc.Now()
		in := hub.Agent{ID: "a-1", DisplayName: "Agent One", Role: "worker", Registered: true,
			CurrentTask: "parse", Progress: 40, Status: "coding", Blockers: ptr("waiting"),
			CreatedAt: now, LastSeen: now, UpdatedAt: now, StatusSince: now.Add(-time.Hour), Version: 3, EventCursor: 7,
			FocusTaskID: "task-1", FocusProjectID: "proj"}
		f.Write(func(tx hub.Tx) error { return tx.PutAgent(f.Ctx, &in) })
		var got *hub.Agent
		f.Read(func(tx hub.Tx) (err error) { got, err = tx.GetAgent(f.Ctx, "a-1"); return })
		if got == nil {
			t.Fatal("agent not stored")
		}
		if got.DisplayName != in.DisplayName || got.Role != in.Role || !got.Registered || got.CurrentTask != "parse" ||
			got.Progress != 40 || got.Status != "coding" || got.Blockers == nil || *got.Blockers != "waiting" ||
			got.Version != 3 || got.EventCursor != 7 || got.FocusTaskID != "task-1" || got.FocusProjectID != "proj" {
			t.Errorf("round trip: got %+v, want %+v", *got, in)
		}
		if !sameTime(got.CreatedAt, now) || !sameTime(got.LastSeen, now) || !sameTime(got.UpdatedAt, now) || !sameTime(got.StatusSince, now.Add(-time.Hour)) {
			t.Errorf("times not kept to the microsecond: got %v/%v/%v/%v, want %v", got.CreatedAt, got.LastSeen, got.UpdatedAt, got.StatusSince, now)
		}
		// Overwrite every column, blockers back to NULL.
		later := now.Add(time.Minute)
		in2 := hub.Agent{ID: "a-1", Status: "idle", CreatedAt: now, LastSeen: later, UpdatedAt: later, Version: 4}
		f.Write(func(tx hub.Tx) error { return tx.PutAgent(f.Ctx, &in2) })
		f.Read(func(tx hub.Tx) (err error) { got, err = tx.GetAgent(f.Ctx, "a-1"); return })
		if got.Blockers != nil || got.CurrentTask != "" || got.Progress != 0 || got.Registered || got.Version != 4 || !sameTime(got.LastSeen, later) || !got.StatusSince.IsZero() {
			t.Errorf("overwrite: got %+v", *got)
		}
	})

	t.Run("TouchCreatesAndOnlyRaisesLastSeen", func(t *testing.T) {
		f := New(t, open)
		now := f.Svc.Now()
		f.Write(func(tx hub.Tx) error { return tx.TouchAgent(f.Ctx, "ghost", now) })
		var a *hub.Agent
		f.Read(func(tx hub.Tx) (err error) { a, err = tx.GetAgent(f.Ctx, "ghost"); return })
		if a == nil || a.Status != "idle" || !sameTime(a.LastSeen, now) || !sameTime(a.CreatedAt, now) || !sameTime(a.StatusSince, now) {
			t.Fatalf("touch of a missing agent: got %+v", a)
		}
		f.Write(func(tx hub.Tx) error { return tx.TouchAgent(f.Ctx, "ghost", now.Add(-time.Hour)) })
		f.Read(func(tx hub.Tx) (err error) { a, err = tx.GetAgent(f.Ctx, "ghost"); return })
		if !sameTime(a.LastSeen, now) {
			t.Errorf("touch with an older time lowered last_seen to %v", a.LastSeen)
		}
		f.Write(func(tx hub.Tx) error { return tx.TouchAgent(f.Ctx, "ghost", now.Add(time.Hour)) })
		f.Read(func(tx hub.Tx) (err error) { a, err = tx.GetAgent(f.Ctx, "ghost"); return })
		if !sameTime(a.LastSeen, now.Add(time.Hour)) {
			t.Errorf("touch did not raise last_seen: %v", a.LastSeen)
		}
	})

	t.Run("ListOrderMostRecentFirst", func(t *testing.T) {
		f := New(t, open)
		for i, id := range []string{"old", "mid", "new"} {
			at := f.Svc.Now().Add(time.Duration(i) * time.Minute)
			f.Write(func(tx hub.Tx) error { return tx.TouchAgent(f.Ctx, id, at) })
		}
		var as []hub.Agent
		f.Read(func(tx hub.Tx) (err error) { as, err = tx.ListAgents(f.Ctx); return })
		if len(as) != 3 || as[0].ID != "new" || as[1].ID != "mid" || as[2].ID != "old" {
			t.Errorf("ListAgents order: %v", agentIDs(as))
		}
	})

	t.Run("EmptyListIsNotNil", func(t *testing.T) {
		f := New(t, open)
		var as []hub.Agent
		f.Read(func(tx hub.Tx) (err error) { as, err = tx.ListAgents(f.Ctx); return })
		if as == nil || len(as) != 0 {
			t.Errorf("ListAgents on an empty store = %#v, want empty non-nil", as)
		}
	})

	t.Run("SetStatusAndClear", func(t *testing.T) {
		f := New(t, open)
		a, err := f.Svc.SetStatus(f.Ctx, "alice", hub.StatusUpdate{Task: ptr("write parser"), Progress: ptr(30), Status: ptr("blocked"), Blockers: ptr("need schema")})
		Ok(t, err)
		if a.Status != "blocked" || a.Blockers == nil || *a.Blockers != "need schema" || a.Progress != 30 {
			t.Fatalf("SetStatus: %+v", a)
		}
		// A non-blocked status clears blockers; omitted fields are kept.
		f.Clock.Advance(time.Minute)
		a, err = f.Svc.SetStatus(f.Ctx, "alice", hub.StatusUpdate{Status: ptr("coding")})
		Ok(t, err)
		if a.Blockers != nil || a.CurrentTask != "write parser" || a.Progress != 30 || !sameTime(a.LastSeen, f.Svc.Now()) {
			t.Fatalf("SetStatus(coding): %+v", a)
		}
		got, err := f.Svc.AgentStatus(f.Ctx, "alice")
		Ok(t, err)
		if got.Status != "coding" || got.Blockers != nil || got.Liveness != hub.LiveActive {
			t.Errorf("stored: %+v", got)
		}
		a, err = f.Svc.ClearStatus(f.Ctx, "alice")
		Ok(t, err)
		if a.Status != "idle" || a.CurrentTask != "" || a.Progress != 0 || a.Blockers != nil {
			t.Errorf("ClearStatus: %+v", a)
		}
		if evs := f.Events(); len(evs) != 3 || evs[0].Type != hub.EventAgentStatus || evs[2].Type != hub.EventAgentCleared {
			t.Errorf("events: %+v", evs)
		}
	})

	t.Run("InvalidStatusWritesNothing", func(t *testing.T) {
		f := New(t, open)
		for _, u := range []hub.StatusUpdate{
			{Status: ptr("sleeping")},
			{Progress: ptr(101)},
			{Progress: ptr(-1)},
			{Task: ptr(string(make([]byte, hub.MaxTaskLen+1)))},
			{Blockers: ptr(string(make([]byte, hub.MaxBlockersLen+1)))},
		} {
			_, err := f.Svc.SetStatus(f.Ctx, "alice", u)
			WantCode(t, err, hub.CodeInvalidInput)
		}
		_, err := f.Svc.AgentStatus(f.Ctx, "alice")
		WantCode(t, err, hub.CodeNotFound)
		if evs := f.Events(); len(evs) != 0 {
			t.Errorf("events written on bad input: %+v", evs)
		}
	})

	t.Run("BoardLivenessAndOfflineSideEffect", func(t *testing.T) {
		f := New(t, open)
		start := f.Svc.Now()
		for _, c := range []struct {
			id  string
			ago time.Duration
		}{{"fresh", 0}, {"five", 5*time.Minute + 59*time.Second}, {"six", 6 * time.Minute}, {"thirty", 30*time.Minute + 59*time.Second}, {"gone", 31 * time.Minute}} {
			f.Clock.T = start.Add(-c.ago)
			_, err := f.Svc.SetStatus(f.Ctx, c.id, hub.StatusUpdate{Status: ptr("coding")})
			Ok(t, err)
		}
		f.Clock.T = start
		views, err := f.Svc.Board(f.Ctx)
		Ok(t, err)
		want := map[string]hub.Liveness{"fresh": hub.LiveActive, "five": hub.LiveActive, "six": hub.LiveStale, "thirty": hub.LiveStale, "gone": hub.LiveOffline}
		for _, v := range views {
			if v.Liveness != want[v.ID] {
				t.Errorf("%s: liveness %s, want %s", v.ID, v.Liveness, want[v.ID])
			}
			wantStatus := "coding"
			if v.ID == "gone" {
				wantStatus = "offline"
			}
			if v.Status != wantStatus {
				t.Errorf("%s: status %s after bb status, want %s", v.ID, v.Status, wantStatus)
			}
		}
		// AgentStatus (status get) has no side effect but reports liveness.
		f.Clock.Advance(time.Hour)
		v, err := f.Svc.AgentStatus(f.Ctx, "fresh")
		Ok(t, err)
		if v.Status != "coding" || v.Liveness != hub.LiveOffline || v.MinutesSince != 60 {
			t.Errorf("status get after an hour: %+v", v)
		}
	})

	t.Run("MarkOfflineAndDelete", func(t *testing.T) {
		f := New(t, open)
		now := f.Svc.Now()
		f.Write(func(tx hub.Tx) error {
			Ok(t, tx.TouchAgent(f.Ctx, "old", now.Add(-time.Hour)))
			Ok(t, tx.TouchAgent(f.Ctx, "new", now))
			n, err := tx.MarkOfflineBefore(f.Ctx, now.Add(-time.Minute))
			if n != 1 {
				t.Errorf("MarkOfflineBefore marked %d, want 1", n)
			}
			Ok(t, err)
			n, err = tx.MarkOfflineBefore(f.Ctx, now.Add(-time.Minute))
			if n != 0 {
				t.Errorf("MarkOfflineBefore again marked %d, want 0 (already offline)", n)
			}
			Ok(t, err)
			n, err = tx.DeleteAgentsWithStatus(f.Ctx, "offline")
			if n != 1 {
				t.Errorf("DeleteAgentsWithStatus = %d, want 1", n)
			}
			return err
		})
		var as []hub.Agent
		f.Read(func(tx hub.Tx) (err error) { as, err = tx.ListAgents(f.Ctx); return })
		if len(as) != 1 || as[0].ID != "new" {
			t.Errorf("agents left: %v", agentIDs(as))
		}
	})

	t.Run("CheckInRefreshesLastSeen", func(t *testing.T) {
		f := New(t, open)
		_, err := f.Svc.CheckIn(f.Ctx, "bob")
		Ok(t, err)
		f.Clock.Advance(10 * time.Minute)
		_, err = f.Svc.CheckIn(f.Ctx, "bob")
		Ok(t, err)
		v, err := f.Svc.AgentStatus(f.Ctx, "bob")
		Ok(t, err)
		if !sameTime(v.LastSeen, f.Svc.Now()) || !sameTime(v.CreatedAt, T0()) {
			t.Errorf("after check-in: last_seen %v created %v", v.LastSeen, v.CreatedAt)
		}
	})
}

func agentIDs(as []hub.Agent) []string {
	out := make([]string, 0, len(as))
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}
