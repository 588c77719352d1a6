package bb

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/tui"
)

// topCmd is `bb top`: the live full-screen view of the board (internal/tui).
func (a *app) topCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "top",
		Short: "A live full-screen view of the board: agents, what needs you, tasks, timeline",
		Long: `Show the board full-screen in the terminal and keep it current: what needs a
person (HANDOFF and BLOCKED messages nobody accepted, agents whose status is
blocked, critical posts and incursions of the last day), every agent with
its presence and what it is doing (status, task, progress, the files it
holds), the reservations, the open tasks, and the newest timeline entries.
It updates within a second of a change made by any process on the board
(or, with $BB_SERVER, on the server), and otherwise costs next to nothing.

You act as the person --as names (default $BB_AGENT_ID, else "human"):
  tab / shift+tab  move between sections; ↑↓ or j/k select a row
  a                accept the selected HANDOFF or BLOCKED (you must be its recipient)
  r                answer the selected item (a mail on its bead, or a reply to a post)
  m                message the selected agent (Agents, Needs attention, Reservations)
  x / g            release / reassign the selected reservation (a person, and only
                   once its holder is stale or offline: see bb agent release)
  /                search the board (esc: back to the timeline)
  f                show only the selected agent (elsewhere: type an id); esc clears
  ?                all keys;  q or ctrl+c  quit

It needs a terminal on stdin and stdout (80×24 or larger); in a pipe or a file
it says so and exits 1. $NO_COLOR, TERM=dumb or --color never draw it without
colour (bold and reverse video only).`,
		Example: `  bb top
  bb --as dana top
  BB_SERVER=http://127.0.0.1:7777 bb top
  NO_COLOR=1 bb top`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !a.env.StdoutTerminal || !a.env.StdinTerminal {
				return hub.Errorf(hub.CodeInvalidArgs, "bb top needs a terminal on stdin and stdout; for scripts use bb status, bb agent status, bb task list or bb events --follow")
			}
			viewer, _ := a.identity()
			if err := hub.ValidateAgentRef("as", viewer); err != nil {
				return err
			}
			a.longLived = true
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			wd := ""
			if strings.TrimSpace(a.env.Getenv(EnvServer)) == "" {
				wd = svc.Root()
			}
			return tui.Run(cmd.Context(), svc, tui.Options{Viewer: viewer, In: a.env.Stdin, Out: a.env.Stdout,
				Color: a.colorOn(true), Wd: wd})
		},
	}
}
