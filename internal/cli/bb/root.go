// Package bb is the `bb` command line: flags -> the core's role interfaces
// (app.API, opened by internal/boot, or the remote client of a bb serve)
// -> text or the JSON envelope. It holds no domain rules.
package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/cli/kit"
	"github.com/blackboard-hub/bb/internal/hub"
)

// Env is everything bb takes from the outside world (the three programs'
// one environment, kit.Env), so tests can run it in-process with their own
// streams, environment and clock.
type Env = kit.Env

// OSEnv is the real process environment.
func OSEnv() Env { return kit.OSEnv() }

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Main runs bb with args (without the program name) and returns the exit status.
func Main(args []string, env Env) int {
	return kit.Interruptible(func(ctx context.Context) int { return Run(ctx, args, env) })
}

// Run is Main with a caller-supplied context.
func Run(ctx context.Context, args []string, env Env) int {
	a := newApp(env)
	defer a.close()
	return a.run(ctx, args)
}

// run executes one command line with a's environment and board.
func (a *app) run(ctx context.Context, args []string) int {
	env := a.env
	cmd, err := kit.Execute(ctx, a.commandTree(args), args, env.Stdin, env.Stdout, env.Stderr)
	if err == nil {
		return ExitOK
	}
	var st exitStatus
	if errors.As(err, &st) {
		return int(st) // the command printed what it had to
	}
	if errors.Is(err, errUnhealthy) {
		return ExitError // bb doctor printed its report
	}
	name := commandName(cmd)
	var he *hub.Error
	if errors.As(err, &he) {
		a.fail(cmd, name, he)
		return ExitError
	}
	if errors.Is(err, context.Canceled) {
		a.fail(cmd, name, hub.Errorf(hub.CodeInternal, "interrupted"))
		return 130
	}
	// Anything else comes from argument parsing: a usage error. Parsing may
	// have stopped before --json was read, so look for it in args too.
	if flagerr.JSONRequested(args) {
		a.g.json = true
	}
	a.usageFail(cmd, name, err)
	return ExitUsage
}

func commandName(cmd *cobra.Command) string {
	if cmd == nil {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), "bb"), " ")
}

// app holds one invocation's state: global options and the lazily opened
// service.
type app struct {
	env Env
	g   globals
	// local is the local board, opened on first use by a command that
	// needs it.
	local core.API
	// api is what commands use: local, or a remote client (BB_SERVER).
	api     core.API
	closeFn func()
	// notices computed for the reply (nil when the caller is anonymous).
	notices *hub.Notices
	// acting is the agent named by a command's own actor flag (bb agent
	// --agent/--from); it takes precedence over --as for the check-in.
	acting string
	// busyTimeoutMS overrides SQLite's busy wait (bb hook keeps it short).
	busyTimeoutMS int
	// longLived is set by the commands that serve many calls from one
	// process (bb serve, bb mcp): see boot.Config.LongLived.
	longLived bool
	// logFormat is bb serve's --log-format (text or json).
	logFormat string
	// serving: this process is a bb serve (its board connections say so,
	// and bb restore sees it); releaseServing ends that mark.
	serving        bool
	releaseServing func()
	// checkedIn receives the check-in the command's own write made
	// (hub.WithCheckIn); nil for the commands that never check in.
	checkedIn *hub.CheckInSlot
	// credAgent memoizes credentialAgent.
	credAgent *string
}

// flagSet is a string flag that records whether it was given at all.
type flagSet struct {
	val *string
	set *bool
}

func (f *flagSet) String() string {
	if f.val == nil {
		return ""
	}
	return *f.val
}
func (f *flagSet) Set(s string) error { *f.val, *f.set = s, true; return nil }
func (f *flagSet) Type() string       { return "string" }

type globals struct {
	asGiven     bool
	as          string
	json        bool
	dir         string
	quiet       bool
	databaseURL string
	// requestID makes the command's mutation idempotent (--request-id).
	requestID string
	// color is --color: auto, always or never.
	color string
	// version is the root's --version.
	version bool
}

func newApp(env Env) *app {
	env.Fill()
	return &app{env: env}
}

func (a *app) close() {
	if a.closeFn != nil {
		a.closeFn()
	}
	if a.releaseServing != nil {
		a.releaseServing()
	}
}

// rootCmd is the whole command tree.
func (a *app) rootCmd() *cobra.Command {
	root := a.rootOnly()
	for _, c := range a.topCommands() {
		root.AddCommand(c.build())
	}
	// cobra adds help and completion when it runs; adding them here puts
	// them in the tree bb man and the tests walk.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	fillExamples(root)
	suggestCommands(root)
	return root
}

