package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

var statusUsage = "task status (pending|in_progress|completed|blocked)"

func (a *app) taskCmd() *cobra.Command {
	c := namespace("task", "Create, claim, update and complete tasks",
		a.taskCreateCmd(), a.taskBeginCmd(), a.taskGetCmd(), a.taskListCmd(), a.taskSetStatusCmd(),
		a.taskSetPriorityCmd(), a.taskCompleteCmd(), a.taskDepCmd(true), a.taskDepCmd(false), a.taskDeleteCmd())
	a.namespaceRun(c)
	return c
}

type taskReply struct {
	Task          resume.TaskView `json:"task"`
	EventID       int64           `json:"event_id,omitempty"`
	StatusEventID int64           `json:"status_event_id,omitempty"`
	FocusEventID  int64           `json:"focus_event_id,omitempty"`
	CloseEventID  int64           `json:"close_event_id,omitempty"`
}

func (a *app) taskCreateCmd() *cobra.Command {
	var in hub.TaskInput
	c := &cobra.Command{
		Use:   "create",
		Short: "Create a pending task",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in.Title == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "title", "--title is required")
			}
			ctx, agent, err := a.mutation(cmd.Context(), "task.create")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.CreateTask(ctx, agent, in)
			if err != nil {
				return err
			}
			return a.ok(map[string]any{"task": sheetTask(r.Task), "event_id": r.EventID})
		},
	}
	f := c.Flags()
	f.StringVar(&in.Title, "title", "", "task title")
	f.StringVar(&in.Description, "desc", "", "task description")
	f.StringVar(&in.ProjectID, "project-id", "", "project the task belongs to")
	hiddenStringAlias(f, &in.ProjectID, "project", "alias of --project-id")
	f.IntVar(&in.Priority, "priority", 0, "priority (higher first)")
	required(c, "title")
	return mutating(c, true)
}

func (a *app) taskBeginCmd() *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:   "begin",
		Short: "Start a task: in_progress, owned by you, and your focus",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			}
			ctx, agent, err := a.mutation(cmd.Context(), "task.start")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.BeginTask(ctx, agent, id)
			if err != nil {
				return err
			}
			return a.ok(taskReply{Task: sheetTask(r.Task), StatusEventID: r.StatusEventID, FocusEventID: r.FocusEventID})
		},
	}
	c.Flags().StringVar(&id, "id", "", "task id")
	required(c, "id")
	return mutating(c, true)
}

func (a *app) taskGetCmd() *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:   "get",
		Short: "Show one task",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			t, err := svc.GetTask(cmd.Context(), id)
			if err != nil {
				return prefixed("failed to get task: ", err)
			}
			return a.ok(sheetTask(t))
		},
	}
	c.Flags().StringVar(&id, "id", "", "task id")
	required(c, "id")
	return c
}

func (a *app) taskListCmd() *cobra.Command {
	var f hub.TaskFilter
	c := &cobra.Command{
		Use:   "list",
		Short: "List tasks (priority DESC, newest first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			ts, err := svc.ListTasks(cmd.Context(), f)
			if err != nil {
				return err
			}
			var views []resume.TaskView // null when empty, as the original
			if len(ts) > 0 {
				views = sheetTasks(ts)
			}
			return a.ok(map[string]any{"count": len(ts), "tasks": views})
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.Status, "status", "", "filter by "+statusUsage)
	fl.StringVar(&f.ProjectID, "project-id", "", "filter by project")
	hiddenStringAlias(fl, &f.ProjectID, "project", "alias of --project-id")
	fl.IntVar(&f.Priority, "priority", -1, "filter by priority (-1 = any)")
	enum(c, "status", hub.TaskStatuses...)
	return c
}

func (a *app) taskSetStatusCmd() *cobra.Command {
	var id, status string
	c := &cobra.Command{
		Use:   "set-status",
		Short: "Set a task's status (low-level transition)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			}
			if status == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "status", "--status is required")
			}
			if err := hub.ValidateTaskStatus(status); err != nil {
				return err
			}
			ctx, agent, err := a.mutation(cmd.Context(), "task.set_status")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.SetTaskStatus(ctx, agent, id, status)
			if err != nil {
				return prefixed("failed to get task: ", err)
			}
			return a.ok(map[string]any{"task": sheetTask(r.Task), "event_id": r.EventID})
		},
	}
	c.Flags().StringVar(&id, "id", "", "task id")
	c.Flags().StringVar(&status, "status", "", statusUsage)
	required(c, "id", "status")
	enum(c, "status", hub.TaskStatuses...)
	return mutating(c, true)
}

