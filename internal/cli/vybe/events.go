package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"fmt"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

// vybeEventsLimit is vybe's default for events list and artifacts list.
const vybeEventsLimit = 50

func (a *app) eventsCmd() *cobra.Command {
	var q resume.EventsQuery
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List events (yours unless --all), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agent, err := a.optionalAgent()
			if err != nil {
				return err
			}
			q.Agent = agent
			if !q.All && agent == "" {
				return hub.FieldErr(hub.CodeIdentityRequired, "agent", "agent is required unless --all is set (set --agent or VYBE_AGENT)")
			}
			if limit <= 0 {
				return hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be > 0")
			}
			// vybe's own default (50) is passed explicitly, and its
			// contract caps larger limits at the core's maximum instead
			// of refusing them; the core checks the range.
			n := min(limit, hub.MaxEventsLimit)
			q.Limit = &n
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			evs, err := svc.ListTaskEvents(cmd.Context(), q)
			if err != nil {
				return err
			}
			if evs == nil {
				evs = []resume.EventView{}
			}
			out := map[string]any{"count": len(evs), "events": evs}
			if !q.All {
				out["agent"] = agent
			}
			if q.TaskID != "" {
				out["task_id"] = q.TaskID
			}
			if q.Kind != "" {
				out["kind"] = q.Kind
			}
			if q.SinceID > 0 {
				out["since_id"] = q.SinceID
			}
			return a.ok(out)
		},
	}
	f := list.Flags()
	f.BoolVar(&q.All, "all", false, "every agent's events")
	f.StringVar(&q.TaskID, "task-id", "", "only events of this task")
	f.StringVar(&q.Kind, "kind", "", "only events of this kind")
	f.IntVar(&limit, "limit", vybeEventsLimit, fmt.Sprintf("maximum events (at most %d)", hub.MaxEventsLimit))
	f.Int64Var(&q.SinceID, "since-id", 0, "only events with id greater than this")
	f.BoolVar(&q.Asc, "asc", false, "oldest first")
	f.BoolVar(&q.IncludeArchived, "include-archived", false, "include archived events")
	c := namespace("events", "Read the event log", list)
	a.namespaceRun(c)
	return c
}

func (a *app) artifactsCmd() *cobra.Command {
	var taskID string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List a task's artifacts, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "task_id", "--task-id is required")
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			arts, err := svc.ListTaskArtifacts(cmd.Context(), taskID, limit)
			if err != nil {
				return err
			}
			return a.ok(map[string]any{"task_id": taskID, "count": len(arts), "artifacts": arts})
		},
	}
	list.Flags().StringVar(&taskID, "task-id", "", "task id")
	list.Flags().IntVar(&limit, "limit", vybeEventsLimit, "maximum artifacts")
	required(list, "task-id")
	c := namespace("artifacts", "Read task artifacts", list)
	a.namespaceRun(c)
	return c
}
