package storetest

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/housekeeping"

	"github.com/blackboard-hub/bb/internal/hub/overview"

	"fmt"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func testArtifacts(t *testing.T, open Opener) {
	t.Run("UpsertByPath", func(t *testing.T) {
		f := New(t, open)
		a, created, err := artifacts.New(f.Svc).AddArtifact(f.Ctx, artifacts.Input{Agent: "alice", Path: "docs/api.md", Description: "v1",
			Version: ptr("1"), Refs: []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID("1")}}})
		Ok(t, err)
		if !created || a.ID == 0 {
			t.Fatalf("first add: created %v id %d", created, a.ID)
		}
		f.Clock.Advance(time.Minute)
		b, created, err := artifacts.New(f.Svc).AddArtifact(f.Ctx, artifacts.Input{Agent: "bob", Path: "./docs//api.md", Description: "v2",
			Refs: []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID("2")}}})
		Ok(t, err)
		if created || b.ID != a.ID || b.Path != "docs/api.md" {
			t.Fatalf("second add of the same path: created %v id %d (first %d) path %q", created, b.ID, a.ID, b.Path)
		}
		got, err := artifacts.New(f.Svc).ArtifactByPath(f.Ctx, "docs/api.md")
		Ok(t, err)
		if got.ProducedBy != "bob" || got.Description != "v2" || got.Version != nil || len(got.Refs) != 1 ||
			got.Refs[0].Ref.Text != "2" || !sameTime(got.CreatedAt, f.Svc.Now()) || !sameTime(got.UpdatedAt, f.Svc.Now()) {
			t.Errorf("upsert did not replace every field: %+v", got)
		}
		// The old ref no longer finds it, the new one does.
		old, err := artifacts.New(f.Svc).FindRefs(f.Ctx, hub.Ref{Where: "gh", What: "issue", Ref: hub.NewRefID("1")})
		Ok(t, err)
		if len(old.Artifacts) != 0 {
			t.Errorf("replaced ref still indexed")
		}
		cur, err := artifacts.New(f.Svc).FindRefs(f.Ctx, hub.Ref{Where: "gh", What: "issue", Ref: hub.NewRefID("2")})
		Ok(t, err)
		if len(cur.Artifacts) != 1 || cur.Artifacts[0].ID != a.ID {
			t.Errorf("new ref not indexed: %+v", cur.Artifacts)
		}
		all, err := artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{})
		Ok(t, err)
		if len(all) != 1 {
			t.Errorf("%d artifacts after two adds of one path", len(all))
		}
		evs := f.Events()
		if len(evs) != 2 || evs[0].Type != hub.EventArtifactRegistered {
			t.Errorf("events: %+v", evs)
		}
	})

	t.Run("ShowMissing", func(t *testing.T) {
		f := New(t, open)
		_, err := artifacts.New(f.Svc).ArtifactByPath(f.Ctx, "nope.txt")
		WantCode(t, err, hub.CodeNotFound)
		var a *hub.Artifact
		f.Read(func(tx hub.Tx) (err error) { a, err = tx.BoardArtifactByPath(f.Ctx, "nope.txt"); return })
		if a != nil {
			t.Errorf("BoardArtifactByPath(missing) = %+v", a)
		}
	})

	t.Run("BadInputWritesNothing", func(t *testing.T) {
		f := New(t, open)
		for _, c := range []struct {
			in   artifacts.Input
			code hub.Code
		}{
			{artifacts.Input{Agent: "a", Path: "/etc/passwd"}, hub.CodePathTraversal},
			{artifacts.Input{Agent: "a", Path: "../x"}, hub.CodePathTraversal},
			{artifacts.Input{Agent: "a", Path: "a/../../x"}, hub.CodePathTraversal},
			{artifacts.Input{Agent: "a", Path: ""}, hub.CodeInvalidInput},
			{artifacts.Input{Agent: "a", Path: "."}, hub.CodeInvalidInput},
			{artifacts.Input{Agent: "a", Path: "x", Description: string(make([]byte, hub.MaxArtifactDescLen+1))}, hub.CodeInvalidInput},
			{artifacts.Input{Agent: "a", Path: "x", Version: ptr(string(make([]byte, hub.MaxVersionLen+1)))}, hub.CodeInvalidInput},
		} {
			_, _, err := artifacts.New(f.Svc).AddArtifact(f.Ctx, c.in)
			WantCode(t, err, c.code)
		}
		all, err := artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{})
		Ok(t, err)
		if len(all) != 0 || len(f.Events()) != 0 {
			t.Errorf("bad input wrote %d artifacts, %d events", len(all), len(f.Events()))
		}
	})

	t.Run("ListFiltersAndLimits", func(t *testing.T) {
		f := New(t, open)
		for i := 0; i < 60; i++ {
			by := "alice"
			if i%3 == 0 {
				by = "bob"
			}
			in := artifacts.Input{Agent: by, Path: fmt.Sprintf("out/f%02d.txt", i), Description: "d"}
			if i == 5 {
				in.Refs = []hub.Ref{{Where: "tt", What: "task", Ref: hub.NewRefID("auth")}}
			}
			_, _, err := artifacts.New(f.Svc).AddArtifact(f.Ctx, in)
			Ok(t, err)
			f.Clock.Advance(time.Minute)
		}
		all, err := artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{})
		Ok(t, err)
		if len(all) != hub.DefaultArtifactsLimit || all[0].Path != "out/f59.txt" {
			t.Errorf("default list: %d, first %q", len(all), all[0].Path)
		}
		all, err = artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{Limit: 1000})
		Ok(t, err)
		if len(all) != 60 {
			t.Errorf("clamped list: %d, want 60", len(all))
		}
		by, err := artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{By: "bob", Limit: 100})
		Ok(t, err)
		if len(by) != 20 {
			t.Errorf("--by bob: %d, want 20", len(by))
		}
		ref, err := hub.ParseRef("tt:task:auth")
		Ok(t, err)
		withRef, err := artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{Ref: &ref})
		Ok(t, err)
		if len(withRef) != 1 || withRef[0].Path != "out/f05.txt" {
			t.Errorf("--ref: %+v", withRef)
		}
		// Summary shows those of the last hour, newest first, at most 20.
		sum, err := overview.New(f.Svc).Summary(f.Ctx)
		Ok(t, err)
		if len(sum.RecentArtifacts) != 20 || sum.RecentArtifacts[0].Path != "out/f59.txt" {
			t.Errorf("summary artifacts: %d", len(sum.RecentArtifacts))
		}
		plan, err := housekeeping.New(f.Svc).PlanClear(f.Ctx, housekeeping.ClearInput{Artifacts: true})
		Ok(t, err)
		if plan.Artifacts != 60 {
			t.Errorf("plan: %+v", plan)
		}
		done, err := housekeeping.New(f.Svc).Clear(f.Ctx, housekeeping.ClearInput{Artifacts: true})
		Ok(t, err)
		if done.Artifacts != 60 {
			t.Errorf("clear: %+v", done)
		}
		res, err := artifacts.New(f.Svc).FindRefs(f.Ctx, ref)
		Ok(t, err)
		if len(res.Artifacts) != 0 {
			t.Errorf("refs of cleared artifacts remain")
		}
		all, err = artifacts.New(f.Svc).Artifacts(f.Ctx, artifacts.Query{})
		Ok(t, err)
		if len(all) != 0 {
			t.Errorf("%d artifacts after clear", len(all))
		}
	})
}
