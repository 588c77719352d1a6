package bb

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
	"github.com/blackboard-hub/bb/internal/view"
)

func (a *app) agentRegisterCmd() *cobra.Command {
	var in hub.RegisterInput
	c := &cobra.Command{
		Use:   "register",
		Short: "Register an agent identity (kebab-case id, 3..48 characters)",
		Long: `Register an agent: --name is its id (lowercase kebab-case, 3..48
characters, e.g. agent-ui-1), --role what it does. A new agent starts idle.
Registering an id that is already registered fails with DUPLICATE_AGENT_ID;
--force-update changes its display name and role instead (never its id).`,
		Example: `  bb agent register --name agent-ui-1 --role ui --display "UI Agent 1"
  bb agent register --name agent-ui-1 --role frontend --force-update`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			info, created, err := svc.RegisterAgent(cmd.Context(), in)
			if err == nil {
				if wd, werr := a.env.Getwd(); werr == nil {
					_ = svc.ReportWhere(cmd.Context(), info.ID, a.where(wd)) // informative only
				}
			}
			if err != nil {
				return err
			}
			a.acting = info.ID
			return a.reply(cmd, agentInfoView(info), func(w io.Writer) {
				verb := "Updated"
				if created {
					verb = "Registered"
				}
				fmt.Fprintf(w, "%s %s (role %s, display %q)\n", verb, info.ID, termtext.Line(info.Role), info.DisplayName)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.ID, "name", "", "agent id: lowercase kebab-case, 3..48 characters (required)")
	f.StringVar(&in.Display, "display", "", "display name (default: the id)")
	f.StringVar(&in.Role, "role", "", "what the agent does, e.g. ui, backend, review (required)")
	f.BoolVar(&in.ForceUpdate, "force-update", false, "update display name and role of an existing agent")
	required(c, "name", "role")
	return c
}

func (a *app) agentListCmd() *cobra.Command {
	var q hub.AgentQuery
	c := &cobra.Command{
		Use:   "list",
		Short: "List agents (sorted by id) with role, status and liveness",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			list, err := svc.ListAgentInfos(cmd.Context(), q)
			if err != nil {
				return err
			}
			views := make([]agentInfoJSON, 0, len(list))
			for _, i := range list {
				views = append(views, agentInfoView(i))
			}
			return a.reply(cmd, views, func(w io.Writer) {
				if len(list) == 0 {
					fmt.Fprintln(w, "No agents.")
					return
				}
				tw := a.when()
				known := false // where agents work: a column only when some say
				for _, i := range list {
					known = known || !i.Where.IsZero()
				}
				rows := make([][]string, 0, len(list))
				for _, i := range list {
					row := []string{i.ID, dash(i.Role), i.Status, "", tw.at(i.LastSeen)}
					if known {
						row = append(row, termtext.Line(dash(whereShort(i.Where))))
					}
					rows = append(rows, row)
				}
				presence := func(r int) (string, style) {
					p := string(list[r].Presence)
					return p, presenceStyle(p)
				}
				cols := []column{{Header: "AGENT", Min: 28}, {Header: "ROLE", Min: 12, Max: 40, Ellipsis: "…"},
					{Header: "STATUS", Min: 10}, {Header: "PRESENCE", Min: 8, Mark: presence}, {Header: "LAST SEEN"}}
				if known {
					cols[4].Min = 20
					cols = append(cols, column{Header: "BRANCH @ WORK TREE (HOST)"})
				}
				writeTable(w, cols, rows, "", func(w io.Writer, r int) {
					if l := view.WorkLine(list[r].Work); l != "" {
						fmt.Fprintf(w, "  → Doing: %s\n", termtext.Line(l))
					}
				})
			})
		},
	}
	c.Flags().StringVar(&q.Role, "role", "", "only agents with this role")
	c.Flags().StringVar(&q.Status, "status", "", "only agents with this status (idle, planning, coding, testing, reviewing, blocked, offline)")
	return c
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printAgentInfo(w io.Writer, tw when, i hub.AgentInfo) {
	fmt.Fprintf(w, "Agent:      %s\n", i.ID)
	fmt.Fprintf(w, "Display:    %s\n", termtext.Line(dash(i.DisplayName)))
	fmt.Fprintf(w, "Role:       %s\n", termtext.Line(dash(i.Role)))
	fmt.Fprintf(w, "Status:     %s\n", i.Status)
	if l := view.WorkLine(i.Work); l != "" {
		fmt.Fprintf(w, "Doing:      %s\n", termtext.Line(l))
	}
	fmt.Fprint(w, "Presence:   ")
	mark(w, presenceStyle(string(i.Presence)), string(i.Presence))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Last seen:  %s\n", tw.at(i.LastSeen))
	fmt.Fprintf(w, "Created:    %s\n", tw.at(i.CreatedAt))
	if d := i.Where.Describe(); d != "" {
		fmt.Fprintf(w, "Works:      %s\n", termtext.Line(d))
	}
}

// whereShort renders where an agent works in a table cell:
// "feat @ .claude/worktrees/auth (host)".
func whereShort(w hub.Where) string {
	if w.IsZero() {
		return ""
	}
	s := dash(w.Branch) + " @ " + dash(w.Worktree)
	if w.Host != "" {
		s += " (" + w.Host + ")"
	}
	return s
}

func (a *app) agentShowCmd() *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:   "show",
		Short: "Show one agent",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			info, err := svc.ShowAgent(cmd.Context(), id)
			if err != nil {
				return err
			}
			return a.reply(cmd, agentInfoView(info), func(w io.Writer) { printAgentInfo(w, a.when(), info) })
		},
	}
	c.Flags().StringVar(&id, "agent", "", "agent id (required)")
	required(c, "agent")
	return c
}

func (a *app) agentHeartbeatCmd() *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:   "heartbeat",
		Short: "Refresh an agent's last_seen (idempotent)",
		Long: `Mark the agent as alive now. Safe to run as often as you like. Every
other command the agent makes does the same implicitly.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.agentActor(cmd, id, "agent")
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			info, err := svc.Heartbeat(cmd.Context(), id)
			if err != nil {
				return err
			}
			return a.reply(cmd, agentInfoView(info), func(w io.Writer) {
				fmt.Fprintf(w, "%s is %s (last seen %s)\n", info.ID, info.Presence, a.when().at(info.LastSeen))
			})
		},
	}
	c.Flags().StringVar(&id, "agent", "", "agent id (default --as / $BB_AGENT_ID)")
	return c
}