// rootOnly is bb's root command with its global flags and no commands.
func (a *app) rootOnly() *cobra.Command {
	root := &cobra.Command{
		Use:   "bb",
		Short: "Blackboard: a local coordination hub for AI coding agents",
		Long: `Blackboard is a shared board for the AI coding agents (and people) working on
one project: who is here and what they are doing (status), what was said
(messages with tags, priorities, replies and refs), what was produced
(artifacts), and one timeline of everything. It lives in .bb/ at the
project root (created by 'bb init') and is found from any subdirectory.

Identity: --as <id>, else $BB_AGENT_ID, else "human".
Every command made by an identified agent refreshes its last_seen and
reports its unread messages (notices).

Colour: --color auto (default) colours presence, priority tags, event
types and errors only on a terminal, and not when $NO_COLOR is set (non-
empty) or TERM=dumb; --color always forces it, --color never turns it off.
--json output is never coloured.

Shell completion: bb completion bash|zsh|fish|powershell (see its --help).
Manual pages: bb man <dir>.`,
		Example: `  bb --as alice-1 status set "parser tests" --status testing
  bb status
  bb --color never agent list | less
  NO_COLOR=1 bb events
  bb version`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// A bare `bb` prints help; an unknown subcommand is a usage error.
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.g.version {
				return a.printVersion(cmd)
			}
			return cmd.Help()
		},
	}
	root.Flags().BoolVarP(&a.g.version, "version", "v", false, "print the version, commit, build date and Go version (as bb version)")
	pf := root.PersistentFlags()
	pf.Var(&flagSet{val: &a.g.as, set: &a.g.asGiven}, "as", "act as this agent id (default $BB_AGENT_ID, else \"human\")")
	pf.BoolVar(&a.g.json, "json", false, "print the JSON envelope {ok, command, data, error} on stdout")
	pf.StringVar(&a.g.dir, "dir", "", "project directory holding .bb/ (default $BB_DIR, else found from the working directory)")
	pf.BoolVarP(&a.g.quiet, "quiet", "q", false, "print only essential output")
	pf.StringVar(&a.g.databaseURL, "database-url", "", "use this PostgreSQL database (postgres://…) instead of .bb/blackboard.db (default $BB_DATABASE_URL)")
	pf.StringVar(&a.g.requestID, "request-id", "", "make this mutation idempotent: a retry with the same id returns the stored reply")
	pf.StringVar(&a.g.color, "color", colorAuto, "colour human output: auto (on a terminal, unless $NO_COLOR is set), always or never")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := validColor(a.g.color); err != nil {
			return usageErr{err}
		}
		if a.g.requestID != "" {
			if err := hub.ValidateRequestID(a.g.requestID); err != nil {
				return err
			}
			id, _ := a.identity()
			cmd.SetContext(hub.WithIdempotency(cmd.Context(), hub.IdemKey{Agent: id, RequestID: a.g.requestID, Command: commandName(cmd)}))
		}
		if checksIn(cmd) {
			// The caller's check-in rides in the command's own write
			// transaction; reply falls back to a separate one.
			var ctx context.Context
			ctx, a.checkedIn = hub.WithCheckIn(cmd.Context(), a.checkInAgent)
			cmd.SetContext(ctx)
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr{err} })
	return root
}

// topCommand is one of bb's commands, named without building it.
type topCommand struct {
	name  string
	build func() *cobra.Command
	// remote: the command works on the board alone and runs on a bb serve
	// through POST /api/v1/command. Commands that manage the installation
	// (init, destroy, install, migrate), start servers (serve, mcp), read
	// the local machine or a terminal (hook, guard, env, demo) do not.
	remote bool
}

// remoteCommands names the commands POST /api/v1/command runs (topCommand.remote).
func (a *app) remoteCommands() []string {
	var out []string
	for _, c := range a.topCommands() {
		if c.remote {
			out = append(out, c.name)
		}
	}
	return out
}

// topCommands lists every command of bb by name, in help order. Building
// a command builds its whole subtree (flags, help text, subcommands), so a
// call builds only the one it runs (see commandTree).
func (a *app) topCommands() []topCommand {
	return []topCommand{
		{"init", a.initCmd, false}, {"destroy", a.destroyCmd, false},
		{"status", a.statusCmd, true},
		{"post", a.postCmd, true}, {"log", a.logCmd, true}, {"message", a.messageCmd, true}, {"search", a.searchCmd, true},
		{"artifact", a.artifactCmd, true}, {"artifacts", a.artifactsCmd, true}, {"artifact-add", a.artifactAddAlias, true}, {"artifact-show", a.artifactShowAlias, true},
		{"refs", a.refsCmd, true}, {"clear", a.clearCmd, true}, {"export", a.exportCmd, true}, {"summary", a.summaryCmd, true}, {"needs", a.needsCmd, true}, {"events", a.eventsCmd, true},
		{"install", a.installCmd, false}, {"uninstall", a.uninstallCmd, false}, {"doctor", a.doctorCmd, false}, {"guard", a.guardCmd, false}, {"demo", a.demoCmd, false}, {"env", a.envCmd, false},
		{"mcp", a.mcpCmd, false},
		{"agent", a.agentCmd, true},
		{"migrate", a.migrateCmd, false}, {"backup", a.backupCmd, false}, {"restore", a.restoreCmd, false},
		{"task", a.taskCmd, true}, {"memory", a.memoryCmd, true}, {"lease", a.leaseCmd, true}, {"resume", a.resumeCmd, true}, {"push", a.pushCmd, true},
		{"serve", a.serveCmd, false},
		{"hook", a.hookCmd, false}, {"config", a.configCmd, false}, {"token", a.tokenCmd, true}, {"repository", a.repositoryCmd, true},
		{"top", a.topCmd, false}, {"notify", a.notifyCmd, false}, {"version", a.versionCmd, false}, {"man", a.manCmd, false},
	}
}

