// Package agentmail is the agent-mail command line (seed 004): a drop-in
// replacement of the original Python tool. Flags are parsed the way
// argparse did (errors exit 2 with a usage line on stderr), the core
// decides, and replies are printed byte for byte as Python's
// json.dumps(obj, indent=2, ensure_ascii=False) did. Application errors are
// {"error": "…"} on stderr with exit status 1.
package agentmail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/cli/kit"
	"github.com/blackboard-hub/bb/internal/hub"
	mailrules "github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/pyjson"
	"github.com/blackboard-hub/bb/internal/view"
)

// Prog is the program name shown in usage messages.
const Prog = "agent-mail"

// Env is everything agent-mail takes from the outside world (the three
// programs' one environment, kit.Env); its Loc is the local time zone
// timestamps are shown in (Python's datetime.now().astimezone()).
type Env = kit.Env

// OSEnv is the real process environment.
func OSEnv() Env { return kit.OSEnv() }

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Main runs agent-mail with args (without the program name). The context
// is not cancellable on purpose: with a cancellable context the SQLite
// driver starts a watcher goroutine for every statement, which costs a
// one-shot process more than it is worth. An interrupt kills the process;
// SQLite transactions are atomic, so nothing half-written remains.
func Main(args []string, env Env) int {
	return Run(context.Background(), args, env)
}

// Run is Main with a caller-supplied context.
func Run(ctx context.Context, args []string, env Env) int {
	env.Fill()
	a := &app{env: env}
	defer a.close()
	root := a.rootCmd()
	args, uerr := a.expandAbbrev(root, args)
	if uerr != nil {
		a.usageFail(uerr)
		return ExitUsage
	}
	_, err := kit.Execute(ctx, root, args, nil, env.Stdout, env.Stderr)
	if err == nil {
		return ExitOK
	}
	var he *hub.Error
	if errors.As(err, &he) {
		a.fail(he.Render(view.FlagName))
		return ExitError
	}
	if errors.Is(err, context.Canceled) {
		a.fail("interrupted")
		return 130
	}
	var ue *usageErr
	if !errors.As(err, &ue) {
		ue = &usageErr{cmd: root, msg: err.Error()}
	}
	a.usageFail(ue)
	return ExitUsage
}

// roles are the parts of the core agent-mail uses (its door into the
// board): the Agent Mail rules, and the identity and admin roles of the
// kernel.
type roles interface {
	hub.Admin
	hub.Identity
	mailrules.API
}

type app struct {
	env Env
	// cmds are the subcommands in schema order.
	cmds    []*cobra.Command
	svc     roles
	closeFn func()
}

func (a *app) close() {
	if a.closeFn != nil {
		a.closeFn()
	}
}

// fail prints an application error the way the original did:
// json.dumps({"error": msg}) on stderr.
func (a *app) fail(msg string) {
	b := pyjson.MustMarshal(pyjson.Object{{Key: "error", Value: msg}}, pyjson.Compact)
	fmt.Fprintf(a.env.Stderr, "%s\n", b)
}

// reply prints a success value.
func (a *app) reply(v any) error {
	b, err := pyjson.Marshal(v, pyjson.Pretty)
	if err != nil {
		return hub.Internal("encode reply", err)
	}
	b = append(b, '\n')
	_, err = a.env.Stdout.Write(b)
	return err
}

// dbPath is TC8: AGENT_MAIL_DB, else ~/.agent-mail/mail.db.
func (a *app) dbPath() string {
	if p := a.env.Getenv("AGENT_MAIL_DB"); p != "" {
		return p
	}
	return a.defaultDBPath()
}

func (a *app) home() string {
	if h := a.env.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func (a *app) defaultDBPath() string {
	return filepath.Join(a.home(), ".agent-mail", "mail.db")
}

// service returns the core over a store that is opened (and created, with
// its folder) on the first transaction, so that input rejected by
// validation creates nothing.
func (a *app) service() (roles, error) {
	if a.svc != nil {
		return a.svc, nil
	}
	clock, err := hub.ClockFromEnv(a.env.Getenv("BB_NOW"))
	if err != nil {
		return nil, err
	}
	cfg := boot.Config{SQLitePath: a.dbPath(), Create: true, Lazy: true,
		Clock: clock, Env: a.env.Getenv, ProcessExits: a.env.ProcessExits}
	if boot.IsDatabaseURL(cfg.SQLitePath) {
		// AGENT_MAIL_DB=postgres://… shares a PostgreSQL hub (still the
		// only override, as TC8 asks).
		cfg.DatabaseURL, cfg.SQLitePath = cfg.SQLitePath, ""
	}
	b, err := boot.Open(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	a.svc, a.closeFn = b.API, b.Close
	return a.svc, nil
}

// usageErr is an argparse-style argument error (exit 2).
type usageErr struct {
	cmd *cobra.Command
	msg string
}

func (u *usageErr) Error() string { return u.msg }

func (a *app) usageFail(u *usageErr) {
	fmt.Fprintf(a.env.Stderr, "%s\n%s: error: %s\n", usageLine(u.cmd), progOf(u.cmd), u.msg)
}

func progOf(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return Prog
	}
	return Prog + " " + c.Name()
}

// localOffset is the UTC offset, in seconds, of the local time zone (Loc)
// now: the original wrote read_at as datetime.now().astimezone() (seed 004
// TC11).
func (a *app) localOffset() int {
	clock, err := hub.ClockFromEnv(a.env.Getenv("BB_NOW"))
	if err != nil {
		clock = hub.SystemClock{}
	}
	_, off := clock.Now().In(a.env.Loc).Zone()
	return off
}
