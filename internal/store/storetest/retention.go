package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/housekeeping"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

func testRetention(t *testing.T, open Opener) {
	t.Run("EventsInBatchesAndFollowerOlderThanKept", func(t *testing.T) {
		f := New(t, open)
		for i := 0; i < 7; i++ {
			f.Post(hub.PostInput{From: "alice", Content: "old post"})
		}
		old := f.Events()
		f.Clock.Advance(48 * time.Hour)
		f.Post(hub.PostInput{From: "alice", Content: "new post"})
		_, err := f.Svc.SetConfig(f.Ctx, "operator", hub.ConfigRetentionEvents, "1d")
		Ok(t, err)
		all := f.Events()
		hk := housekeeping.New(f.Svc)
		rep, err := hk.Retain(f.Ctx, 3)
		Ok(t, err)
		if rep.Events != int64(len(old)) || rep.EventsRemovedThrough != old[len(old)-1].Seq || rep.Batches < 3 {
			t.Fatalf("retain: %+v, want %d events through %d in batches of 3", rep, len(old), old[len(old)-1].Seq)
		}
		kept := f.Events()
		if len(kept) != len(all)-len(old) || kept[0].Seq <= rep.EventsRemovedThrough {
			t.Fatalf("kept %d events from seq %d; removed through %d", len(kept), kept[0].Seq, rep.EventsRemovedThrough)
		}
		// Messages are never removed by retention.
		msgs, err := f.Svc.Log(f.Ctx, hub.LogQuery{Limit: 100})
		Ok(t, err)
		if len(msgs) != 8 {
			t.Fatalf("messages after retention: %d, want 8", len(msgs))
		}
		// A second pass finds nothing more.
		rep2, err := hk.Retain(f.Ctx, 3)
		Ok(t, err)
		if !rep2.Empty() {
			t.Fatalf("second pass removed %+v", rep2)
		}
		// A follower whose cursor is older than what is kept hears so
		// first, then gets every kept event from the oldest on.
		ctx, cancel := context.WithCancel(f.Ctx)
		defer cancel()
		var got []hub.Event
		err = f.Svc.Follow(ctx, hub.FollowInput{Filter: hub.EventFilter{AfterSeq: old[1].Seq}, Backlog: true}, func(e hub.Event) error {
			got = append(got, e)
			if len(got) == 1+len(kept) {
				cancel()
			}
			return nil
		})
		Ok(t, err)
		if len(got) != 1+len(kept) || got[0].Type != hub.EventCursorExpired || got[0].Seq != rep.EventsRemovedThrough || got[1].Seq != kept[0].Seq {
			t.Fatalf("follower from %d got %+v", old[1].Seq, got)
		}
		// A follower already past the removed events hears nothing of it.
		ctx2, cancel2 := context.WithCancel(f.Ctx)
		defer cancel2()
		var got2 []hub.Event
		err = f.Svc.Follow(ctx2, hub.FollowInput{Filter: hub.EventFilter{AfterSeq: rep.EventsRemovedThrough}, Backlog: true}, func(e hub.Event) error {
			got2 = append(got2, e)
			if len(got2) == len(kept) {
				cancel2()
			}
			return nil
		})
		Ok(t, err)
		if len(got2) != len(kept) || got2[0].Type == hub.EventCursorExpired {
			t.Fatalf("follower at the removed boundary got %+v", got2)
		}
	})
	t.Run("PollingReaderOlderThanKept", func(t *testing.T) {
		f := New(t, open)
		for i := 0; i < 5; i++ {
			f.Post(hub.PostInput{From: "alice", Content: "old post"})
		}
		old := f.Events()
		f.Clock.Advance(48 * time.Hour)
		f.Post(hub.PostInput{From: "alice", Content: "new post"})
		f.Post(hub.PostInput{From: "bob", Content: "newer post"})
		_, err := f.Svc.SetConfig(f.Ctx, "operator", hub.ConfigRetentionEvents, "1d")
		Ok(t, err)
		rep, err := housekeeping.New(f.Svc).Retain(f.Ctx, 2)
		Ok(t, err)
		through := rep.EventsRemovedThrough
		if through != old[len(old)-1].Seq {
			t.Fatalf("retain: %+v, want removed through %d", rep, old[len(old)-1].Seq)
		}
		kept := f.Events()
		// A page from a cursor older than what is kept (0, "from the
		// first", included) says so first, then resumes at the oldest kept.
		for _, cursor := range []int64{0, old[1].Seq, through - 1} {
			p, err := f.Svc.Events(f.Ctx, hub.EventQuery{AfterSeq: cursor, Limit: ptr(2)})
			Ok(t, err)
			if len(p.Events) != 3 || p.Events[0].Type != hub.EventCursorExpired || p.Events[0].Seq != through || p.Events[1].Seq != kept[0].Seq || p.Events[2].Seq != kept[1].Seq {
				t.Fatalf("page after %d: %+v, want the expiry then %d, %d", cursor, p.Events, kept[0].Seq, kept[1].Seq)
			}
			var said map[string]int64
			Ok(t, json.Unmarshal(p.Events[0].Payload, &said))
			if said["after"] != cursor || said["removed_through"] != through || said["oldest_kept"] != through+1 || !strings.Contains(p.Events[0].Message, "retention") {
				t.Fatalf("expiry after %d: %s %s", cursor, p.Events[0].Payload, p.Events[0].Message)
			}
			if p.NextSeq != kept[1].Seq || !p.More {
				t.Fatalf("page after %d: next %d more %v, want %d true", cursor, p.NextSeq, p.More, kept[1].Seq)
			}
			// The next page, from the page's cursor, goes on without it.
			p2, err := f.Svc.Events(f.Ctx, hub.EventQuery{AfterSeq: p.NextSeq})
			Ok(t, err)
			if len(p2.Events) != len(kept)-2 || p2.Events[0].Type == hub.EventCursorExpired {
				t.Fatalf("page after %d: %+v", p.NextSeq, p2.Events)
			}
		}
		// Filtered to nothing kept, the reader is still told, and its next
		// cursor is past the removed events.
		p, err := f.Svc.Events(f.Ctx, hub.EventQuery{AfterSeq: old[0].Seq, Agent: "nobody"})
		Ok(t, err)
		if len(p.Events) != 1 || p.Events[0].Type != hub.EventCursorExpired || p.NextSeq != through {
			t.Fatalf("filtered page: %+v next %d, want the expiry alone, next %d", p.Events, p.NextSeq, through)
		}
		// A cursor at the boundary, and the newest events (no cursor),
		// hear nothing of it.
		for _, q := range []hub.EventQuery{{AfterSeq: through}, {Newest: true}} {
			p, err := f.Svc.Events(f.Ctx, q)
			Ok(t, err)
			if len(p.Events) != len(kept) || p.Events[0].Seq != kept[0].Seq {
				t.Fatalf("page %+v: %+v", q, p.Events)
			}
		}
	})
	t.Run("ForeverKeepsEverything", func(t *testing.T) {
		f := New(t, open)
		f.Post(hub.PostInput{From: "alice", Content: "x"})
		f.Clock.Advance(10000 * time.Hour)
		rep, err := housekeeping.New(f.Svc).Retain(f.Ctx, 0)
		Ok(t, err)
		if !rep.Empty() || len(f.Events()) == 0 {
			t.Fatalf("default retention removed %+v", rep)
		}
	})
	t.Run("ZeroOrNegativeIsRefused", func(t *testing.T) {
		f := New(t, open)
		for _, v := range []string{"0d", "-1d", "0", "soon"} {
			_, err := f.Svc.SetConfig(f.Ctx, "operator", hub.ConfigRetentionEvents, v)
			WantCode(t, err, hub.CodeInvalidInput)
		}
	})
	t.Run("Notifications", func(t *testing.T) {
		f := New(t, open)
		f.Write(func(tx hub.Tx) error {
			return tx.(overview.Tx).MarkNotified(f.Ctx, "webhook:abc", []string{"a", "b", "c"}, f.Clock.T, f.Clock.T.Add(-time.Hour))
		})
		f.Clock.Advance(31 * 24 * time.Hour)
		rep, err := housekeeping.New(f.Svc).Retain(f.Ctx, 2)
		Ok(t, err)
		if rep.Notifications != 3 {
			t.Fatalf("notifications removed: %+v, want 3", rep)
		}
	})
}