// commandTree is the command tree a call with args needs: the root with
// only the command args name when they name one of topCommands (every
// agent's call and every hook event is one short-lived process, and
// building all ~150 commands cost about a tenth of a `bb post`), the root
// alone for `bb --version`, and the whole tree otherwise (bare `bb`, help,
// completion, an unknown command and its suggestions).
func (a *app) commandTree(args []string) *cobra.Command {
	first, version := firstCommandArg(args)
	if first == "" && version {
		return a.rootOnly()
	}
	for _, c := range a.topCommands() {
		if c.name == first {
			root := a.rootOnly()
			root.AddCommand(c.build())
			fillExamples(root)
			suggestCommands(root)
			return root
		}
	}
	return a.rootCmd()
}

// suggestCommands makes every command of the tree that has subcommands
// answer a mistyped one with the ones it may mean ("bb stauts": did you
// mean status?): cobra suggests only for commands without an Args check,
// and bb's command groups refuse arguments.
func suggestCommands(c *cobra.Command) {
	if c.HasSubCommands() {
		c.SuggestionsMinimumDistance = 2
		orig := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					return usageErr{fmt.Errorf("unknown command %q for %q; did you mean %s?", args[0], cmd.CommandPath(), orList(s))}
				}
			}
			if orig == nil {
				return nil
			}
			return orig(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		suggestCommands(sub)
	}
}

// orList is "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// firstCommandArg returns the first argument cobra takes for a command
// name, skipping flags the way cobra does (a flag written without "=" takes
// the next argument unless it is one of the root's switches), "" when there
// is none; and whether --version or -v came before it.
func firstCommandArg(args []string) (first string, version bool) {
	switches := map[string]bool{"--json": true, "--quiet": true, "-q": true, "--version": true, "-v": true, "--help": true, "-h": true}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return "", version
		case switches[arg]:
			version = version || arg == "--version" || arg == "-v"
		case strings.HasPrefix(arg, "--") && !strings.Contains(arg, "="),
			len(arg) == 2 && arg[0] == '-' && arg[1] != '=':
			i++ // a flag and its value
		case arg != "" && !strings.HasPrefix(arg, "-"):
			return arg, version
		}
	}
	return "", version
}

// usageErr marks argument-parsing failures (exit 2).
type usageErr struct{ err error }

func (u usageErr) Error() string { return u.err.Error() }
func (u usageErr) Unwrap() error { return u.err }

// identity resolves who is acting: --as > BB_AGENT_ID > "human". explicit is
// false for the "human" default.
func (a *app) identity() (id string, explicit bool) {
	if a.g.as != "" || a.g.asGiven {
		// An explicit --as "" is an (invalid) identity, not "no identity".
		return a.g.as, true
	}
	if v := strings.TrimSpace(a.env.Getenv("BB_AGENT_ID")); v != "" {
		return v, true
	}
	if v := a.credentialAgent(); v != "" {
		return v, true
	}
	return "human", false
}

// credentialAgent is, with BB_SERVER and an agent's or an overseer's
// credential as BB_TOKEN, the agent the credential acts as (asked once of
// the server); "" otherwise.
func (a *app) credentialAgent() string {
	if a.credAgent != nil {
		return *a.credAgent
	}
	id := ""
	a.credAgent = &id
	if strings.TrimSpace(a.env.Getenv(EnvServer)) == "" || !strings.HasPrefix(strings.TrimSpace(a.env.Getenv("BB_TOKEN")), credentials.SecretPrefix) {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	svc, err := a.service(ctx)
	if err != nil {
		return ""
	}
	if p, err := svc.WhoAmI(ctx); err == nil && p.Role != hub.AccessOperator {
		id = p.Agent
	}
	return id
}

func (a *app) clock() (hub.Clock, error) {
	return hub.ClockFromEnv(a.env.Getenv("BB_NOW"))
}

func (a *app) errorf(format string, args ...any) {
	fmt.Fprintf(a.env.Stderr, format, args...)
}
