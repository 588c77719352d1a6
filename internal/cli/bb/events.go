package bb

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

func (a *app) eventsCmd() *cobra.Command {
	var typ, agent, bead string
	var since int64
	var limit int
	var follow bool
	c := &cobra.Command{
		Use:   "events",
		Short: "List the timeline: every change, in order (--follow to stream)",
		Long: `List timeline events. Without --since-seq it shows the newest --limit
matching events (default 100), the oldest of them first, so the last line
is the latest event. Each event has a sequence number (seq) that only
grows; pass the last one you saw as --since-seq to page forward: the first
--limit events after it, oldest first; when the board's retention removed
events after it, the first line says so (timeline.cursor_expired) and the
page resumes at the oldest kept. Types are printed in one scheme,
domain.verb (mail.sent, task.created, reservation.intruded); the protocol
events (mail.handoff_sent, mail.blocker_sent, reservation.intruded,
agent.resumed) carry their v1 envelope as payload. --type takes event
types (comma-separated), by these names or the older ones (HANDOFF,
task_created…); a type the board does not know is refused with the list
of valid ones.

--follow prints the same events, then keeps printing new ones as any
process writes them, until interrupted (Ctrl-C). With --json it prints one
JSON event per line.`,
		Example: `  bb events --limit 8
  bb events --type reservation.intruded,mail.handoff_sent --bead bb-12
  bb events --agent agent-ui-1 --since-seq 120
  bb events --follow --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			f := hub.EventQuery{AfterSeq: since, Agent: agent, BeadID: bead, Newest: !cmd.Flags().Changed("since-seq")}
			if cmd.Flags().Changed("limit") {
				f.Limit = &limit
			}
			if cmd.Flags().Changed("type") {
				if f.Types, err = hub.NameList("type", typ); err != nil {
					return err
				}
			}
			p, err := svc.Events(cmd.Context(), f)
			if err != nil {
				return err
			}
			if follow {
				return a.followEvents(cmd, svc, f, p)
			}
			evs, tw := p.Events, a.when()
			return a.reply(cmd, eventViews(evs), func(w io.Writer) {
				if len(evs) == 0 {
					fmt.Fprintln(w, "No events.")
				}
				for _, e := range evs {
					printEvent(w, tw, e)
				}
				switch {
				case p.More && f.Newest:
					fmt.Fprintf(w, "Older events are not shown: bb events --since-seq 0 pages from the first\n")
				case p.More:
					fmt.Fprintf(w, "More events follow: bb events --since-seq %d\n", p.NextSeq)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&typ, "type", "", "only these event types (comma-separated)")
	f.StringVar(&agent, "agent", "", "only events by or for this agent")
	f.StringVar(&bead, "bead", "", "only events of this bead/task id")
	f.Int64Var(&since, "since-seq", 0, "only events after this sequence number")
	f.IntVar(&limit, "limit", hub.DefaultEventsLimit, fmt.Sprintf("at most this many events, 1..%d (with --follow: of the backlog, then every new one)", hub.MaxEventsLimit))
	f.BoolVar(&follow, "follow", false, "keep streaming new events until interrupted")
	return c
}

func printEvent(w io.Writer, tw when, e hub.Event) {
	fmt.Fprintf(w, "%6d %-16s ", e.Seq, tw.at(e.CreatedAt))
	markPad(w, styleEvent, hub.EventName(e.Type), 22)
	via := ""
	if e.Credential != "" {
		via = "  [credential " + termtext.Line(e.Credential) + "]"
	}
	msg := hub.HandleText(e.Message)
	if e.Task != nil && !strings.Contains(msg, e.Task.Title) {
		msg += " — " + e.Task.Title + " (" + e.Task.Handle + ")" // the task by name, whatever the event says
	}
	fmt.Fprintf(w, " %-16s %s%s\n", e.Agent, termtext.Line(msg), via)
}

// followEvents prints the first page (the newest events, or those after
// --since-seq), then every later matching event as it is committed, until
// the context ends (Ctrl-C), which is a normal exit.
func (a *app) followEvents(cmd *cobra.Command, svc core.API, f hub.EventQuery, first hub.EventPage) error {
	w, out := a.env.Stdout, a.humanOut()
	emit := func(e hub.Event) error {
		if a.g.json {
			b, _ := json.Marshal(eventView(e))
			fmt.Fprintf(w, "%s\n", b)
		} else {
			printEvent(out, a.when(), e)
		}
		if fl, ok := w.(interface{ Flush() error }); ok {
			_ = fl.Flush()
		}
		return nil
	}
	for _, e := range first.Events {
		_ = emit(e)
	}
	return svc.Follow(cmd.Context(), hub.FollowInput{Filter: hub.EventFilter{AfterSeq: first.NextSeq, Types: f.Types, Agent: f.Agent, BeadID: f.BeadID}, Backlog: true}, emit)
}
