package bb

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
)

// mcpDrainTimeout bounds how long a shutdown waits for in-flight tool calls.
const mcpDrainTimeout = 5 * time.Second

func (a *app) mcpCmd() *cobra.Command {
	var agent, tools string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Run the MCP server on stdio (started by your coding agent, see 'bb install')",
		Long: `Serve this board to a coding agent over the Model Context Protocol on
stdin/stdout (newline-delimited JSON-RPC). Clients start it from their MCP
configuration; 'bb install <client>' writes that configuration.

Identity: --agent (or the global --as) > $BB_AGENT_ID > the bb_identify
tool. Tools that act as an agent fail with IDENTITY_REQUIRED until there is
one, and bb_identify cannot change an identity given by flag or environment.

The board must exist ('bb init'); the server never creates one. Until it
exists every tool answers NOT_INITIALIZED. With BB_SERVER (and BB_TOKEN)
the tools act on that bb serve instead of a local board.

--tools core serves the dozen most used tools only (smaller tool
definitions in the agent's context); --tools all (default) serves every
tool. SIGINT, SIGTERM or end of input stop the server after the tool call
in progress has finished; the exit status is then 0.`,
		Example: `  bb mcp --agent claude-1
  BB_AGENT_ID=codex-2 bb mcp --tools core`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if agent != "" && a.g.as != "" && agent != a.g.as {
				return usageErr{fmt.Errorf("--agent %q and --as %q disagree: give one", agent, a.g.as)}
			}
			if agent == "" {
				agent = a.g.as
			}
			if tools != bbmcp.ProfileAll && tools != bbmcp.ProfileCore {
				return usageErr{fmt.Errorf("invalid --tools %q: expected core or all", tools)}
			}
			var mu sync.Mutex
			srv, err := bbmcp.New(nil, bbmcp.Options{
				Agent:    agent,
				EnvAgent: strings.TrimSpace(a.env.Getenv("BB_AGENT_ID")),
				Tools:    tools,
				Version:  Version,
				// The local board, or with BB_SERVER a bb serve (so an
				// agent on another machine gets the same tools).
				Open: func(ctx context.Context) (hub.API, error) {
					mu.Lock()
					defer mu.Unlock()
					return a.service(ctx)
				},
			})
			if err != nil {
				return err
			}
			if err := srv.ServeIO(cmd.Context(), a.env.Stdin, a.env.Stdout, mcpDrainTimeout); err != nil {
				a.errorf("bb mcp: %v\n", err)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "act as this agent id (fixed: bb_identify cannot change it)")
	f.StringVar(&tools, "tools", bbmcp.ProfileAll, "tool profile: core (the dozen most used) or all")
	return c
}
