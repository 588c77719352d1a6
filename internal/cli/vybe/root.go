// Package vybe is the `vybe` command line (seed 002 and the interface sheet
// contracts/vybe.md): flags -> hub.Service -> the v1 JSON envelope. It holds
// no domain rules.
package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/memory"

	"github.com/blackboard-hub/bb/internal/hub/resume"

	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/cli/kit"
	"github.com/blackboard-hub/bb/internal/hub"
)

// Version is what `vybe --version` reports (the original reports "dev").
const Version = "dev"

// Env is everything vybe takes from the outside world (the three programs'
// one environment, kit.Env).
type Env = kit.Env

// OSEnv is the real process environment.
func OSEnv() Env { return kit.OSEnv() }

// Main runs vybe and returns the exit status (0 ok, 1 any error).
func Main(args []string, env Env) int {
	return kit.Interruptible(func(ctx context.Context) int { return Run(ctx, args, env) })
}

// Run is Main with a caller-supplied context.
func Run(ctx context.Context, args []string, env Env) int {
	a := newApp(env)
	defer a.close()
	root := a.rootCmd()
	a.ensureConfigTemplate()
	cmd, err := kit.Execute(ctx, root, args, a.env.Stdin, a.env.Stdout, a.env.Stderr)
	if err == nil {
		return 0
	}
	if m, ok := flagerr.Message(err); ok {
		err = errors.New(m)
	}
	var he *hub.Error
	if errors.As(err, &he) {
		a.log.Error("command error", "command", commandPath(cmd), "error", he.Error(), "code", string(he.Code))
	} else {
		a.log.Error("command failed", "command", commandPath(cmd), "error", err.Error())
	}
	a.fail(err)
	return 1
}

func commandPath(cmd *cobra.Command) string {
	if cmd == nil {
		return "vybe"
	}
	return cmd.CommandPath()
}

// roles are the parts of the core vybe uses (its door into the board).
type roles interface {
	hub.Admin
	hub.Identity
	memory.API
	hub.Tasks
	resume.API
}

type app struct {
	env Env
	log *slog.Logger
	g   struct {
		dbPath    string
		agent     string
		requestID string
	}
	svc     roles
	closeFn func()
	dbPath  string
	dbSrc   string
}

func newApp(env Env) *app {
	env.Fill()
	return &app{env: env, log: slog.New(slog.NewJSONHandler(env.Stderr, nil))}
}

func (a *app) close() {
	if a.closeFn != nil {
		a.closeFn()
	}
}

// Annotation keys on commands and flags; `vybe schema commands` reads them.
const (
	annMutates   = "vybe_mutates"
	annRequestID = "vybe_requires_request_id"
	annRequired  = "vybe_required"
	annEnum      = "vybe_enum"
)

func mutating(c *cobra.Command, requestID bool) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annMutates] = "true"
	if requestID {
		c.Annotations[annRequestID] = "true"
	}
	return c
}

// required marks flags the command checks itself (so the error text is the
// contract's) as required in the schema.
func required(c *cobra.Command, names ...string) {
	for _, n := range names {
		_ = c.Flags().SetAnnotation(n, annRequired, []string{"true"})
	}
}

func enum(c *cobra.Command, name string, values ...string) {
	_ = c.Flags().SetAnnotation(name, annEnum, values)
}

// alias adds a hidden flag that sets the same variable as another one.
func hiddenStringAlias(fs *pflag.FlagSet, p *string, name, usage string) {
	fs.StringVar(p, name, "", usage)
	_ = fs.MarkHidden(name)
}

