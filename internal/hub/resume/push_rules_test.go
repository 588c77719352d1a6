package resume_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/resume"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// Push's rules outside the happy path: a task that does not exist is
// refused before anything is written (unless artifacts name it: their own
// error applies); artifact paths follow the rules of `bb artifact add`
// unless the surface records them as given; metadata "null" is no
// metadata; a blocked status closes the task with a default summary.
func TestPushRules(t *testing.T) {
	ctx := context.Background()
	k, _ := hubtest.Board(t, nil)
	svc := resume.New(k)
	task, err := k.CreateTask(ctx, "amy", hub.TaskInput{Title: "work", ProjectID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	id := task.Task.ID
	ev := &resume.PushEvent{Kind: "note", Message: "m"}
	if _, err := svc.Push(ctx, "amy", resume.PushInput{TaskID: "nope", Event: ev}); !hub.IsCode(err, hub.CodeNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	_, err = svc.Push(ctx, "amy", resume.PushInput{TaskID: "nope", Event: ev, Artifacts: []resume.PushArtifact{{FilePath: "/abs/a"}}, ArtifactPathsAsGiven: true})
	if he, ok := err.(*hub.Error); !ok || he.Code != hub.CodeNotFound || he.Field != "task_id" ||
		he.Message != `failed to add artifact "/abs/a": failed to insert artifact: constraint failed: FOREIGN KEY constraint failed (787)` {
		t.Fatalf("unknown task with artifacts: %#v", err)
	}
	if _, err := svc.Push(ctx, "amy", resume.PushInput{TaskID: id, Artifacts: []resume.PushArtifact{{FilePath: "../out"}}}); err == nil {
		t.Fatal("an artifact outside the project was accepted")
	}
	evs, err := svc.ListTaskEvents(ctx, resume.EventsQuery{All: true, TaskID: id})
	if err != nil || len(evs) != 1 {
		t.Fatalf("the refused pushes wrote events: %+v %v", evs, err)
	}
	r, err := svc.Push(ctx, "amy", resume.PushInput{TaskID: id, Event: &resume.PushEvent{Kind: "note", Message: "m", Metadata: json.RawMessage(" null ")},
		Artifacts: []resume.PushArtifact{{FilePath: "/abs/a"}}, ArtifactPathsAsGiven: true, TaskStatus: &resume.PushStatus{Status: hub.TaskBlocked, BlockedReason: "failure:x"}})
	if err != nil || r.Kind != "note" || len(r.Artifacts) != 1 || r.TaskStatus == nil || r.TaskStatus.TaskID != id || r.TaskStatus.CloseEventID == 0 {
		t.Fatalf("push: %+v %v", r, err)
	}
	evs, err = svc.ListTaskEvents(ctx, resume.EventsQuery{All: true, TaskID: id, Asc: true})
	if err != nil {
		t.Fatal(err)
	}
	var note, closed *resume.EventView
	for i := range evs {
		switch {
		case evs[i].ID == r.EventID:
			note = &evs[i]
		case evs[i].ID == r.TaskStatus.CloseEventID:
			closed = &evs[i]
		}
	}
	if note == nil || note.TaskID != id || note.ProjectID != "p" || string(note.Metadata) != "null" {
		t.Fatalf("the pushed event: %+v", note)
	}
	if closed == nil || string(closed.Metadata) != `{"outcome":"blocked","summary":"Task blocked via push"}` {
		t.Fatalf("the close event: %+v", closed)
	}
	got, err := k.GetTask(ctx, id)
	if err != nil || got.Status != hub.TaskBlocked {
		t.Fatalf("task: %+v %v", got, err)
	}
	// Any other status is set, not closed.
	r, err = svc.Push(ctx, "amy", resume.PushInput{TaskID: id, TaskStatus: &resume.PushStatus{Status: hub.TaskInProgress}})
	if err != nil || r.TaskStatus.StatusEventID == 0 || r.TaskStatus.CloseEventID != 0 {
		t.Fatalf("in progress: %+v %v", r, err)
	}
}
