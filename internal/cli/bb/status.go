package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"

	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
	"github.com/blackboard-hub/bb/internal/view"
)

func (a *app) statusCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "status",
		Short: "Show every agent's status and liveness",
		Long: `Show the status board: each agent's status, progress, task, blockers and
when it was last seen. Liveness (S = $BB_AGENT_STALE_MINUTES, default 15):
active (seen within 5 minutes), quiet (within S), stale (within 2S),
offline beyond. This table keeps the board's three words: quiet and stale
agents are both marked [STALE] (bb agent list and the dashboard tell them
apart), and reading the board stores agents unseen for more than 2S
minutes as offline. --json gives both "liveness" (active, stale, offline:
quiet counts as stale there) and "presence" (active, quiet, stale,
offline).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			agents, err := svc.Board(cmd.Context())
			if err != nil {
				return err
			}
			// The leases held (bb lease) follow the agents in the table;
			// --json keeps the list of agents it always was.
			var held []leases.Status
			if !a.g.json {
				if held, err = svc.ListLeases(cmd.Context(), leases.ListFilter{}); err != nil {
					return err
				}
			}
			return a.reply(cmd, agentLiveViews(agents), func(w io.Writer) {
				printAgents(w, agents)
				a.printLeases(w, held)
			})
		},
	}
	c.AddCommand(a.statusSetCmd(), a.statusGetCmd(), a.statusClearCmd())
	return c
}

func (a *app) statusSetCmd() *cobra.Command {
	var progress int
	var status, blockers string
	c := &cobra.Command{
		Use:   "set <task>",
		Short: "Set your current task (and progress, status, blockers)",
		Example: `  bb --as claude-1 status set "Refactor the parser" --status coding --progress 40
  bb --as claude-1 status set "Waiting on API" --status blocked --blockers "need auth token"`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, svc, err := a.actorService(cmd.Context())
			if err != nil {
				return err
			}
			u := hub.StatusUpdate{Task: &args[0]}
			if cmd.Flags().Changed("progress") {
				u.Progress = &progress
			}
			if cmd.Flags().Changed("status") {
				u.Status = &status
			}
			if cmd.Flags().Changed("blockers") {
				u.Blockers = &blockers
			}
			ag, err := svc.SetStatus(cmd.Context(), id, u)
			if err != nil {
				return err
			}
			return a.reply(cmd, agentView(ag), func(w io.Writer) {
				fmt.Fprintf(w, "Updated status for %s: %s\n", ag.ID, ag.Status)
				if ag.CurrentTask != "" {
					fmt.Fprintf(w, "  Task: %s\n", termtext.Line(ag.CurrentTask))
				}
				if ag.Progress > 0 {
					fmt.Fprintf(w, "  Progress: %d%%\n", ag.Progress)
				}
				if ag.Blockers != nil {
					fmt.Fprintf(w, "  Blockers: %s\n", termtext.Line(*ag.Blockers))
				}
			})
		},
	}
	f := c.Flags()
	f.IntVar(&progress, "progress", 0, "progress in percent, 0..100")
	flagerr.SetRange(f, "progress", 0, 100)
	f.StringVar(&status, "status", "", "one of "+strings.Join(hub.AgentStatuses, ", "))
	f.StringVar(&blockers, "blockers", "", "what blocks you (kept until a non-blocked status is set)")
	return c
}

func (a *app) statusGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "get <agent_id>",
		Short: "Show one agent's status",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			ag, err := svc.AgentStatus(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.reply(cmd, agentLiveView(ag), func(w io.Writer) { printAgents(w, []hub.AgentView{ag}) })
		},
	}
}

func (a *app) statusClearCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "clear",
		Short: "Reset your status to idle (no task, progress 0, no blockers)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, svc, err := a.actorService(cmd.Context())
			if err != nil {
				return err
			}
			ag, err := svc.ClearStatus(cmd.Context(), id)
			if err != nil {
				return err
			}
			return a.reply(cmd, agentView(ag), func(w io.Writer) { fmt.Fprintf(w, "Cleared status for %s\n", ag.ID) })
		},
	}
}

func printAgents(w io.Writer, agents []hub.AgentView) {
	if len(agents) == 0 {
		fmt.Fprintln(w, "No agents found.")
		return
	}
	cols := []column{{Header: "AGENT", Min: 20},
		{Header: "STATUS", Min: 12, Mark: func(r int) (string, style) {
			if agents[r].Liveness == hub.LiveStale {
				return "[STALE]", styleWarn
			}
			return "", styleNone
		}},
		{Header: "PROG", Min: 8}, {Header: "TASK", Min: 30, Max: 30, Ellipsis: "..."}, {Header: "LAST SEEN"}}
	rows := make([][]string, 0, len(agents))
	for _, ag := range agents {
		seen := "-" // never seen acting (known only from mail)
		if !ag.LastSeen.IsZero() {
			seen = ago(ag.MinutesSince)
		}
		task := ag.CurrentTask
		if task == "" && ag.Work != nil && ag.Work.Task != nil {
			task = ag.Work.Task.Title // self-reported or not, the board knows
		}
		rows = append(rows, []string{ag.ID, ag.Status, fmt.Sprintf("%d%%", ag.Progress), task, seen})
	}
	// Blocker lines and what the board shows each agent doing follow its row.
	writeTable(w, cols, rows, strings.Repeat("-", 100), func(w io.Writer, r int) {
		if d := agents[r].Where.Describe(); d != "" {
			fmt.Fprintf(w, "  → Works %s\n", termtext.Line(d))
		}
		if b := agents[r].Blockers; b != nil && *b != "" {
			fmt.Fprintf(w, "  → Blockers: %s\n", termtext.Line(*b))
		}
		if l := view.WorkLine(agents[r].Work); l != "" {
			fmt.Fprintf(w, "  → Doing: %s\n", termtext.Line(l))
		}
	})
}

// truncate makes s one line of at most n characters for a column: control
// characters (a newline included) are escaped first.
func truncate(s string, n int) string {
	s = termtext.Line(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

// printLeases is the leases part of bb status and bb agent status:
// nothing when none is held or waited for.
func (a *app) printLeases(w io.Writer, ss []leases.Status) {
	if len(ss) == 0 {
		return
	}
	fmt.Fprintf(w, "Leases: %d\n", len(ss))
	for _, st := range ss {
		fmt.Fprintf(w, "  %s\n", a.leaseLine(st))
	}
}
