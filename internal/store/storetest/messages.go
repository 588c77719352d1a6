package storetest

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/housekeeping"

	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testMessages(t *testing.T, open Opener) {
	t.Run("PostAssignsIncreasingSeqAndRoundTrips", func(t *testing.T) {
		f := New(t, open)
		m1 := f.Post(hub.PostInput{From: "alice", Content: "hello", Tags: []string{"a", "b", "a"}, Priority: "high",
			Refs: []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID("42")}}})
		m2 := f.Post(hub.PostInput{From: "bob", Content: "world"})
		if m1.Seq != 1 || m2.Seq != 2 {
			t.Fatalf("seqs %d, %d; want 1, 2", m1.Seq, m2.Seq)
		}
		var got *hub.Message
		f.Read(func(tx hub.Tx) (err error) { got, err = tx.MessageBySeq(f.Ctx, 1); return })
		if got == nil {
			t.Fatal("message 1 not found")
		}
		if got.UUID != m1.UUID || got.From != "alice" || got.To != hub.Broadcast || got.Type != "broadcast" || got.Body != "hello" ||
			got.Priority != hub.PriorityHigh || !slices.Equal(got.Tags, []string{"a", "b"}) || len(got.Refs) != 1 ||
			got.Refs[0].String() != "gh:issue:42" || !got.Refs[0].Ref.Numeric || got.TTLHours != nil || got.ReplyTo != "" ||
			got.ReplyToSeq != nil || !sameTime(got.CreatedAt, T0()) {
			t.Errorf("round trip: %+v", *got)
		}
		var byUUID *hub.Message
		f.Read(func(tx hub.Tx) (err error) { byUUID, err = tx.MessageByUUID(f.Ctx, m2.UUID); return })
		if byUUID == nil || byUUID.Seq != 2 || len(byUUID.Tags) != 0 || byUUID.Tags == nil || byUUID.Refs == nil || byUUID.Priority != hub.PriorityNormal {
			t.Errorf("by uuid: %+v", byUUID)
		}
		f.Read(func(tx hub.Tx) error {
			for _, q := range []func() (*hub.Message, error){
				func() (*hub.Message, error) { return tx.MessageBySeq(f.Ctx, 99) },
				func() (*hub.Message, error) { return tx.MessageByUUID(f.Ctx, "nope") },
			} {
				m, err := q()
				Ok(t, err)
				if m != nil {
					t.Errorf("missing message returned %+v", m)
				}
			}
			n, err := tx.LastMessageSeq(f.Ctx)
			if n != 2 {
				t.Errorf("LastMessageSeq = %d, want 2", n)
			}
			return err
		})
	})

	t.Run("InsertDirectMessageKeepsMailColumns", func(t *testing.T) {
		f := New(t, open)
		ttl := 24
		refs := `["a","b"]`
		read := T0().Add(time.Second)
		m := hub.Message{UUID: "11111111-1111-4111-8111-111111111111", From: "p:alice", To: "p:bob", Subject: "subj", Body: "body",
			MailRefs: &refs, TTLHours: &ttl, ReadAt: &read, CreatedAt: T0(), Category: "handoff", ThreadID: "th", BeadID: "bd-1", RequiresAck: true}
		f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &m) })
		if m.Seq != 1 || m.Type != "direct" {
			t.Errorf("after insert: seq %d type %q", m.Seq, m.Type)
		}
		var got *hub.Message
		f.Read(func(tx hub.Tx) (err error) { got, err = tx.MessageByUUID(f.Ctx, m.UUID); return })
		if got == nil || got.Subject != "subj" || got.MailRefs == nil || *got.MailRefs != refs || got.TTLHours == nil || *got.TTLHours != 24 ||
			got.ReadAt == nil || !got.ReadAt.Equal(read) || got.AckedAt != nil || got.Category != "handoff" || got.ThreadID != "th" ||
			got.BeadID != "bd-1" || !got.RequiresAck || got.IsBroadcast() {
			t.Errorf("direct message round trip: %+v", got)
		}
	})

	t.Run("LogFilters", func(t *testing.T) {
		f := New(t, open)
		// seq: from, priority, tags, age
		type post struct {
			from, prio string
			tags       []string
			ref        string
		}
		posts := []post{
			{"alice", "low", []string{"ci"}, ""},
			{"bob", "normal", []string{"api"}, "gh:issue:13"},
			{"alice", "high", []string{"api", "ci"}, ""},
			{"carol", "critical", nil, "gh:issue:13"},
			{"bob", "normal", []string{"docs"}, "gh:issue:14"},
			{"alice", "high", nil, ""},
		}
		for i, p := range posts {
			in := hub.PostInput{From: p.from, Content: fmt.Sprintf("m%d", i+1), Priority: p.prio, Tags: p.tags}
			if p.ref != "" {
				r, err := hub.ParseRef(p.ref)
				Ok(t, err)
				in.Refs = []hub.Ref{r}
			}
			f.Post(in)
			f.Clock.Advance(10 * time.Minute)
		}
		// Now = T0 + 60m; message k was posted at T0 + 10(k-1) m.
		ref13, _ := hub.ParseRef("gh:issue:13")
		cases := []struct {
			name string
			q    hub.LogQuery
			want []int64
		}{
			{"all newest first", hub.LogQuery{}, []int64{6, 5, 4, 3, 2, 1}},
			{"limit", hub.LogQuery{Limit: 2}, []int64{6, 5}},
			{"since 30m", hub.LogQuery{Since: 30 * time.Minute}, []int64{6, 5, 4}},
			{"since 25m", hub.LogQuery{Since: 25 * time.Minute}, []int64{6, 5}},
			{"since 1s", hub.LogQuery{Since: time.Second}, []int64{}},
			{"tag OR", hub.LogQuery{Tags: []string{"ci", "docs"}}, []int64{5, 3, 1}},
			{"tag api", hub.LogQuery{Tags: []string{"api"}}, []int64{3, 2}},
			{"unknown tag", hub.LogQuery{Tags: []string{"nope"}}, []int64{}},
			{"from", hub.LogQuery{From: "alice"}, []int64{6, 3, 1}},
			{"min high", hub.LogQuery{MinPriority: "high"}, []int64{6, 4, 3}},
			{"min critical", hub.LogQuery{MinPriority: "critical"}, []int64{4}},
			{"min normal", hub.LogQuery{MinPriority: "normal"}, []int64{6, 5, 4, 3, 2}},
			{"min low", hub.LogQuery{MinPriority: "low"}, []int64{6, 5, 4, 3, 2, 1}},
			{"ref", hub.LogQuery{Ref: &ref13}, []int64{4, 2}},
			{"combined", hub.LogQuery{From: "alice", Tags: []string{"ci"}, MinPriority: "high"}, []int64{3}},
			{"since+tag+limit", hub.LogQuery{Since: 45 * time.Minute, Tags: []string{"api", "docs"}, Limit: 1}, []int64{5}},
		}
		for _, c := range cases {
			got, err := f.Svc.Log(f.Ctx, c.q)
			Ok(t, err)
			if !equalInts(seqs(got), c.want) {
				t.Errorf("%s: got %v, want %v", c.name, seqs(got), c.want)
			}
			if got == nil {
				t.Errorf("%s: nil slice", c.name)
			}
		}
		_, err := f.Svc.Log(f.Ctx, hub.LogQuery{MinPriority: "urgent"})
		WantCode(t, err, hub.CodeInvalidInput)
		_, err = f.Svc.Log(f.Ctx, hub.LogQuery{Tags: []string{"has space"}})
		WantCode(t, err, hub.CodeInvalidInput)
	})

	t.Run("DenseAndSparseFilters", func(t *testing.T) {
		// Filters take different plans when many rows match (walk newest
		// first) and when few do (look the few up); both must agree.
		f := New(t, open)
		const n = 1500
		f.Write(func(tx hub.Tx) error {
			for i := 1; i <= n; i++ {
				m := hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-9000-%012d", i), From: "bulk", To: hub.Broadcast,
					Body: fmt.Sprint(i), CreatedAt: T0().Add(time.Duration(i) * time.Second), Tags: []string{"common"}}
				if i%500 == 0 {
					m.Tags = append(m.Tags, "rare")
					m.Priority = hub.PriorityCritical
				}
				if err := tx.InsertMessage(f.Ctx, &m); err != nil {
					return err
				}
			}
			return nil
		})
		f.Clock.T = T0().Add(n * time.Second)
		for _, c := range []struct {
			name string
			q    hub.LogQuery
			want []int64
		}{
			{"dense since", hub.LogQuery{Since: 1400 * time.Second, Limit: 3}, []int64{1500, 1499, 1498}},
			{"dense since, sparse match", hub.LogQuery{Since: 1400 * time.Second, Tags: []string{"rare"}}, []int64{1500, 1000, 500}},
			{"sparse since", hub.LogQuery{Since: 2 * time.Second, Limit: 100}, []int64{1500, 1499, 1498}},
			{"dense tag", hub.LogQuery{Tags: []string{"common"}, Limit: 2}, []int64{1500, 1499}},
			{"dense tag, nothing else matches", hub.LogQuery{Tags: []string{"common"}, From: "nobody"}, []int64{}},
			{"dense tag and sender", hub.LogQuery{Tags: []string{"common"}, From: "bulk", Limit: 2}, []int64{1500, 1499}},
			{"two tags, bounded per tag", hub.LogQuery{Tags: []string{"common", "rare"}, Limit: 4}, []int64{1500, 1499, 1498, 1497}},
			{"sparse tag", hub.LogQuery{Tags: []string{"rare"}}, []int64{1500, 1000, 500}},
			{"sparse tag or dense tag", hub.LogQuery{Tags: []string{"rare", "common"}, Limit: 1}, []int64{1500}},
			{"sparse tag and sparse since", hub.LogQuery{Tags: []string{"rare"}, Since: 600 * time.Second}, []int64{1500, 1000}},
			{"critical", hub.LogQuery{MinPriority: "critical"}, []int64{1500, 1000, 500}},
			{"high", hub.LogQuery{MinPriority: "high", Limit: 2}, []int64{1500, 1000}},
			{"normal", hub.LogQuery{MinPriority: "normal", Limit: 2}, []int64{1500, 1499}},
		} {
			got, err := f.Svc.Log(f.Ctx, c.q)
			Ok(t, err)
			if !equalInts(seqs(got), c.want) {
				t.Errorf("%s: got %v, want %v", c.name, seqs(got), c.want)
			}
		}
	})

	t.Run("LimitDefaultAndClamp", func(t *testing.T) {
		f := New(t, open)
		f.Write(func(tx hub.Tx) error {
			for i := 0; i < 120; i++ {
				m := hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), From: "bulk", To: hub.Broadcast, Body: "x", CreatedAt: T0()}
				if err := tx.InsertMessage(f.Ctx, &m); err != nil {
					return err
				}
			}
			return nil
		})
		for _, c := range []struct{ limit, want int }{{0, 20}, {-5, 20}, {7, 7}, {100, 100}, {1000, 100}} {
			got, err := f.Svc.Log(f.Ctx, hub.LogQuery{Limit: c.limit})
			Ok(t, err)
			if len(got) != c.want {
				t.Errorf("limit %d: got %d messages, want %d", c.limit, len(got), c.want)
			}
			if len(got) > 0 && got[0].Seq != 120 {
				t.Errorf("limit %d: newest is %d, want 120", c.limit, got[0].Seq)
			}
		}
	})

	t.Run("RepliesAndThread", func(t *testing.T) {
		f := New(t, open)
		root := f.Post(hub.PostInput{From: "alice", Content: "root"})
		other := f.Post(hub.PostInput{From: "bob", Content: "unrelated"})
		for i := 0; i < 60; i++ {
			f.Clock.Advance(time.Second)
			r := f.Post(hub.PostInput{From: "bob", Content: fmt.Sprintf("reply %d", i), ReplyTo: root.Seq})
			if r.ReplyToSeq == nil || *r.ReplyToSeq != root.Seq || r.ReplyTo != root.UUID {
				t.Fatalf("reply %d: ReplyTo %q ReplyToSeq %v", i, r.ReplyTo, r.ReplyToSeq)
			}
		}
		th, err := f.Svc.Thread(f.Ctx, root.Seq)
		Ok(t, err)
		if len(th) != hub.MaxThreadMessages {
			t.Fatalf("thread has %d messages, want the cap %d", len(th), hub.MaxThreadMessages)
		}
		if th[0].Seq != root.Seq || th[1].Body != "reply 0" || th[49].Body != "reply 48" {
			t.Errorf("thread order: first %d %q, second %q, last %q", th[0].Seq, th[0].Body, th[1].Body, th[49].Body)
		}
		if th[1].ReplyToSeq == nil || *th[1].ReplyToSeq != root.Seq {
			t.Errorf("reply read back without its parent seq: %+v", th[1])
		}
		th, err = f.Svc.Thread(f.Ctx, other.Seq)
		Ok(t, err)
		if len(th) != 1 {
			t.Errorf("thread without replies has %d messages", len(th))
		}
		_, err = f.Svc.Thread(f.Ctx, 9999)
		WantCode(t, err, hub.CodeNotFound)
	})

	t.Run("ReplyToMissingWritesNothing", func(t *testing.T) {
		f := New(t, open)
		f.Post(hub.PostInput{From: "alice", Content: "one"})
		_, err := f.Svc.Post(f.Ctx, hub.PostInput{From: "bob", Content: "answer", ReplyTo: 7, Tags: []string{"x"},
			Refs: []hub.Ref{{Where: "gh", What: "pr", Ref: hub.NewRefID("1")}}})
		WantCode(t, err, hub.CodeNotFound)
		assertMessageCount(t, f, 1)
		if evs := f.Events(); len(evs) != 1 {
			t.Errorf("%d events, want 1", len(evs))
		}
		res, err := artifacts.New(f.Svc).FindRefs(f.Ctx, hub.Ref{Where: "gh", What: "pr", Ref: hub.NewRefID("1")})
		Ok(t, err)
		if len(res.Messages) != 0 {
			t.Errorf("refs of a failed post were kept")
		}
		got, err := f.Svc.Log(f.Ctx, hub.LogQuery{Tags: []string{"x"}})
		Ok(t, err)
		if len(got) != 0 {
			t.Errorf("tags of a failed post were kept")
		}
	})

	t.Run("BadPostsWriteNothing", func(t *testing.T) {
		f := New(t, open)
		many := make([]string, hub.MaxTagsPerMessage+1)
		for i := range many {
			many[i] = fmt.Sprintf("t%d", i)
		}
		manyRefs := make([]hub.Ref, hub.MaxRefsPerEntity+1)
		for i := range manyRefs {
			manyRefs[i] = hub.Ref{Where: "gh", What: "issue", Ref: hub.NewRefID(fmt.Sprint(i + 1))}
		}
		for _, c := range []struct {
			in   hub.PostInput
			code hub.Code
		}{
			{hub.PostInput{From: "a", Content: ""}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "   "}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: string(make([]byte, hub.MaxMessageLen+1))}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "x", Tags: many}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "x", Tags: []string{""}}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "x", Tags: []string{"0123456789012345678901234567890123"}}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "x", Priority: "urgent"}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "x", Refs: manyRefs}, hub.CodeInvalidInput},
			{hub.PostInput{From: "a", Content: "x", Refs: []hub.Ref{{Where: "gh", What: "", Ref: hub.NewRefID("1")}}}, hub.CodeInvalidRefFormat},
			{hub.PostInput{From: "a", Content: "x", ReplyTo: -1}, hub.CodeInvalidInput},
			{hub.PostInput{From: "", Content: "x"}, hub.CodeInvalidIdentity},
			{hub.PostInput{From: string(make([]byte, 65)), Content: "x"}, hub.CodeInvalidIdentity},
		} {
			_, err := f.Svc.Post(f.Ctx, c.in)
			WantCode(t, err, c.code)
		}
		assertMessageCount(t, f, 0)
		if evs := f.Events(); len(evs) != 0 {
			t.Errorf("events written by bad posts: %d", len(evs))
		}
	})

	t.Run("DeleteBeforeRemovesTagsRefsAndReceipts", func(t *testing.T) {
		f := New(t, open)
		old := f.Post(hub.PostInput{From: "alice", Content: "old", Tags: []string{"t"}, Refs: []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID("5")}}})
		f.Write(func(tx hub.Tx) error { return tx.MarkRead(f.Ctx, &old, "bob", f.Svc.Now()) })
		f.Clock.Advance(2 * time.Hour)
		f.Post(hub.PostInput{From: "alice", Content: "new", Tags: []string{"t"}})
		plan, err := housekeeping.New(f.Svc).PlanClear(f.Ctx, housekeeping.ClearInput{MessagesBefore: time.Hour})
		Ok(t, err)
		if plan.Messages != 1 {
			t.Errorf("plan counts %d messages, want 1", plan.Messages)
		}
		assertMessageCount(t, f, 2) // planning deletes nothing
		done, err := housekeeping.New(f.Svc).Clear(f.Ctx, housekeeping.ClearInput{MessagesBefore: time.Hour, Agent: "human"})
		Ok(t, err)
		if done.Messages != 1 {
			t.Errorf("cleared %d messages, want 1", done.Messages)
		}
		got, err := f.Svc.Log(f.Ctx, hub.LogQuery{Tags: []string{"t"}})
		Ok(t, err)
		if !equalInts(seqs(got), []int64{2}) {
			t.Errorf("after clear, tag t: %v", seqs(got))
		}
		res, err := artifacts.New(f.Svc).FindRefs(f.Ctx, hub.Ref{Where: "gh", What: "issue", Ref: hub.NewRefID("5")})
		Ok(t, err)
		if len(res.Messages) != 0 {
			t.Errorf("refs of deleted messages remain")
		}
		f.Read(func(tx hub.Tx) error {
			r, err := tx.ReceiptOf(f.Ctx, &old, "bob")
			if r.ReadAt != nil {
				t.Errorf("receipt of a deleted broadcast remains: %+v", r)
			}
			return err
		})
		evs := f.Events()
		if last := evs[len(evs)-1]; last.Type != hub.EventBoardCleared {
			t.Errorf("last event %s, want %s", last.Type, hub.EventBoardCleared)
		}
	})

	t.Run("MessageIDPrefix", func(t *testing.T) {
		f := New(t, open)
		for _, id := range []string{"alice", "bob"} {
			_, _, err := f.Svc.RegisterAgent(f.Ctx, hub.RegisterInput{ID: id, Role: "worker"})
			Ok(t, err)
		}
		for _, id := range []string{"abcd1111-0000-4000-8000-000000000000", "abcd2222-0000-4000-8000-000000000000"} {
			m := hub.Message{UUID: id, From: "alice", To: "bob", Body: "x", BeadID: "b-1", CreatedAt: T0()}
			f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &m) })
		}
		_, err := f.Svc.ReadMail(f.Ctx, "bob", "abcd")
		if !hub.IsCode(err, hub.CodeInvalidArgs) || !strings.Contains(err.Error(), "abcd1111-0000-4000-8000-000000000000, abcd2222-0000-4000-8000-000000000000") {
			t.Errorf("ambiguous prefix: %v", err)
		}
		m, err := f.Svc.ReadMail(f.Ctx, "bob", "abcd2")
		Ok(t, err)
		if m.UUID != "abcd2222-0000-4000-8000-000000000000" || m.State != hub.StateRead {
			t.Errorf("unique prefix read %s (%s)", m.UUID, m.State)
		}
		if _, err := f.Svc.ReadMail(f.Ctx, "bob", "abc"); !hub.IsCode(err, hub.CodeMessageNotFound) {
			t.Errorf("a prefix under 4 characters is never expanded: %v", err)
		}
		if _, err := f.Svc.ReadMail(f.Ctx, "bob", "abce"); !hub.IsCode(err, hub.CodeMessageNotFound) {
			t.Errorf("no match: %v", err)
		}
	})

	// NoticeCounts is the check-in's one call: it must give exactly what
	// the separate counts and the notice mark give, for every kind.
	t.Run("NoticeCountsMatchTheParts", func(t *testing.T) {
		f := New(t, open)
		for _, id := range []string{"agent-ui-1", "agent-api-1"} {
			_, _, err := f.Svc.RegisterAgent(f.Ctx, hub.RegisterInput{ID: id, Role: "worker"})
			Ok(t, err)
		}
		for i := 0; i < 3; i++ {
			f.Post(hub.PostInput{From: "agent-ui-1", Content: "hi"})
		}
		f.Post(hub.PostInput{From: "agent-api-1", Content: "mine"})
		for i, m := range []hub.Message{
			{From: "agent-ui-1", To: "agent-api-1", Body: "direct"},
			{From: "agent-ui-1", To: "agent-api-1", Body: "handoff", RequiresAck: true},
			{From: "agent-ui-1", To: hub.Broadcast, Body: "ack me", RequiresAck: true},
		} {
			m.UUID, m.CreatedAt = fmt.Sprintf("44444444-4444-4444-8444-%012d", i), T0()
			f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &m) })
		}
		_, err := f.Svc.Reserve(f.Ctx, hub.ReserveInput{Agent: "agent-api-1", Scope: "src/*", BeadID: "bb-1"})
		Ok(t, err)
		_, err = f.Svc.Reserve(f.Ctx, hub.ReserveInput{Agent: "agent-ui-1", Scope: "src/a.go", BeadID: "bb-1"})
		WantCode(t, err, hub.CodeReservationConflict) // refused: a reservation.conflict, no incursion
		// An edit that went ahead inside agent-api-1's reservation (as the
		// edit hook records it) is the incursion the counts show.
		f.Write(func(tx hub.Tx) error {
			return tx.AppendEvent(f.Ctx, f.Svc.ProtocolEvent(hub.EventIncursion, "bb-1", "agent-ui-1", "agent-api-1", "src/a.go",
				hub.IncursionPayload{OwnerAgent: "agent-api-1", IncomingAgent: "agent-ui-1"}, "agent-ui-1 edited src/a.go inside agent-api-1's reservation"))
		})
		_, err = f.Svc.CheckIn(f.Ctx, "agent-ui-1") // a mark to read back
		Ok(t, err)
		for _, agent := range []string{"agent-api-1", "agent-ui-1", "nobody"} {
			for _, limit := range []int{100, 2} {
				var got hub.NoticeCounts
				var want hub.NoticeCounts
				f.Read(func(tx hub.Tx) (err error) {
					if got, err = tx.NoticeCounts(f.Ctx, agent, limit); err != nil {
						return err
					}
					if want.Unread, err = tx.UnreadCounts(f.Ctx, agent, limit); err != nil {
						return err
					}
					if want.AcksOwed, err = tx.AcksOwed(f.Ctx, agent, limit); err != nil {
						return err
					}
					if want.Incursions, err = tx.IncursionsOnActive(f.Ctx, agent, limit); err != nil {
						return err
					}
					if want.ReadCursor, err = tx.ReadCursor(f.Ctx, agent); err != nil {
						return err
					}
					// The newest message is the broadcast asking for an ack.
					if want.NewestBroadcast, err = tx.LastMessageSeq(f.Ctx); err != nil {
						return err
					}
					a, err := tx.GetAgent(f.Ctx, agent)
					if err != nil {
						return err
					}
					if a != nil {
						want.LastSeen = a.LastSeen
					}
					want.Mark, err = tx.NoticeMark(f.Ctx, agent)
					return err
				})
				if got != want {
					t.Errorf("%s cap %d: NoticeCounts = %+v, the parts give %+v", agent, limit, got, want)
				}
			}
		}
		var api hub.NoticeCounts
		f.Read(func(tx hub.Tx) (err error) { api, err = tx.NoticeCounts(f.Ctx, "agent-api-1", 100); return })
		if api.Unread.Addressed != 2 || api.Unread.Board != 4 || api.AcksOwed != 2 || api.Incursions != 1 {
			t.Errorf("agent-api-1 counts %+v, want 2 addressed, 4 board, 2 acks owed, 1 incursion", api)
		}
	})

	t.Run("UnreadCount", func(t *testing.T) {
		f := New(t, open)
		for i := 0; i < 3; i++ {
			f.Post(hub.PostInput{From: "alice", Content: "hi"})
		}
		f.Post(hub.PostInput{From: "bob", Content: "mine"})
		direct := hub.Message{UUID: "22222222-2222-4222-8222-222222222222", From: "alice", To: "bob", Body: "direct", CreatedAt: T0()}
		f.Write(func(tx hub.Tx) error { return tx.InsertMessage(f.Ctx, &direct) })
		unread := func(agent string, limit int) int64 {
			var c hub.UnreadCounts
			f.Read(func(tx hub.Tx) (err error) { c, err = tx.UnreadCounts(f.Ctx, agent, limit); return })
			return min(c.Addressed+c.Board, int64(limit))
		}
		if n := unread("bob", 100); n != 4 {
			t.Errorf("bob unread = %d, want 4 (3 broadcasts + 1 direct, not his own)", n)
		}
		if n := unread("bob", 2); n != 2 {
			t.Errorf("capped unread = %d, want 2", n)
		}
		if n := unread("alice", 100); n != 1 {
			t.Errorf("alice unread = %d, want 1 (bob's broadcast)", n)
		}
		// Reading the log as bob advances his cursor over the broadcasts.
		_, err := f.Svc.Log(f.Ctx, hub.LogQuery{Reader: "bob"})
		Ok(t, err)
		if n := unread("bob", 100); n != 1 {
			t.Errorf("bob unread after bb log = %d, want 1 (the direct message)", n)
		}
		f.Write(func(tx hub.Tx) error { return tx.MarkRead(f.Ctx, &direct, "bob", f.Svc.Now()) })
		if n := unread("bob", 100); n != 0 {
			t.Errorf("bob unread after reading = %d, want 0", n)
		}
		n, err := f.Svc.CheckIn(f.Ctx, "alice")
		Ok(t, err)
		if n.Unread != 1 || n.Board != 1 || n.Addressed != 0 || !n.Changed {
			t.Errorf("CheckIn notices = %+v, want 1 unread board post, changed", n)
		}
		// The same notices again are not a change; a new item is.
		n, err = f.Svc.CheckIn(f.Ctx, "alice")
		Ok(t, err)
		if n.Unread != 1 || n.Changed {
			t.Errorf("second CheckIn notices = %+v, want unchanged", n)
		}
		f.Write(func(tx hub.Tx) error {
			return tx.InsertMessage(f.Ctx, &hub.Message{UUID: "33333333-3333-4333-8333-333333333333", From: "bob", To: "alice", Body: "direct", CreatedAt: T0()})
		})
		n, err = f.Svc.CheckIn(f.Ctx, "alice")
		Ok(t, err)
		if n.Addressed != 1 || n.Board != 1 || !n.Changed {
			t.Errorf("CheckIn after new mail = %+v, want 1 addressed + 1 board, changed", n)
		}
		c, err := f.Svc.InboxCounts(f.Ctx, "alice")
		Ok(t, err)
		if c.Addressed != 1 || c.Board != 1 || c.Changed {
			t.Errorf("InboxCounts = %+v", c)
		}
	})

	t.Run("ConcurrentPostsGetDistinctSeqs", func(t *testing.T) {
		f := New(t, open)
		const n = 16
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, err := f.Svc.Post(f.Ctx, hub.PostInput{From: fmt.Sprintf("agent-%d", i), Content: "concurrent"})
				errs <- err
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			Ok(t, err)
		}
		got, err := f.Svc.Log(f.Ctx, hub.LogQuery{Limit: 100})
		Ok(t, err)
		s := seqs(got)
		slices.Sort(s)
		for i := range s {
			if s[i] != int64(i+1) {
				t.Fatalf("seqs after %d concurrent posts: %v", n, s)
			}
		}
		if len(s) != n {
			t.Fatalf("%d messages, want %d", len(s), n)
		}
	})
}

func assertMessageCount(t *testing.T, f *Fixture, want int) {
	t.Helper()
	got, err := f.Svc.Log(f.Ctx, hub.LogQuery{Limit: hub.MaxLogLimit})
	Ok(t, err)
	if len(got) != want {
		t.Errorf("%d messages stored, want %d", len(got), want)
	}
}