func (a *app) rootCmd() *cobra.Command {
	var showVersion bool
	root := &cobra.Command{
		Use:   "vybe",
		Short: "Durable continuity for AI coding agents: tasks, resume, memory, events",
		Long: `vybe keeps an agent's work alive across sessions: tasks with dependencies,
a resume brief that answers "what were we working on?", durable memory,
an event log and task artifacts. Every reply is one JSON envelope on stdout;
logs go to stderr. Run 'vybe schema commands' for the machine-readable
argument schemas.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if showVersion {
				return a.ok(map[string]string{"version": Version})
			}
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return a.ok(commandIndex(cmd))
		},
	}
	root.Flags().BoolVarP(&showVersion, "version", "v", false, "print the version")
	pf := root.PersistentFlags()
	pf.StringVar(&a.g.dbPath, "db-path", "", "path to the SQLite database (default $VYBE_DB_PATH, config db_path, ~/.config/vybe/vybe.db)")
	pf.StringVarP(&a.g.agent, "agent", "a", "", "agent name (default $VYBE_AGENT)")
	pf.StringVar(&a.g.requestID, "request-id", "", "idempotency key for mutations (default $VYBE_REQUEST_ID)")
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(a.taskCmd(), a.memoryCmd(), a.pushCmd(), a.resumeCmd(), a.eventsCmd(), a.artifactsCmd(),
		a.statusCmd(), a.schemaCmd(), a.hookCmd(), a.loopCmd(), a.upgradeCmd())
	return root
}

// commandIndex is what bare `vybe` prints.
func commandIndex(root *cobra.Command) map[string]any {
	names := []string{}
	for _, c := range root.Commands() {
		if !c.Hidden {
			names = append(names, c.Name())
		}
	}
	if !contains(names, "help") {
		names = append(names, "help")
	}
	sortStrings(names)
	return map[string]any{"version": Version, "commands": names, "schema_hint": "vybe schema commands"}
}

// namespace builds a command group whose bare form prints its index.
func namespace(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short}
	c.AddCommand(subs...)
	return c
}

type subcommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (a *app) namespaceRun(c *cobra.Command) {
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
		}
		subs := []subcommandInfo{}
		for _, s := range cmd.Commands() {
			if !s.Hidden && s.Name() != "help" {
				subs = append(subs, subcommandInfo{Name: s.Name(), Description: s.Short})
			}
		}
		return a.ok(map[string]any{"namespace": cmd.CommandPath(), "subcommands": subs})
	}
}

// agentName resolves --agent > VYBE_AGENT, trimmed and lowercased — unless
// the board already stores the agent under the id as given (another surface
// created it), which the core decides.
func (a *app) agentName() (string, error) {
	n := a.g.agent
	if strings.TrimSpace(n) == "" {
		n = a.env.Getenv("VYBE_AGENT")
	}
	name, err := hub.VybeAgentName(n)
	if err != nil || name == strings.TrimSpace(n) {
		return name, err
	}
	svc, err := a.service(context.Background())
	if err != nil {
		return name, nil // the command reports the database itself
	}
	return svc.AgentID(context.Background(), hub.GrammarVybe, n)
}

// optionalAgent is agentName without the "required" error.
func (a *app) optionalAgent() (string, error) {
	if strings.TrimSpace(a.g.agent) == "" && strings.TrimSpace(a.env.Getenv("VYBE_AGENT")) == "" {
		return "", nil
	}
	return a.agentName()
}

func (a *app) requestID() (string, error) {
	r := strings.TrimSpace(a.g.requestID)
	if r == "" {
		r = strings.TrimSpace(a.env.Getenv("VYBE_REQUEST_ID"))
	}
	if r == "" {
		return "", hub.FieldErr(hub.CodeInvalidInput, "request_id", "--request-id or VYBE_REQUEST_ID is required for idempotent operations")
	}
	return r, hub.ValidateRequestID(r)
}

// mutation resolves the agent and request id of an idempotent command and
// returns a context that makes the next write store/replay its reply.
func (a *app) mutation(ctx context.Context, command string) (context.Context, string, error) {
	agent, err := a.agentName()
	if err != nil {
		return ctx, "", err
	}
	rid, err := a.requestID()
	if err != nil {
		return ctx, "", err
	}
	return hub.WithIdempotency(ctx, vybeKey(agent, rid, command)), agent, nil
}

// vybeKey is the idempotency key of a vybe mutation. vybe's contract
// replays a request id's reply for any request of the same command ("a
// create replayed with new args returns the original task"), so it does
// not compare the requests (AnyRequest).
func vybeKey(agent, rid, command string) hub.IdemKey {
	return hub.IdemKey{Agent: agent, RequestID: rid, Command: command, AnyRequest: true}
}

// service opens the database once per invocation.
func (a *app) service(ctx context.Context) (roles, error) {
	if a.svc != nil {
		return a.svc, nil
	}
	path, src := a.resolveDBPath()
	a.dbPath, a.dbSrc = path, src
	clock, err := hub.ClockFromEnv(a.env.Getenv("BB_NOW"))
	if err != nil {
		return nil, err
	}
	// BB_DATABASE_URL=postgres://… puts vybe on the shared PostgreSQL hub,
	// like bb, bb serve and bb mcp; otherwise the SQLite file above.
	url := strings.TrimSpace(a.env.Getenv(boot.EnvDatabaseURL))
	b, err := boot.Open(ctx, boot.Config{SQLitePath: path, Create: true, DatabaseURL: url,
		Clock: clock, Env: a.env.Getenv, ProcessExits: a.env.ProcessExits})
	if err != nil {
		return nil, err
	}
	a.svc, a.closeFn = b.API, b.Close
	return a.svc, nil
}
