package storetest

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/overview"

	"encoding/json"
	"errors"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testEvents(t *testing.T, open Opener) {
	t.Run("AppendAssignsIncreasingSeq", func(t *testing.T) {
		f := New(t, open)
		var got []hub.Event
		f.Write(func(tx hub.Tx) error {
			for i, typ := range []string{"a.one", "b.two", "a.one", "c.three"} {
				e := &hub.Event{Type: typ, Agent: []string{"alice", "bob", "carol", "dave"}[i], CreatedAt: T0(),
					Payload: json.RawMessage(`{"i":` + string(rune('0'+i)) + `}`)}
				if i == 3 {
					e.ToAgent = "alice"
					e.BeadID = "bd-7"
					e.Payload = nil
				}
				if err := tx.AppendEvent(f.Ctx, e); err != nil {
					return err
				}
				if e.ID == "" || e.Seq == 0 {
					t.Errorf("event %d: id %q seq %d", i, e.ID, e.Seq)
				}
				got = append(got, *e)
			}
			return nil
		})
		for i := 1; i < len(got); i++ {
			if got[i].Seq <= got[i-1].Seq {
				t.Errorf("seq did not grow: %d then %d", got[i-1].Seq, got[i].Seq)
			}
		}
		page, err := f.Svc.Events(f.Ctx, hub.EventQuery{})
		Ok(t, err)
		all := page.Events
		if len(all) != 4 || all[0].Seq != got[0].Seq || all[3].Seq != got[3].Seq || string(all[0].Payload) != `{"i":0}` ||
			string(all[3].Payload) != `{}` || !sameTime(all[0].CreatedAt, T0()) || all[3].ToAgent != "alice" || all[3].BeadID != "bd-7" {
			t.Fatalf("events read back: %+v", all)
		}
		cursor := got[1].Seq
		page, err = f.Svc.Events(f.Ctx, hub.EventQuery{AfterSeq: cursor})
		Ok(t, err)
		after := page.Events
		if len(after) != 2 || after[0].Seq != got[2].Seq {
			t.Errorf("after cursor %d: %d events", cursor, len(after))
		}
		for _, c := range []struct {
			name string
			f    hub.EventFilter
			want []int64
		}{
			{"types", hub.EventFilter{Types: []string{"a.one"}}, []int64{got[0].Seq, got[2].Seq}},
			{"agent or to_agent", hub.EventFilter{Agent: "alice"}, []int64{got[0].Seq, got[3].Seq}},
			{"bead", hub.EventFilter{BeadID: "bd-7"}, []int64{got[3].Seq}},
			{"limit", hub.EventFilter{Limit: 2}, []int64{got[0].Seq, got[1].Seq}},
			{"desc", hub.EventFilter{Desc: true, Limit: 2}, []int64{got[3].Seq, got[2].Seq}},
		} {
			var evs []hub.Event
			f.Read(func(tx hub.Tx) (err error) { evs, err = tx.ListEvents(f.Ctx, c.f); return })
			var s []int64
			for _, e := range evs {
				s = append(s, e.Seq)
			}
			if !equalInts(s, c.want) {
				t.Errorf("%s: %v, want %v", c.name, s, c.want)
			}
		}
		f.Read(func(tx hub.Tx) error {
			n, err := tx.LastEventSeq(f.Ctx)
			if n != got[3].Seq {
				t.Errorf("LastEventSeq = %d, want %d", n, got[3].Seq)
			}
			return err
		})
	})

	t.Run("EveryMutationAppendsOneEvent", func(t *testing.T) {
		f := New(t, open)
		_, err := f.Svc.SetStatus(f.Ctx, "alice", hub.StatusUpdate{Task: ptr("t")})
		Ok(t, err)
		m := f.Post(hub.PostInput{From: "alice", Content: "hello", Tags: []string{"x"}})
		_, _, err = artifacts.New(f.Svc).AddArtifact(f.Ctx, artifacts.Input{Agent: "alice", Path: "a.txt"})
		Ok(t, err)
		_, err = f.Svc.ClearStatus(f.Ctx, "alice")
		Ok(t, err)
		evs := f.Events()
		want := []string{hub.EventAgentStatus, hub.EventMessagePosted, hub.EventArtifactRegistered, hub.EventAgentCleared}
		if len(evs) != len(want) {
			t.Fatalf("%d events, want %d", len(evs), len(want))
		}
		for i, e := range evs {
			if e.Type != want[i] || e.Agent != "alice" {
				t.Errorf("event %d: %s by %s, want %s by alice", i, e.Type, e.Agent, want[i])
			}
		}
		var p map[string]any
		Ok(t, json.Unmarshal(evs[1].Payload, &p))
		if p["uuid"] != m.UUID || evs[1].ToAgent != hub.Broadcast {
			t.Errorf("message.posted payload %v to %q", p, evs[1].ToAgent)
		}
		// Reads do not append.
		_, err = f.Svc.Log(f.Ctx, hub.LogQuery{})
		Ok(t, err)
		_, err = overview.New(f.Svc).Summary(f.Ctx)
		Ok(t, err)
		if n := len(f.Events()); n != len(want) {
			t.Errorf("reads appended events: %d", n)
		}
	})
}

// testEventLimit checks the one event-list rule of every surface: not
// given is the default, 1..max is honoured with a cursor to the rest,
// anything else is INVALID_INPUT naming the limit.
func testEventLimit(t *testing.T, open Opener) {
	f := New(t, open)
	f.Write(func(tx hub.Tx) error {
		for i := 0; i < hub.DefaultEventsLimit+1; i++ {
			if err := tx.AppendEvent(f.Ctx, &hub.Event{Type: "a.one", CreatedAt: T0()}); err != nil {
				return err
			}
		}
		return nil
	})
	p, err := f.Svc.Events(f.Ctx, hub.EventQuery{})
	Ok(t, err)
	if len(p.Events) != hub.DefaultEventsLimit || !p.More || p.NextSeq != p.Events[len(p.Events)-1].Seq {
		t.Fatalf("default page: %d events, more %v, next %d", len(p.Events), p.More, p.NextSeq)
	}
	rest, err := f.Svc.Events(f.Ctx, hub.EventQuery{AfterSeq: p.NextSeq, Limit: ptr(hub.MaxEventsLimit)})
	Ok(t, err)
	if len(rest.Events) != 1 || rest.More {
		t.Fatalf("rest: %d events, more %v", len(rest.Events), rest.More)
	}
	for _, n := range []int{0, -1, hub.MaxEventsLimit + 1} {
		_, err := f.Svc.Events(f.Ctx, hub.EventQuery{Limit: ptr(n)})
		WantCode(t, err, hub.CodeInvalidInput)
		var he *hub.Error
		if !errors.As(err, &he) || he.Field != "limit" {
			t.Errorf("limit %d: %v", n, err)
		}
	}
	_, err = f.Svc.Events(f.Ctx, hub.EventQuery{AfterSeq: -1})
	WantCode(t, err, hub.CodeInvalidInput)
}
