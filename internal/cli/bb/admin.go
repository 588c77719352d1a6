package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/housekeeping"

	"github.com/blackboard-hub/bb/internal/hub/overview"

	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
	"github.com/blackboard-hub/bb/internal/view"
)

func (a *app) clearCmd() *cobra.Command {
	var before, eventsBefore string
	var resetOffline, artifacts, confirm bool
	c := &cobra.Command{
		Use:   "clear",
		Short: "Bulk cleanup: old messages, old events, offline agents, artifacts",
		Long: `Delete messages older than a duration, timeline events older than a
duration, agents that are offline, and/or every registered artifact. Shows
what it will delete first. Without --confirm it asks on a terminal and
deletes nothing otherwise.

--events-before removes events in transactions of 100, oldest first, as
the board's retention.events setting does in bb serve (bb config set
retention.events 90d): agents keep writing meanwhile. A follower of the
event stream, or a reader of bb events --since-seq, whose cursor is older
is told ("timeline.cursor_expired") and resumes at the oldest event kept.`,
		Example: `  bb clear --messages-before 2d --confirm
  bb clear --events-before 90d --confirm
  bb clear --reset-offline --artifacts --confirm`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			in := housekeeping.ClearInput{ResetOffline: resetOffline, Artifacts: artifacts}
			in.Agent, _ = a.identity()
			if cmd.Flags().Changed("messages-before") {
				d, err := hub.ParseDuration(before)
				if err != nil {
					return err
				}
				if d == 0 {
					return hub.FieldErr(hub.CodeInvalidInput, "messages-before", "duration must be greater than zero")
				}
				in.MessagesBefore = d
			}
			if cmd.Flags().Changed("events-before") {
				d, err := hub.ParseDuration(eventsBefore)
				if err != nil {
					return err
				}
				if d <= 0 {
					return hub.FieldErr(hub.CodeInvalidInput, "events-before", "duration must be greater than zero")
				}
				in.EventsBefore = d
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			plan, err := svc.PlanClear(cmd.Context(), in)
			if err != nil {
				return err
			}
			if plan.Empty() {
				return a.reply(cmd, map[string]any{"cleared": false, "deleted": plan}, func(w io.Writer) { fmt.Fprintln(w, "Nothing to clear.") })
			}
			if !confirm {
				if a.g.json || !a.env.StdinTerminal {
					return a.reply(cmd, map[string]any{"cleared": false, "would_delete": plan, "hint": "run again with --confirm"}, func(w io.Writer) {
						printPlan(w, plan, before, eventsBefore)
						fmt.Fprintln(w, "Nothing deleted: run again with --confirm.")
					})
				}
				printPlan(termtext.Writer{W: a.env.Stdout}, plan, before, eventsBefore)
				fmt.Fprint(a.env.Stdout, "Proceed? [y/N] ")
				ans, _ := bufio.NewReader(a.env.Stdin).ReadString('\n')
				if s := strings.ToLower(strings.TrimSpace(ans)); s != "y" && s != "yes" {
					fmt.Fprintln(a.env.Stdout, "Aborted.")
					return nil
				}
			}
			done, err := svc.Clear(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.reply(cmd, map[string]any{"cleared": true, "deleted": done}, func(w io.Writer) {
				if in.MessagesBefore > 0 {
					fmt.Fprintf(w, "Deleted %d messages\n", done.Messages)
				}
				if in.ResetOffline {
					fmt.Fprintf(w, "Deleted %d offline agents\n", done.OfflineAgents)
				}
				if in.Artifacts {
					fmt.Fprintf(w, "Cleared %d artifacts\n", done.Artifacts)
				}
				if in.EventsBefore > 0 {
					fmt.Fprintf(w, "Deleted %d events\n", done.Events)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&before, "messages-before", "", "delete messages older than this (10m, 1h, 2d, 1w)")
	f.StringVar(&eventsBefore, "events-before", "", "delete timeline events older than this (90d, 2w), in small batches")
	f.BoolVar(&resetOffline, "reset-offline", false, "delete agents that are offline")
	f.BoolVar(&artifacts, "artifacts", false, "delete every registered artifact")
	f.BoolVar(&confirm, "confirm", false, "do it without asking")
	return c
}

func printPlan(w io.Writer, p housekeeping.ClearPlan, before, eventsBefore string) {
	fmt.Fprintln(w, "The following actions will be performed:")
	if p.Messages > 0 {
		fmt.Fprintf(w, "  • Delete %d messages before %s\n", p.Messages, before)
	}
	if p.Events > 0 {
		fmt.Fprintf(w, "  • Delete %d events older than %s\n", p.Events, eventsBefore)
	}
	if p.OfflineAgents > 0 {
		fmt.Fprintf(w, "  • Delete %d offline agents\n", p.OfflineAgents)
	}
	if p.Artifacts > 0 {
		fmt.Fprintf(w, "  • Clear %d artifacts\n", p.Artifacts)
	}
}

func (a *app) exportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "export",
		Short: "Dump the whole board as JSON (agents, messages, artifacts, events)",
		Long: `Print the board's conversation as one JSON document on stdout, oldest
first: {exported_at, project_dir, agents, messages, artifacts, events,
left_out}. This is a file format, not a reply: --json does not wrap it.

It is a readable record, not a backup: it leaves out tasks, memory,
reservations, credentials, hook sessions, delivery and read records, board
settings and idempotency keys (listed in "left_out"), and there is no
import. For a complete, restorable copy use bb backup <file> and
bb restore <file>.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			x, err := svc.Export(cmd.Context())
			if err != nil {
				return err
			}
			agents := make([]agentJSON, 0, len(x.Agents))
			for _, ag := range x.Agents {
				agents = append(agents, agentView(ag))
			}
			writeJSON(a.env.Stdout, map[string]any{
				"exported_at": x.ExportedAt.Format(time.RFC3339Nano), "project_dir": svc.Root(),
				"agents": agents, "messages": messageViews(x.Messages), "artifacts": artifactViews(x.Artifacts),
				"events":   eventViews(x.Events),
				"left_out": housekeeping.ExportLeftOut(), "complete_copy": "bb backup <file>",
			})
			a.checkIn(cmd.Context())
			return nil
		},
	}
}

func (a *app) summaryCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "summary",
		Short: "One-glance overview: who is active or blocked, recent and urgent messages",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			s, err := svc.Summary(cmd.Context())
			if err != nil {
				return err
			}
			data := map[string]any{
				"agents": agentLiveViews(s.Agents), "active_agents": agentLiveViews(s.ActiveAgents),
				"blocked_agents": agentLiveViews(s.BlockedAgents), "recent_messages": messageViews(s.RecentMessages),
				"high_priority_messages": messageViews(s.HighPriorityMessages), "recent_artifacts": artifactViews(s.RecentArtifacts),
				"last_event_seq": s.LastEventSeq,
			}
			var inbox *view.Inbox
			if id, explicit := a.identity(); explicit && hub.ValidateStoredAgentID(id) == nil {
				n, err := svc.InboxCounts(cmd.Context(), id)
				if err != nil {
					return err
				}
				inbox = view.InboxOf(id, n)
				data["inbox"] = inbox
			}
			// The work and what waits unaccepted, for the person's view
			// (the JSON keeps its fields: bb task list and bb agent
			// inbox have theirs).
			tasks, err := svc.ListTasks(cmd.Context(), hub.TaskFilter{Priority: -1})
			if err != nil {
				return err
			}
			// A credential that may not see the board's attention list
			// (FORBIDDEN on a bb serve) still gets the rest.
			att, err := svc.Attention(cmd.Context(), overview.AttentionFilter{})
			if err != nil && !hub.IsCode(err, hub.CodeForbidden) {
				return err
			}
			return a.reply(cmd, data, func(w io.Writer) {
				printSummary(w, s)
				person, _ := a.identity()
				a.printSummaryWork(w, tasks, att, person)
				if inbox != nil {
					fmt.Fprintf(w, "\nYour inbox (%s): %d unread addressed to you, %d unread board posts, %d awaiting your ack\n",
						inbox.Agent, inbox.Addressed, inbox.Board, inbox.AcksOwed)
				}
			})
		},
	}
}

// printSummaryWork is bb summary's open tasks (a count per status, those in
// progress with their owner) and the HANDOFF and BLOCKED messages nobody
// accepted yet, with what they ask and the choices of person on each, as
// the commands that make them (bb needs).
func (a *app) printSummaryWork(w io.Writer, tasks []hub.Task, att overview.Attention, person string) {
	tw := a.when()
	count := map[string]int{}
	var doing []hub.Task
	for _, t := range tasks {
		count[t.Status]++
		if t.Status == hub.TaskInProgress {
			doing = append(doing, t)
		}
	}
	open := len(tasks) - count[hub.TaskCompleted]
	fmt.Fprintf(w, "\nOpen Tasks: %d", open)
	var parts []string
	for _, st := range hub.TaskStatuses {
		if st != hub.TaskCompleted && count[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	if n := count[hub.TaskCompleted]; n > 0 {
		fmt.Fprintf(w, "; %d completed", n)
	}
	fmt.Fprintln(w)
	for _, t := range doing {
		owner := t.Owner
		if owner == "" {
			owner = "-"
		}
		fmt.Fprintf(w, "  • %s %s (in progress, %s)\n", hub.TaskHandle(t.ID), termtext.Line(truncate(t.Title, 60)), termtext.Line(owner))
	}
	var waiting []overview.AttentionItem
	for _, it := range att.Items {
		if it.Kind == overview.AttentionHandoff || it.Kind == overview.AttentionBlocked {
			waiting = append(waiting, it)
		}
	}
	if len(waiting) == 0 {
		return
	}
	fmt.Fprintf(w, "\nNot Accepted Yet: %d\n", len(waiting))
	for _, it := range waiting {
		fmt.Fprintf(w, "  • %s %s %s → %s on %s: %s (%s)\n", strings.ToUpper(it.Kind), hub.ShortID(it.MessageID), termtext.Line(it.Agent), termtext.Line(waitsOnName(it)),
			termtext.Line(dash(it.BeadID)), termtext.Line(truncate(it.Subject, 60)), tw.at(it.At))
		if l := askedLine(it); l != "" {
			fmt.Fprintln(w, "    → "+termtext.Line(l))
		}
		a.printChoices(w, it, person, "    ")
	}
}

func printSummary(w io.Writer, s overview.Summary) {
	fmt.Fprintln(w, "Blackboard Summary")
	fmt.Fprintln(w, strings.Repeat("=", 18))
	fmt.Fprintf(w, "\nActive Agents: %d (of %d)\n", len(s.ActiveAgents), len(s.Agents))
	for _, ag := range s.ActiveAgents {
		task := ag.CurrentTask
		if task == "" && ag.Work != nil && ag.Work.Task != nil {
			task = ag.Work.Task.Title
		}
		if task == "" {
			task = "-"
		}
		fmt.Fprintf(w, "  • %s [%s %d%%] %s\n", ag.ID, ag.Status, ag.Progress, truncate(task, 60))
		if l := view.WorkLine(ag.Work); l != "" {
			fmt.Fprintf(w, "    → Doing: %s\n", termtext.Line(l))
		}
	}
	if len(s.BlockedAgents) > 0 {
		fmt.Fprintf(w, "\nBlocked Agents: %d\n", len(s.BlockedAgents))
		for _, ag := range s.BlockedAgents {
			b := ""
			if ag.Blockers != nil {
				b = *ag.Blockers
			}
			fmt.Fprintf(w, "  • %s: %s\n", ag.ID, truncate(b, 70))
		}
	}
	fmt.Fprintf(w, "\nRecent Messages (last 30 min): %d\n", len(s.RecentMessages))
	for _, m := range s.RecentMessages {
		fmt.Fprintf(w, "  #%d %s: %s\n", m.Seq, m.From, truncate(strings.Join(strings.Fields(m.Body), " "), 60))
	}
	if len(s.HighPriorityMessages) > 0 {
		fmt.Fprintf(w, "\n⚠ High Priority Messages: %d\n", len(s.HighPriorityMessages))
		for _, m := range s.HighPriorityMessages {
			fmt.Fprintf(w, "  #%d [%s] %s: %s\n", m.Seq, m.Priority, m.From, truncate(strings.Join(strings.Fields(m.Body), " "), 56))
		}
	}
	fmt.Fprintf(w, "\nRecent Artifacts (last hour): %d\n", len(s.RecentArtifacts))
	for _, art := range s.RecentArtifacts {
		fmt.Fprintf(w, "  • %s by %s\n", art.Path, art.ProducedBy)
	}
}