func (a *app) taskSetPriorityCmd() *cobra.Command {
	var id string
	var priority int
	c := &cobra.Command{
		Use:   "set-priority",
		Short: "Set a task's priority (any integer; higher first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			}
			if !cmd.Flags().Changed("priority") {
				return hub.FieldErr(hub.CodeInvalidInput, "priority", "--priority is required")
			}
			ctx, agent, err := a.mutation(cmd.Context(), "task.set_priority")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.SetTaskPriority(ctx, agent, id, priority)
			if err != nil {
				return prefixed("failed to get task: ", err)
			}
			return a.ok(map[string]any{"task": sheetTask(r.Task), "event_id": r.EventID})
		},
	}
	c.Flags().StringVar(&id, "id", "", "task id")
	c.Flags().IntVar(&priority, "priority", 0, "new priority")
	required(c, "id", "priority")
	return mutating(c, true)
}

func (a *app) taskCompleteCmd() *cobra.Command {
	var in hub.CloseInput
	c := &cobra.Command{
		Use:   "complete",
		Short: "Close a task: --outcome done (completed) or blocked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case in.ID == "":
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			case in.Outcome == "":
				return hub.FieldErr(hub.CodeInvalidInput, "outcome", "--outcome is required (done|blocked)")
			case in.Summary == "":
				return hub.FieldErr(hub.CodeInvalidInput, "summary", "--summary is required")
			}
			if _, err := hub.OutcomeStatus(in.Outcome); err != nil {
				return err
			}
			ctx, agent, err := a.mutation(cmd.Context(), "task.close")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.CompleteTask(ctx, agent, in)
			if err != nil {
				return err
			}
			return a.ok(map[string]any{"task": sheetTask(r.Task), "status_event_id": r.StatusEventID, "close_event_id": r.CloseEventID})
		},
	}
	f := c.Flags()
	f.StringVar(&in.ID, "id", "", "task id")
	f.StringVar(&in.Outcome, "outcome", "", "done or blocked")
	f.StringVar(&in.Summary, "summary", "", "what was done, or why it is blocked")
	f.StringVar(&in.Label, "label", "", "optional label recorded with the close event")
	f.StringVar(&in.BlockedReason, "blocked-reason", "", "reason when blocked (default failure:<summary>)")
	required(c, "id", "outcome", "summary")
	return mutating(c, true)
}

func (a *app) taskDepCmd(add bool) *cobra.Command {
	var id, dep string
	use, short, command := "add-dep", "Make a task depend on another (blocks it until that one completes)", "task.add_dependency"
	if !add {
		use, short, command = "remove-dep", "Remove a dependency (unblocks the task when none is left)", "task.remove_dependency"
	}
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			}
			if dep == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "depends_on", "--depends-on is required")
			}
			ctx, agent, err := a.mutation(cmd.Context(), command)
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			var r hub.DepResult
			if add {
				r, err = svc.AddTaskDep(ctx, agent, id, dep)
			} else {
				r, err = svc.RemoveTaskDep(ctx, agent, id, dep)
			}
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	c.Flags().StringVar(&id, "id", "", "task id (the dependent task)")
	c.Flags().StringVar(&dep, "depends-on", "", "task id it depends on")
	required(c, "id", "depends-on")
	return mutating(c, true)
}

func (a *app) taskDeleteCmd() *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:   "delete",
		Short: "Delete a task and its dependency edges",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "--id is required")
			}
			ctx, agent, err := a.mutation(cmd.Context(), "task.delete")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.DeleteTask(ctx, agent, id)
			if err != nil {
				return prefixed("failed to delete task: ", err)
			}
			return a.ok(r)
		},
	}
	c.Flags().StringVar(&id, "id", "", "task id")
	required(c, "id")
	return mutating(c, true)
}

// sheetTask is a task in the task tracker's own JSON shape: the board's
// task view without "owner" (bb shows who holds a task; the original's
// task object has no such key).
func sheetTask(t hub.Task) resume.TaskView {
	v := resume.ViewTask(t)
	v.Owner = ""
	return v
}

// sheetTasks converts tasks with sheetTask; nil stays nil.
func sheetTasks(ts []hub.Task) []resume.TaskView {
	vs := resume.ViewTasks(ts)
	for i := range vs {
		vs[i].Owner = ""
	}
	return vs
}

// sheetBrief drops "owner" from a resume brief's task the same way.
func sheetBrief(b *resume.Brief) {
	if b.Task != nil {
		t := *b.Task
		t.Owner = ""
		b.Task = &t
	}
}
