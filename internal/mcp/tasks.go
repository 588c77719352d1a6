package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tasks and resume (seed 002, as bb task / bb resume).

type taskCreateIn struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Project     string `json:"project,omitempty"`
	Priority    int    `json:"priority,omitempty" jsonschema:"higher first"`
}

type taskListIn struct {
	ID      string `json:"id,omitempty" jsonschema:"one task"`
	Status  string `json:"status,omitempty" jsonschema:"pending|in_progress|completed|blocked"`
	Project string `json:"project,omitempty"`
	Limit   int    `json:"limit,omitempty"`
}

type tasksOut struct {
	Tasks []hub.TaskView `json:"tasks"`
}

type taskIDIn struct {
	ID string `json:"id"`
}

type taskCompleteIn struct {
	ID            string `json:"id"`
	Outcome       string `json:"outcome,omitempty" jsonschema:"done (default) or blocked"`
	Summary       string `json:"summary" jsonschema:"what was done, or why it is blocked"`
	BlockedReason string `json:"blocked_reason,omitempty"`
}

type resumeIn struct {
	Project string `json:"project,omitempty" jsonschema:"scope to this project id (remembered)"`
	Focus   string `json:"focus,omitempty" jsonschema:"task id to focus on"`
	Peek    bool   `json:"peek,omitempty" jsonschema:"show the brief, change nothing"`
}

func (s *Server) addTaskTools() {
	addTool(s, tool{name: "bb_task_create", needsID: true,
		desc: "Create a pending task (its id is the bead id that mail and reservations name)."},
		func(ctx context.Context, c *call, in taskCreateIn) (hub.TaskView, error) {
			r, err := c.svc.CreateTask(ctx, c.agent, hub.TaskInput{Title: in.Title, Description: in.Description, ProjectID: in.Project, Priority: in.Priority})
			return hub.ViewTask(r.Task), err
		})

	addTool(s, tool{name: "bb_task_list", readOnly: true,
		desc: "List tasks (highest priority, newest first) or show one by id, to pick or check work."},
		func(ctx context.Context, c *call, in taskListIn) (tasksOut, error) {
			if in.ID != "" {
				t, err := c.svc.GetTask(ctx, in.ID)
				if err != nil {
					return tasksOut{}, err
				}
				return tasksOut{Tasks: []hub.TaskView{hub.ViewTask(t)}}, nil
			}
			if in.Limit < 0 {
				return tasksOut{}, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be positive, got %d", in.Limit)
			}
			ts, err := c.svc.ListTasks(ctx, hub.TaskFilter{Status: in.Status, ProjectID: in.Project, Priority: -1, Limit: in.Limit})
			out := tasksOut{Tasks: hub.ViewTasks(ts)}
			if out.Tasks == nil {
				out.Tasks = []hub.TaskView{}
			}
			return out, err
		})

	addTool(s, tool{name: "bb_task_begin", needsID: true,
		desc: "Start a task: in_progress, owned by you, and your focus."},
		func(ctx context.Context, c *call, in taskIDIn) (hub.TaskView, error) {
			r, err := c.svc.BeginTask(ctx, c.agent, in.ID)
			return hub.ViewTask(r.Task), err
		})

	addTool(s, tool{name: "bb_task_complete", needsID: true,
		desc: "Close a task when done (or blocked), with a summary; tasks waiting on it are unblocked."},
		func(ctx context.Context, c *call, in taskCompleteIn) (hub.TaskView, error) {
			outcome := in.Outcome
			if outcome == "" {
				outcome = "done"
			}
			r, err := c.svc.CompleteTask(ctx, c.agent, hub.CloseInput{ID: in.ID, Outcome: outcome, Summary: in.Summary, BlockedReason: in.BlockedReason})
			return hub.ViewTask(r.Task), err
		})

	addTool(s, tool{name: "bb_resume", needsID: true, core: true,
		desc: "Start or resume a session: what changed since your last resume, your focus task and a brief with memory."},
		func(ctx context.Context, c *call, in resumeIn) (hub.ResumeResult, error) {
			if in.Peek {
				p, err := c.svc.PeekResume(ctx, c.agent, in.Project)
				return hub.ResumeResult{AgentName: p.AgentName, Brief: p.Brief, Prompt: hub.Prompt(c.agent, p.Brief), Deltas: []hub.EventView{}}, err
			}
			r, err := c.svc.Resume(ctx, hub.ResumeInput{Agent: c.agent, ProjectDir: in.Project, Focus: in.Focus})
			if r.Deltas == nil {
				r.Deltas = []hub.EventView{}
			}
			return r, err
		})
}
