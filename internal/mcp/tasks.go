package mcp

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"context"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// Tasks and resume (seed 002, as bb task / bb resume).

type taskCreateIn struct {
	Title       string `json:"title" jsonschema:"what to do"`
	Description string `json:"description,omitempty" jsonschema:"details"`
	Project     string `json:"project,omitempty" jsonschema:"project id"`
	Priority    int    `json:"priority,omitempty" jsonschema:"higher first"`
}

type taskListIn struct {
	ID      string `json:"id,omitempty" jsonschema:"one task"`
	Status  string `json:"status,omitempty" jsonschema:"only this"`
	Project string `json:"project,omitempty" jsonschema:"only this"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 50"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type tasksOut struct {
	Tasks      []view.Task `json:"tasks"`
	NextCursor string      `json:"next_cursor,omitempty"`
}

type taskIDIn struct {
	ID string `json:"id" jsonschema:"task id"`
}

type taskCompleteIn struct {
	ID            string `json:"id" jsonschema:"task id"`
	Outcome       string `json:"outcome,omitempty" jsonschema:"default done"`
	Summary       string `json:"summary" jsonschema:"what was done"`
	BlockedReason string `json:"blocked_reason,omitempty" jsonschema:"if blocked"`
}

type resumeIn struct {
	Project string `json:"project,omitempty" jsonschema:"project id (remembered)"`
	Focus   string `json:"focus,omitempty" jsonschema:"task id to focus"`
	Peek    bool   `json:"peek,omitempty" jsonschema:"change nothing"`
}

func (s *Server) addTaskTools() {
	addTool(s, tool{name: "bb_task_create", needsID: true,
		desc: "Create a task (its id is the bead)."},
		func(ctx context.Context, c *call, in taskCreateIn) (view.Task, error) {
			r, err := c.svc.CreateTask(ctx, c.agent, hub.TaskInput{Title: in.Title, Description: in.Description, ProjectID: in.Project, Priority: in.Priority})
			return view.TaskOf(r.Task), err
		})

	addTool(s, tool{name: "bb_task_list", readOnly: true,
		desc: "Tasks by priority, or one by id."},
		func(ctx context.Context, c *call, in taskListIn) (tasksOut, error) {
			if in.ID != "" {
				t, err := c.svc.GetTask(ctx, in.ID)
				if err != nil {
					return tasksOut{}, err
				}
				return tasksOut{Tasks: []view.Task{view.TaskOf(t)}}, nil
			}
			off, err := offsetOf(in.Cursor)
			if err != nil {
				return tasksOut{}, err
			}
			limit := limitOr(in.Limit, defaultListLimit)
			ts, err := c.svc.ListTasks(ctx, hub.TaskFilter{Status: in.Status, ProjectID: in.Project, Priority: -1, Limit: off + limit + 1})
			if err != nil {
				return tasksOut{}, err
			}
			page, next := pageOf(view.Tasks(ts), off, limit)
			return tasksOut{Tasks: page, NextCursor: next}, nil
		})

	addTool(s, tool{name: "bb_task_begin", needsID: true, idempotent: true,
		desc: "Start a task: yours, in progress, focused."},
		func(ctx context.Context, c *call, in taskIDIn) (view.Task, error) {
			r, err := c.svc.ClaimTask(ctx, hub.ClaimInput{Agent: c.agent, ID: in.ID})
			return view.TaskOf(r.Task), err
		})

	addTool(s, tool{name: "bb_task_complete", needsID: true, idempotent: true,
		desc: "Close a task: done or blocked."},
		func(ctx context.Context, c *call, in taskCompleteIn) (view.Task, error) {
			outcome := in.Outcome
			if outcome == "" {
				outcome = "done"
			}
			r, err := c.svc.CompleteTask(ctx, c.agent, hub.CloseInput{ID: in.ID, Outcome: outcome, Summary: in.Summary, BlockedReason: in.BlockedReason})
			return view.TaskOf(r.Task), err
		})

	addTool(s, tool{name: "bb_resume", needsID: true,
		desc: "Changes since last resume, focus task, brief."},
		func(ctx context.Context, c *call, in resumeIn) (resume.ResumeResult, error) {
			if in.Peek {
				p, err := c.svc.PeekResume(ctx, c.agent, in.Project)
				r := resume.ResumeResult{AgentName: p.AgentName, Brief: p.Brief, Deltas: []resume.EventView{}}
				return resume.WithPrompt(r, func(b resume.Brief) string { return view.ResumePrompt(c.agent, b, view.ForMCP) }), err
			}
			r, err := c.svc.Resume(ctx, resume.ResumeInput{Agent: c.agent, ProjectDir: in.Project, Focus: in.Focus, StrictFocus: true})
			if r.Deltas == nil {
				r.Deltas = []resume.EventView{}
			}
			return resume.WithPrompt(r, func(b resume.Brief) string { return view.ResumePrompt(c.agent, b, view.ForMCP) }), err
		})
}
