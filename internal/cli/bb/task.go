package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
	"github.com/blackboard-hub/bb/internal/view"
)

// Tasks (seed 002) natively in bb: the same core as `vybe task`, with bb's
// envelope, identity (--as) and board discovery. Task ids are the bead ids
// that bb agent mail and reservations refer to.

func (a *app) taskCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "task",
		Short: "Tasks with dependencies (what bead ids in mail and reservations name)",
		Long: `Tasks are units of work with a status (pending, in_progress, completed,
blocked), a priority and dependencies. A task with an unfinished dependency
is blocked; completing the last one returns it to pending. Cycles are
rejected. 'bb task show' lists the messages, reservations and events that
name a task (by its id, used as bead id).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.taskCreateCmd(), a.taskListCmd(), a.taskShowCmd(), a.taskBeginCmd(), a.taskStatusCmd(),
		a.taskPriorityCmd(), a.taskCompleteCmd(), a.taskDepCmd(), a.taskDeleteCmd())
	return c
}

// taskActor is the acting agent of a task mutation.
func (a *app) taskActor() (string, error) {
	id, _ := a.identity()
	if err := hub.ValidateStoredAgentID(id); err != nil {
		return "", err
	}
	return id, nil
}

// actingService is the service and the acting agent of a mutation: the
// identity is checked before the board is opened.
func (a *app) actingService(ctx context.Context) (core.API, string, error) {
	agent, err := a.taskActor()
	if err != nil {
		return nil, "", err
	}
	svc, err := a.service(ctx)
	return svc, agent, err
}

// actorService resolves the acting agent (--as, else $BB_AGENT_ID) and
// opens the board, in that order.
func (a *app) actorService(ctx context.Context) (string, core.API, error) {
	id, _, err := a.actor(ctx)
	if err != nil {
		return "", nil, err
	}
	svc, err := a.service(ctx)
	return id, svc, err
}

func printTask(w io.Writer, t hub.Task) {
	fmt.Fprintf(w, "%s  [%s] p%d  %s\n", termtext.Line(hub.TaskHandle(t.ID)), t.Status, t.Priority, termtext.Line(t.Title))
	if t.ProjectID != "" {
		fmt.Fprintf(w, "  project: %s\n", t.ProjectID)
	}
	if t.BlockedReason != "" {
		fmt.Fprintf(w, "  blocked: %s\n", termtext.Line(t.BlockedReason))
	}
	if len(t.DependsOn) > 0 {
		fmt.Fprintf(w, "  depends on: %s\n", hub.HandleText(strings.Join(t.DependsOn, ", ")))
	}
	if t.Owner != "" {
		fmt.Fprintf(w, "  owner: %s\n", t.Owner)
	}
	if t.Description != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Line(t.Description))
	}
}

func (a *app) taskResultReply(cmd *cobra.Command, r hub.TaskResult, verb string) error {
	return a.reply(cmd, view.TaskOf(r.Task), func(w io.Writer) {
		fmt.Fprintf(w, "%s task %s\n", verb, hub.TaskHandle(r.Task.ID))
		printTask(w, r.Task)
	})
}

func (a *app) taskCreateCmd() *cobra.Command {
	var in hub.TaskInput
	c := &cobra.Command{
		Use:     "create <title>",
		Short:   "Create a pending task",
		Example: `  bb --as claude-1 task create "Fix login redirect" --desc "after OAuth" --priority 2`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Title = args[0]
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.CreateTask(cmd.Context(), agent, in)
			if err != nil {
				return err
			}
			return a.taskResultReply(cmd, r, "Created")
		},
	}
	c.Flags().StringVar(&in.Description, "desc", "", "description")
	c.Flags().StringVar(&in.ProjectID, "project", "", "project id")
	c.Flags().IntVar(&in.Priority, "priority", 0, "priority (higher first)")
	return c
}

func (a *app) taskListCmd() *cobra.Command {
	f := hub.TaskFilter{}
	c := &cobra.Command{
		Use:   "list",
		Short: "List tasks, highest priority and newest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Limit < 0 {
				return hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be positive")
			}
			if f.Status != "" {
				if err := hub.CheckTaskStatus(f.Status); err != nil {
					return err
				}
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			ts, err := svc.ListTasks(cmd.Context(), f)
			if err != nil {
				return err
			}
			views := view.Tasks(ts)
			if views == nil {
				views = []view.Task{}
			}
			return a.reply(cmd, views, func(w io.Writer) {
				if len(ts) == 0 {
					fmt.Fprintln(w, "No tasks.")
					return
				}
				rows := make([][]string, 0, len(ts))
				for _, t := range ts {
					rows = append(rows, []string{hub.TaskHandle(t.ID), t.Status, fmt.Sprintf("p%d", t.Priority), t.Title, t.Owner})
				}
				writeTable(w, []column{{Header: "TASK", Min: 9}, {Header: "STATUS", Min: 11}, {Header: "PRI", Min: 4},
					{Header: "TITLE", Max: 60, Ellipsis: "…"}, {Header: "OWNER"}}, rows, "", nil)
			})
		},
	}
	c.Flags().StringVar(&f.Status, "status", "", "only this status (pending, in_progress, completed, blocked)")
	c.Flags().StringVar(&f.ProjectID, "project", "", "only this project")
	c.Flags().IntVar(&f.Priority, "priority", -1, "only this priority (-1 = any)")
	c.Flags().IntVar(&f.Limit, "limit", 0, "at most this many (0 = all)")
	return c
}

type taskMessageJSON struct {
	ID        int64     `json:"id"`
	UUID      string    `json:"uuid"`
	FromAgent string    `json:"from_agent"`
	To        string    `json:"to"`
	Subject   string    `json:"subject"`
	CreatedAt time.Time `json:"created_at"`
}

type taskReservationJSON struct {
	ReservationID string    `json:"reservation_id"`
	Scope         string    `json:"scope"`
	AgentID       string    `json:"agent_id"`
	State         string    `json:"state"`
	CreatedAt     time.Time `json:"created_at"`
	ExpiresAt     time.Time `json:"expires_at"`
}

type taskDetailJSON struct {
	Task         view.Task             `json:"task"`
	Messages     []taskMessageJSON     `json:"messages"`
	Reservations []taskReservationJSON `json:"reservations"`
	Events       []resume.EventView    `json:"events"`
}

func (a *app) taskShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show <id>",
		Short: "Show a task with the messages, reservations and events that name it",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			d, err := svc.GetTaskDetail(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			out := taskDetailJSON{Task: view.TaskOf(d.Task), Messages: []taskMessageJSON{}, Reservations: []taskReservationJSON{},
				Events: resume.ViewEvents(d.Events)}
			if out.Events == nil {
				out.Events = []resume.EventView{}
			}
			for _, m := range d.Messages {
				out.Messages = append(out.Messages, taskMessageJSON{ID: m.Seq, UUID: m.UUID, FromAgent: m.From, To: m.To, Subject: m.Subject, CreatedAt: m.CreatedAt})
			}
			for _, r := range d.Reservations {
				scope := r.Scope
				if rel, err := filepath.Rel(svc.Root(), scope); svc.Root() != "" && err == nil && !strings.HasPrefix(rel, "..") {
					scope = filepath.ToSlash(rel) // shown relative to the project root, like bb agent
				}
				if r.Wildcard {
					scope += "/*"
				}
				out.Reservations = append(out.Reservations, taskReservationJSON{ReservationID: r.ID, Scope: scope, AgentID: r.AgentID,
					State: r.State, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt})
			}
			tw := a.when()
			return a.reply(cmd, out, func(w io.Writer) {
				printTask(w, d.Task)
				fmt.Fprintf(w, "Messages (%d):\n", len(d.Messages))
				for _, m := range d.Messages {
					fmt.Fprintf(w, "  #%d %s -> %s: %s\n", m.Seq, m.From, m.To, termtext.Line(m.Subject))
				}
				fmt.Fprintf(w, "Reservations (%d):\n", len(d.Reservations))
				for _, r := range out.Reservations {
					fmt.Fprintf(w, "  %s %s (%s, until %s)\n", r.AgentID, r.Scope, r.State, tw.at(r.ExpiresAt))
				}
				fmt.Fprintf(w, "Events (%d):\n", len(d.Events))
				for _, e := range d.Events {
					fmt.Fprintf(w, "  %6d %-16s %-22s %-16s %s\n", e.Seq, tw.at(e.CreatedAt), e.Type, e.Agent, termtext.Line(hub.HandleText(e.Message)))
				}
			})
		},
	}
}

func (a *app) taskBeginCmd() *cobra.Command {
	var takeover bool
	c := &cobra.Command{
		Use:     "begin <id>",
		Aliases: []string{"claim", "start"},
		Short:   "Start a task: in_progress, owned by you, and your focus",
		Long: `Start a task: it becomes in_progress, owned by you, and your focus. The id
