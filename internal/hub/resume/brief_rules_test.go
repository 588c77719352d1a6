package resume_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/resume"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// The brief of a focus task: memory of the global, task and project
// scopes; the counts by status; the pending tasks up next; the task's
// events, reasoning and artifacts; the open tasks it unlocks.
func TestBriefParts(t *testing.T) {
	ctx := context.Background()
	k, clk := hubtest.Board(t, nil)
	svc := resume.New(k)
	mk := func(title string) string {
		t.Helper()
		r, err := k.CreateTask(ctx, "amy", hub.TaskInput{Title: title, ProjectID: "p"})
		if err != nil {
			t.Fatal(err)
		}
		clk.T = clk.T.Add(1e9)
		return r.Task.ID
	}
	focus, next, done, _ := mk("focus"), mk("next"), mk("done"), mk("other")
	for _, dep := range []string{next, done} {
		if _, err := k.AddTaskDep(ctx, "amy", dep, focus); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := k.CompleteTask(ctx, "amy", hub.CloseInput{ID: done, Outcome: "done", Summary: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.BeginTask(ctx, "amy", focus); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Push(ctx, "amy", resume.PushInput{TaskID: focus, Event: &resume.PushEvent{Kind: hub.KindReasoning, Message: "because"},
		Memories: []resume.PushMemory{
			{Key: "g", Value: json.RawMessage(`"1"`), Scope: hub.ScopeGlobal},
			{Key: "t", Value: json.RawMessage(`"2"`), Scope: hub.ScopeTask, ScopeID: focus},
			{Key: "p", Value: json.RawMessage(`"3"`), Scope: hub.ScopeProject, ScopeID: "p"},
			{Key: "q", Value: json.RawMessage(`"4"`), Scope: hub.ScopeProject, ScopeID: "elsewhere"},
		},
		Artifacts: []resume.PushArtifact{{FilePath: "/out/a"}}, ArtifactPathsAsGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	keys := func(ms []resume.MemoryView) (out []string) {
		for _, m := range ms {
			out = append(out, m.Key+"@"+m.ScopeID)
		}
		return out
	}
	ids := func(ts []resume.PipelineTask) (out []string) {
		for _, t := range ts {
			out = append(out, t.Title)
		}
		return out
	}
	for _, c := range []struct {
		project  string
		memories string
	}{{"", "g@ t@" + focus + " q@elsewhere p@p"}, {"p", "g@ t@" + focus + " p@p"}} {
		peek, err := svc.PeekResume(ctx, "amy", c.project)
		if err != nil {
			t.Fatal(err)
		}
		b := peek.Brief
		if b.Task == nil || b.Task.ID != focus || (b.Project != nil) != (c.project != "") {
			t.Fatalf("%q: task %+v project %+v", c.project, b.Task, b.Project)
		}
		if got := strings.Join(keys(b.RelevantMemory), " "); got != c.memories {
			t.Errorf("%q: memories %s, want %s", c.project, got, c.memories)
		}
		if b.Counts == nil || *b.Counts != (resume.BriefCounts{Pending: 1, InProgress: 1, Blocked: 1, Completed: 1}) {
			t.Errorf("%q: counts %+v", c.project, b.Counts)
		}
		if got := ids(b.Pipeline); len(got) != 1 || got[0] != "other" {
			t.Errorf("%q: pipeline %v", c.project, got)
		}
		if got := ids(b.Unlocks); len(got) != 1 || got[0] != "next" {
			t.Errorf("%q: unlocks %v", c.project, got)
		}
		if len(b.PriorReasoning) != 1 || b.PriorReasoning[0].Message != "because" || len(b.Artifacts) != 1 || b.Artifacts[0].FilePath != "/out/a" ||
			len(b.RecentEvents) == 0 || b.RecentEvents[0].Kind != hub.KindArtifactAdded {
			t.Errorf("%q: reasoning %+v artifacts %+v events %+v", c.project, b.PriorReasoning, b.Artifacts, b.RecentEvents)
		}
	}
	// Without a focus (a project without tasks): the counts only.
	peek, err := svc.PeekResume(ctx, "ben", "empty")
	if err != nil || peek.Brief.Task != nil || peek.Brief.Counts == nil || *peek.Brief.Counts != (resume.BriefCounts{}) || peek.Brief.Pipeline != nil ||
		peek.Brief.Unlocks != nil || peek.Brief.RecentEvents == nil || len(peek.Brief.RecentEvents) != 0 || keys(peek.Brief.RelevantMemory)[0] != "g@" {
		t.Fatalf("no focus: %+v %v", peek.Brief, err)
	}
}
