package storetest

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testRefs(t *testing.T, open Opener) {
	t.Run("NumericAndStringRefsMatchByText", func(t *testing.T) {
		f := New(t, open)
		mustRef := func(s string) hub.Ref {
			r, err := hub.ParseRef(s)
			Ok(t, err)
			return r
		}
		f.Post(hub.PostInput{From: "a", Content: "numeric", Refs: []hub.Ref{mustRef("gh:issue:13")}})
		// The same ref given as a JSON string (MCP/HTTP) is the same ref.
		f.Post(hub.PostInput{From: "a", Content: "string", Refs: []hub.Ref{{Where: "gh", What: "issue", Ref: hub.RefID{Text: "13"}}}})
		f.Post(hub.PostInput{From: "a", Content: "other kind", Refs: []hub.Ref{mustRef("gh:pr:13")}})
		f.Post(hub.PostInput{From: "a", Content: "text ref", Refs: []hub.Ref{mustRef("tt:task:auth-13")}})
		f.Post(hub.PostInput{From: "a", Content: "two refs", Refs: []hub.Ref{mustRef("gh:issue:13"), mustRef("tt:task:auth-13")}})
		_, _, err := artifacts.New(f.Svc).AddArtifact(f.Ctx, artifacts.Input{Agent: "a", Path: "x.go", Refs: []hub.Ref{mustRef("gh:issue:13")}})
		Ok(t, err)

		res, err := artifacts.New(f.Svc).FindRefs(f.Ctx, mustRef("gh:issue:13"))
		Ok(t, err)
		if !equalInts(seqs(res.Messages), []int64{5, 2, 1}) || len(res.Artifacts) != 1 {
			t.Errorf("gh:issue:13 -> messages %v, %d artifacts", seqs(res.Messages), len(res.Artifacts))
		}
		res, err = artifacts.New(f.Svc).FindRefs(f.Ctx, hub.Ref{Where: "gh", What: "issue", Ref: hub.RefID{Text: "13"}})
		Ok(t, err)
		if len(res.Messages) != 3 {
			t.Errorf("string 13 finds %d messages, want 3", len(res.Messages))
		}
		res, err = artifacts.New(f.Svc).FindRefs(f.Ctx, mustRef("tt:task:auth-13"))
		Ok(t, err)
		if !equalInts(seqs(res.Messages), []int64{5, 4}) || len(res.Artifacts) != 0 {
			t.Errorf("tt:task:auth-13 -> %v", seqs(res.Messages))
		}
		res, err = artifacts.New(f.Svc).FindRefs(f.Ctx, mustRef("gh:issue:14"))
		Ok(t, err)
		if res.Messages == nil || res.Artifacts == nil || len(res.Messages)+len(res.Artifacts) != 0 {
			t.Errorf("no match must be two empty lists: %+v", res)
		}
		// Stored refs come back typed.
		var m *hub.Message
		f.Read(func(tx hub.Tx) (err error) { m, err = tx.MessageBySeq(f.Ctx, 4); return })
		if m.Refs[0].Ref.Numeric || m.Refs[0].Ref.Text != "auth-13" {
			t.Errorf("text ref read back as %+v", m.Refs[0])
		}
		f.Read(func(tx hub.Tx) (err error) { m, err = tx.MessageBySeq(f.Ctx, 1); return })
		if !m.Refs[0].Ref.Numeric {
			t.Errorf("numeric ref read back as %+v", m.Refs[0])
		}
	})

	t.Run("SetRefsReplacesAndDeduplicates", func(t *testing.T) {
		f := New(t, open)
		m := f.Post(hub.PostInput{From: "a", Content: "x"})
		r1 := hub.Ref{Where: "gh", What: "issue", Ref: hub.NewRefID("1")}
		r2 := hub.Ref{Where: "gh", What: "issue", Ref: hub.NewRefID("2")}
		f.Write(func(tx hub.Tx) error { return tx.SetRefs(f.Ctx, hub.RefOwnerMessage, m.UUID, []hub.Ref{r1, r1, r2}) })
		for _, c := range []struct {
			r    hub.Ref
			want int
		}{{r1, 1}, {r2, 1}} {
			res, err := artifacts.New(f.Svc).FindRefs(f.Ctx, c.r)
			Ok(t, err)
			if len(res.Messages) != c.want {
				t.Errorf("%s: %d messages, want %d", c.r, len(res.Messages), c.want)
			}
		}
		f.Write(func(tx hub.Tx) error { return tx.SetRefs(f.Ctx, hub.RefOwnerMessage, m.UUID, []hub.Ref{r2}) })
		res, err := artifacts.New(f.Svc).FindRefs(f.Ctx, r1)
		Ok(t, err)
		if len(res.Messages) != 0 {
			t.Errorf("SetRefs did not remove the old ref")
		}
	})
}