may be any unique prefix of the task id (or of its random part).

Claims hold: a task whose dependencies are not all completed is refused
(the error names them), and so is a task in progress owned by another agent
that is active or quiet (the error names the owner). A stale or offline
owner's task is taken over only with --takeover-stale, which records a
task_takeover event. (vybe task begin keeps vybe's contract and moves any
task.)`,
		Example: `  bb task begin 1da57670
  bb --as bob task begin 1da57670 --takeover-stale`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.ClaimTask(cmd.Context(), hub.ClaimInput{Agent: agent, ID: args[0], TakeoverStale: takeover})
			if err != nil {
				return err
			}
			return a.taskResultReply(cmd, r, "Began")
		},
	}
	c.Flags().BoolVar(&takeover, "takeover-stale", false, "take over a task whose owner is stale or offline")
	return c
}

func (a *app) taskStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status <id> <status>",
		Short: "Set a task's status (low-level transition)",
		Long: `Set a task's status directly: <status> is pending, in_progress, completed
or blocked. bb task begin, complete and block are the usual transitions.`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[1] != "" {
				if err := hub.CheckTaskStatus(args[1]); err != nil {
					return err
				}
			}
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.SetTaskStatus(cmd.Context(), agent, args[0], args[1])
			if err != nil {
				return err
			}
			return a.taskResultReply(cmd, r, "Updated")
		},
	}
}

func (a *app) taskPriorityCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "priority <id> <n>",
		Short: "Set a task's priority (any integer; higher first)",
		Args:  usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := strconv.Atoi(args[1])
			if err != nil {
				return hub.FieldErr(hub.CodeInvalidInput, "priority", "invalid priority %q: expected an integer", args[1])
			}
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.SetTaskPriority(cmd.Context(), agent, args[0], p)
			if err != nil {
				return err
			}
			return a.taskResultReply(cmd, r, "Updated")
		},
	}
}

func (a *app) taskCompleteCmd() *cobra.Command {
	var in hub.CloseInput
	c := &cobra.Command{
		Use:     "complete <id> --summary <text>",
		Aliases: []string{"close"},
		Short:   "Close a task: --outcome done (default) or blocked",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.ID = args[0]
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.CompleteTask(cmd.Context(), agent, in)
			if err != nil {
				return err
			}
			return a.taskResultReply(cmd, r, "Closed")
		},
	}
	c.Flags().StringVar(&in.Outcome, "outcome", "done", "done or blocked")
	c.Flags().StringVar(&in.Summary, "summary", "", "what was done, or why it is blocked (required)")
	c.Flags().StringVar(&in.Label, "label", "", "label recorded with the close event")
	c.Flags().StringVar(&in.BlockedReason, "blocked-reason", "", "reason when blocked (default failure:<summary>)")
	return c
}

func (a *app) taskDepCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "dep",
		Short: "Add or remove task dependencies",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	mk := func(use, short string, add bool) *cobra.Command {
		return &cobra.Command{
			Use:   use + " <id> <depends-on-id>",
			Short: short,
			Args:  usageArgs(cobra.ExactArgs(2)),
			RunE: func(cmd *cobra.Command, args []string) error {
				svc, agent, err := a.actingService(cmd.Context())
				if err != nil {
					return err
				}
				var r hub.DepResult
				if add {
					r, err = svc.AddTaskDep(cmd.Context(), agent, args[0], args[1])
				} else {
					r, err = svc.RemoveTaskDep(cmd.Context(), agent, args[0], args[1])
				}
				if err != nil {
					return err
				}
				t, err := svc.GetTask(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return a.reply(cmd, map[string]any{"message": r.Message, "task": view.TaskOf(t)}, func(w io.Writer) {
					fmt.Fprintln(w, hub.HandleText(r.Message))
					printTask(w, t)
				})
			},
		}
	}
	c.AddCommand(mk("add", "Make <id> depend on <depends-on-id> (blocks it until that completes)", true),
		mk("remove", "Remove a dependency (unblocks the task when none is left)", false))
	return c
}

func (a *app) taskDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete <id>",
		Short: "Delete a task and its dependency edges",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.DeleteTask(cmd.Context(), agent, args[0])
			if err != nil {
				return err
			}
			return a.reply(cmd, r, func(w io.Writer) { fmt.Fprintf(w, "Deleted task %s\n", r.TaskID) })
		},
	}
}
