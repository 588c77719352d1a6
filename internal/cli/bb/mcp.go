package bb

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
	"github.com/blackboard-hub/bb/internal/procid"
	"github.com/blackboard-hub/bb/internal/termtext"
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
tool > the agent of the hook session (bb hook) of the client that started
this server: the session the client names in the environment where it
hands its session id to its MCP servers too (Claude Code's
$CLAUDE_CODE_SESSION_ID), else its client process. Tools that act as an agent fail with IDENTITY_REQUIRED until there is
one, and bb_identify cannot change an identity given by flag or environment.

The board must exist ('bb init'); the server never creates one. Until it
exists every tool answers NOT_INITIALIZED. The server opens the board when
it starts and keeps it open, so the client's hook processes (bb hook) find
SQLite's index of the write-ahead log ready instead of each rebuilding it.
With BB_SERVER (and BB_TOKEN) the tools act on that bb serve instead of a
local board.

--tools core serves the ten most used tools only (smaller tool
definitions in the agent's context); --tools all (default) serves every
tool. At the end of input every request already read is answered, then
the server exits 0. SIGINT or SIGTERM stop it after the calls in progress
have finished (at most 5 s; exit 0). A failing stdin or stdout, or calls
left unanswered at shutdown, exit 1.`,
		Example: `  bb mcp --agent claude-1
  BB_AGENT_ID=codex-2 bb mcp --tools core`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.mcpAgent(cmd, agent, tools)
			if err != nil {
				return err
			}
			return a.serveMCP(cmd, id, tools)
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "act as this agent id (fixed: bb_identify cannot change it)")
	f.StringVar(&tools, "tools", bbmcp.ProfileAll, "tool profile: core (the ten most used) or all")
	return c
}

// mcpAgent checks bb mcp's flags and is the agent the server is fixed to:
// --agent, else --as, else (without $BB_AGENT_ID) the agent a credential
// names; "" leaves it to the environment, bb_identify or the hook session.
func (a *app) mcpAgent(cmd *cobra.Command, agent, tools string) (string, error) {
	if agent != "" && a.g.as != "" && agent != a.g.as {
		return "", usageErr{fmt.Errorf("--agent %q and --as %q disagree: give one", agent, a.g.as)}
	}
	if cmd.Flags().Changed("agent") {
		// --agent '' or '  ' is an invalid identity, not "none". A
		// longer id is checked against the board when it opens.
		if err := hub.ValidateBoardAgentID(agent); err != nil && len(agent) <= hub.MaxAgentIDLen {
			return "", fmt.Errorf("--agent: %w", err)
		}
	}
	if agent == "" {
		agent = a.g.as
	}
	if agent == "" && a.env.Getenv("BB_AGENT_ID") == "" {
		// A credential (BB_SERVER + BB_TOKEN) names the agent.
		agent = a.credentialAgent()
	}
	if tools != bbmcp.ProfileAll && tools != bbmcp.ProfileCore {
		return "", usageErr{fmt.Errorf("invalid --tools %q: expected core or all", tools)}
	}
	return agent, nil
}

// serveMCP runs the MCP server on stdio until the end of input or a
// signal, with the board opened beside the client's handshake.
func (a *app) serveMCP(cmd *cobra.Command, agent, tools string) error {
	a.longLived = true
	var mu sync.Mutex
	open := func(ctx context.Context) (core.API, error) {
		mu.Lock()
		defer mu.Unlock()
		return a.service(ctx)
	}
	hooked := &hookedSessions{}
	srv, err := bbmcp.New(nil, a.mcpOptions(agent, tools, open, hooked))
	if err != nil {
		return err
	}
	// The board is opened now, beside the client's handshake, not at
	// the first tool call: while this server holds the SQLite board
	// open, each hook process of the client (one per event) finds
	// the write-ahead log's shared-memory index valid, instead of
	// rebuilding it by reading the whole log as the board's only
	// connection. A failure is left to the first tool call, which
	// opens again and reports it.
	openCtx, stopOpen := context.WithCancel(cmd.Context())
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		mu.Lock()
		defer mu.Unlock()
		_, _ = a.service(openCtx)
	}()
	defer func() { stopOpen(); <-opened }()
	// An abnormal end (stdin or stdout failing, calls left
	// unanswered at shutdown) exits non-zero.
	err = srv.ServeIO(cmd.Context(), a.env.Stdin, a.env.Stdout, mcpDrainTimeout)
	// The client closed this server: its sessions whose hooks came
	// here have ended (a client's own session-end hook cannot reach
	// a server it has already closed).
	a.endHookedSessions(open, hooked)
	if err != nil {
		return hub.Errorf(hub.CodeInternal, "bb mcp: %v", err)
	}
	return nil
}

// mcpOptions are the MCP server's options: its identity, the client that
// started it, the board (open) and the client's hooks answered from it,
// noting in hooked the sessions whose hooks came here.
func (a *app) mcpOptions(agent, tools string, open func(context.Context) (core.API, error), hooked *hookedSessions) bbmcp.Options {
	client, clientSession := procid.Session(a.env.Getenv)
	return bbmcp.Options{
		Agent:    agent,
		EnvAgent: a.env.Getenv("BB_AGENT_ID"),
		Tools:    tools,
		Version:  Version,
		// The client that started this server: its hook sessions
		// name the agent when no identity is given.
		ClientPID: procid.Client(),
		// Where the client hands its session id to its MCP
		// servers too, that session is the one.
		Client: client, ClientSessionID: clientSession,
		Where: a.mcpWhere(),
		// The local board, or with BB_SERVER a bb serve (so an
		// agent on another machine gets the same tools).
		Open: func(ctx context.Context) (bbmcp.Roles, error) { return open(ctx) },
		// The client's hooks wired to this server (bb install claude):
		// the same answers as bb hook, from the board this process
		// holds open.
		Hook: func(ctx context.Context, client, event, agent string, payload []byte) ([]byte, string) {
			if agent == "" {
				agent = strings.TrimSpace(a.env.Getenv("BB_AGENT_ID"))
			}
			return a.hookAnswer(ctx, open, client, event, payload, agent, func(in hookio.Input) { hooked.note(client, in.SessionID, agent) })
		},
		HookLog: a.env.Stderr,
	}
}

// hookedSessions are the client sessions whose hooks this bb mcp answered,
// with the agent each named.
type hookedSessions struct {
	mu   sync.Mutex
	seen map[[2]string]string // {client, session id} → explicit agent
}

func (h *hookedSessions) note(client, session, agent string) {
	if session == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = map[[2]string]string{}
	}
	h.seen[[2]string{client, session}] = agent
}

// endHookedSessions releases the session leases of every session whose
// hooks this server answered, as their SessionEnd hook would (bounded by
// the hook budget; a failure is a note).
func (a *app) endHookedSessions(open func(context.Context) (core.API, error), h *hookedSessions) {
	h.mu.Lock()
	seen := maps.Clone(h.seen)
	h.mu.Unlock()
	if len(seen) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookBudget)
	defer cancel()
	svc, err := open(ctx)
	if err != nil {
		return
	}
	for k, agent := range seen {
		if r, _ := a.sessionEnd(ctx, svc, k[0], k[1], agent); !r.note.Empty() {
			a.errorf("bb mcp: %s\n", termtext.Text(hookWords(r.note)))
		}
	}
}

// mcpWhere is where bb mcp runs (its working directory's work tree,
// branch and host).
func (a *app) mcpWhere() hub.Where {
	wd, err := a.env.Getwd()
	if err != nil {
		return hub.Where{}
	}
	return a.where(wd)
}
