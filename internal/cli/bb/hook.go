package bb

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	core "github.com/blackboard-hub/bb/internal/app"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/gitrepo"
	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/procid"
	"github.com/blackboard-hub/bb/internal/shellquote"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// Hook budgets: a hook runs on the client's critical path (the edit check
// before every edit), so it waits briefly for a busy board and then lets
// the work go on (fails open) rather than stall the agent.
const (
	hookBudget        = 8 * time.Second
	hookBusyTimeoutMS = 3000
)

func (a *app) hookCmd() *cobra.Command {
	var agent string
	c := &cobra.Command{
		Use:   "hook <client> <event>",
		Short: "Run as a coding-agent client's hook (reads the client's hook JSON on stdin)",
		Long: `Run as a hook of a coding-agent client. bb install <client> writes the
entries that call it; you rarely run it by hand. It reads the client's
documented hook JSON on stdin and prints only that client's documented reply
on stdout, or nothing at all.

Clients and events (the client's own event names):
` + hookClients() + `
What each does: at session start the agent learns its id and gets a brief
(who else is active, unread mail, acks owed, reserved files, focus task);
before a prompt and after a tool, mail that is new since the last delivery
(each item once; nothing new prints nothing); before an edit tool, the
files are checked against other agents' reservations (hooks.mode block
denies, warn allows with a warning, off skips) and a free file is reserved
for the editor (hooks.auto_reserve); at the end of a turn, one reminder of
idle reservations and acks owed; at the end of a session, the leases it
was given at its start (leases.session) are released.

"bb hook <client> wake" is the idle session's waiter: where the client can
be woken (Claude Code's asyncRewake hook, OpenCode's plugin), the client runs
it in the background at the start of the session and after every turn; it
waits on the board's own signal, without polling, and when mail, a reply, an
escalation or an urgent post arrives for the session's agent it hands the
items to the client, which wakes the session with them (recorded delivered
once). A newer waiter of the same session replaces it; it ends by itself
when the client's process is gone.

Each client session is its own agent (an adjective-noun id), found again
from the session id; --agent or $BB_AGENT_ID wins. Internal errors, a
missing board or a busy database never block the agent: the hook prints a
note on stderr and nothing on stdout, and exits 0.`,
		Example: `  echo '{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}' | bb hook claude SessionStart --dir /path/to/project
  bb config set hooks.mode warn`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && args[1] == "wake" && hookio.Events(strings.ToLower(args[0])) != nil {
				return a.runWake(cmd.Context(), strings.ToLower(args[0]), agent)
			}
			a.runHook(cmd.Context(), args, agent)
			return nil
		},
	}
	c.Flags().StringVar(&agent, "agent", "", "work as this agent instead of the session's own (default $BB_AGENT_ID)")
	return c
}

// hookClients lists every client bb install supports with the events the
// board uses, one line each, from hookio.Events (the list bb install
// writes), so the help never falls behind it.
func hookClients() string {
	width := 0
	for _, c := range hookio.Clients {
		width = max(width, len(c))
	}
	var b strings.Builder
	for _, c := range hookio.Clients {
		fmt.Fprintf(&b, "  %-*s", width, c)
		for _, e := range hookio.Events(c) {
			b.WriteString(" " + e.Name)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// runHook never fails: whatever happens, the client's work goes on unless
// the board deliberately denies an edit.
func (a *app) runHook(ctx context.Context, args []string, agent string) {
	if len(args) != 2 {
		a.errorf("bb hook: expected <client> <event>, got %d argument(s); nothing done\n", len(args))
		return
	}
	client, event := strings.ToLower(args[0]), args[1]
	data, err := io.ReadAll(io.LimitReader(a.env.Stdin, hookio.MaxPayload+1))
	if err != nil || len(data) > hookio.MaxPayload {
		a.errorf("bb hook: cannot read the hook input; nothing done\n")
		return
	}
	if agent == "" {
		agent = strings.TrimSpace(a.env.Getenv("BB_AGENT_ID"))
	}
	a.busyTimeoutMS = hookBusyTimeoutMS
	out, note := a.hookAnswer(ctx, a.service, client, event, data, agent, nil)
	if note != "" {
		a.errorf("%s\n", termtext.Text(note))
	}
	if len(out) > 0 {
		_, _ = a.env.Stdout.Write(out)
	}
}

// hookAnswer is one hook event's answer: what the client reads on stdout
// (nil for nothing) and a note for its log. It is the one path of every
// hook, whether the client ran `bb hook` or asked the session's bb mcp
// (its hidden bb_hook tool): open gives the board (the process's own, kept
// open by bb mcp). It never fails: past hookBudget, or on any error, the
// answer is empty and the note says the agent's work goes on. seen, when
// not nil, is told the input of every event the board uses. Safe for
// concurrent calls.
func (a *app) hookAnswer(ctx context.Context, open func(context.Context) (core.API, error), client, event string, data []byte, agent string, seen func(hookio.Input)) (out []byte, note string) {
	if hookio.Events(client) == nil {
		return nil, fmt.Sprintf("bb hook: unknown client %q (known: %s); nothing done", client, strings.Join(hookio.Clients, ", "))
	}
	if len(data) > hookio.MaxPayload {
		return nil, "bb hook: cannot read the hook input; nothing done"
	}
	kind := hookio.KindOf(client, event)
	if kind == hookio.KindNone {
		return nil, "" // an event the board does not use: say nothing
	}
	in, ok := hookio.Parse(client, data)
	if !ok {
		return nil, "bb hook: the hook input is not a JSON object; nothing done"
	}
	if seen != nil {
		seen(in)
	}
	ctx, cancel := context.WithTimeout(ctx, hookBudget)
	defer cancel()
	type result struct {
		out  []byte
		note string
	}
	done := make(chan result, 1)
	go func() {
		growStack(0)
		r, err := a.hookWork(ctx, open, client, event, kind, in, agent)
		if err != nil {
			done <- result{nil, "bb hook: " + hookErrText(err) + "; the agent's work goes on"}
			return
		}
		out, note := r.render(client, event)
		done <- result{out, note}
	}()
	select {
	case r := <-done:
		return r.out, r.note
	case <-ctx.Done():
		return nil, fmt.Sprintf("bb hook: the board did not answer within %s; the agent's work goes on", hookBudget)
	}
}

// hookWords is a text of the hook application (its brief, mail, denials,
// reminders) in bb's words: each action as the bb command line that does it.
func hookWords(t hub.Text) string { return t.Words(actionWords) }

// hookReply is what one hook event answers, as the hook application's
// texts: text for the model (what render sends through the client's
// reply of that sort) and a note for stderr.
type hookReply struct {
	sort hookSort
	text hub.Text
	note hub.Text
}

// hookSort is how a reply's text reaches the model.
type hookSort int

const (
	// replyNone: nothing on stdout (the note alone, if any).
	replyNone hookSort = iota
	// replyContext: added to the model's context (hookio.Context).
	replyContext
	// replyDeny: the tool call is refused with the text as the reason.
	replyDeny
	// replyContinue: the agent goes on with the text (an end-of-turn
	// reminder; hookio.Continue).
	replyContinue
)

// render is the reply in the client's own format, every action worded as
// bb command lines: the one place the hook application's texts get bb's
// words.
func (r hookReply) render(client, event string) (out []byte, note string) {
	if !r.note.Empty() {
		note = "bb hook: " + hookWords(r.note)
	}
	if r.text.Empty() {
		return nil, note
	}
	text := hookWords(r.text)
	switch r.sort {
	case replyNone:
	case replyContext:
		out = hookio.Context(client, event, text)
	case replyDeny:
		out = hookio.Deny(client, event, text)
	case replyContinue:
		out = hookio.Continue(client, event, text)
	}
	return out, note
}

func hookErrText(err error) string {
	var he *hub.Error
	if errors.As(err, &he) {
		return he.Words(hub.Vocabulary{Action: actionWords})
	}
	return "internal error"
}

// hookWork does the event's work and returns what to print on stdout and a
// note for stderr.
func (a *app) hookWork(ctx context.Context, open func(context.Context) (core.API, error), client, event string, kind hookio.Kind, in hookio.Input, agent string) (hookReply, error) {
	if kind == hookio.KindPreTool && len(in.Paths) == 0 {
		return hookReply{}, nil // not an edit: nothing to check, nothing to open
	}
	if kind == hookio.KindEnd && in.SessionID == "" {
		return hookReply{}, nil // no session named: none of its leases to find
	}
	svc, err := open(ctx)
	if err != nil {
		return hookReply{}, err
	}
	if kind == hookio.KindEnd {
		return a.sessionEnd(ctx, svc, client, in.SessionID, agent)
	}
	// Settings are read here only for the events that run once a session
	// or turn; the hot paths (prompt, tool) read them inside their own
	// transaction.
	var set hooks.HookSettings
	if kind == hookio.KindStart || kind == hookio.KindStop {
		if set, err = svc.GetHookSettings(ctx); err != nil {
			return hookReply{}, err
		}
	}
	sin, cwd := a.hookSession(ctx, svc, client, kind, in, agent)
	if kind == hookio.KindPrompt || kind == hookio.KindPostTool {
		return hookDeliver(ctx, svc, client, event, sin)
	}
	if kind == hookio.KindPreTool {
		if r, checked, err := a.hookEdit(ctx, svc, client, event, in, sin, cwd); checked || err != nil {
			return r, err
		}
	}
	sess, err := svc.ResolveSession(ctx, sin)
	if err != nil {
		return hookReply{}, err
	}
	switch kind {
	case hookio.KindStart:
		return a.hookStart(ctx, svc, set, in, sin, sess)
	case hookio.KindPreTool:
		// A tool outside the project's files (hookEdit took the others):
		// only the session is mapped, and new mail comes with it where
		// the event carries context.
		if hookio.Context(client, event, "x") == nil {
			return hookReply{}, nil
		}
		d, err := svc.DeliverNew(ctx, sess.AgentID)
		text := deliveryText(d)
		if err != nil || text.Empty() {
			return hookReply{}, err
		}
		return hookReply{sort: replyContext, text: text}, nil
	case hookio.KindStop:
		return a.hookStop(ctx, svc, set, client, in, sess.AgentID)
	}
	return hookReply{}, nil
}

// hookStop is the end of a turn: the reminder of what the agent leaves
// undone (uncommitted changes it holds), when the board asks for it.
func (a *app) hookStop(ctx context.Context, svc core.API, set hooks.HookSettings, client string, in hookio.Input, agent string) (hookReply, error) {
	if !set.StopReminder || in.StopActive {
		return hookReply{}, nil
	}
	changes, note := uncommittedFiles(ctx, a.env.Getenv, cmp.Or(in.Cwd, svc.Root()))
	r, err := svc.StopReminder(ctx, hooks.StopInput{Client: client, SessionID: in.SessionID, Agent: agent,
		Changes: changes, ChangesKnown: note == "", HookActive: in.StopActive})
	if err != nil || r.Text.Empty() {
		return hookReply{}, err
	}
	return hookReply{sort: replyContinue, text: r.Text}, nil
}

// hookSession is the session a hook event names, with where it works
// and how what it delivers reaches the agent; cwd is the directory the
// event ran in ("" when unknown on a remote board).
func (a *app) hookSession(ctx context.Context, svc core.API, client string, kind hookio.Kind, in hookio.Input, agent string) (hooks.SessionInput, string) {
	// A session is idle from its start until its first prompt, and from
	// the end of each turn until the next (the core tells the person when
	// mail waits there unheard).
	sin := hooks.SessionInput{Client: client, SessionID: in.SessionID, ClientPID: procid.Client(), Source: in.Source, Explicit: agent,
		Idle: kind == hookio.KindStart || kind == hookio.KindStop}
	cwd := in.Cwd
	if cwd == "" && !a.remote() {
		cwd = svc.Root()
	}
	if cwd != "" {
		sin.Where = a.where(cwd) // read from the .git files: no git process
	}
	if kind == hookio.KindStart && agent == "" {
		changes, note := uncommittedFiles(ctx, a.env.Getenv, cmp.Or(in.Cwd, svc.Root()))
		sin.Changes, sin.ChangesKnown = changes, note == ""
	}
	// How what this hook delivers reached the agent (mail_deliveries.via).
	switch kind {
	case hookio.KindPrompt:
		sin.Via = hooks.ViaPrompt
	case hookio.KindPreTool, hookio.KindPostTool:
		sin.Via = hooks.ViaTool
	}
	return sin, cwd
}

// hookDeliver is a prompt's or a finished tool's hook: what is new for the
// session's agent, where the client takes context at this event (else the
// session is only mapped).
func hookDeliver(ctx context.Context, svc core.API, client, event string, sin hooks.SessionInput) (hookReply, error) {
	if hookio.Context(client, event, "x") == nil {
		// No documented way to inject here: only map the session.
		_, err := svc.ResolveSession(ctx, sin)
		return hookReply{}, err
	}
	sd, err := svc.DeliverToSession(ctx, sin)
	text := deliveryText(sd.Delivery)
	if err != nil || text.Empty() {
		return hookReply{}, err
	}
	return hookReply{sort: replyContext, text: text}, nil
}

// hookEdit checks an edit of the project's files (checked: some path was
// the project's; otherwise the caller maps the session): a deny names the
// holders, an allow may carry a note and, where the event carries
// context, the mail new since the last delivery.
func (a *app) hookEdit(ctx context.Context, svc core.API, client, event string, in hookio.Input, sin hooks.SessionInput, cwd string) (r hookReply, checked bool, err error) {
	wd := in.Cwd
	if wd == "" {
		wd = svc.Root()
	}
	wd, paths := a.inProject(svc.Root(), wd, in.Paths)
	if len(paths) == 0 {
		return hookReply{}, false, nil
	}
	// The session is looked up in the check's own read.
	ein := hooks.EditInput{Session: &sin, Wd: wd, Paths: paths, Tool: in.ToolName, Where: sin.Where}
	dec, err := svc.CheckEdit(ctx, ein)
	var he *hub.Error
	if errors.As(err, &he) && he.Code == hub.CodeInvalidArgs && he.Field == "scope" {
		// A path the board cannot hold (not UTF-8, control characters,
		// too long): refused, nothing reserved. It is the edit's input,
		// not a failure of the board, so the hook does not fail open.
		return hookReply{sort: replyDeny, text: hub.TextOf("bb: this edit's path cannot be checked against the board's reservations (" + he.Message + "); use a file name that is UTF-8 text")}, true, nil
	}
	if err != nil {
		return hookReply{}, true, err
	}
	if len(dec.Merge) > 0 && cwd != "" {
		// Rare: another active agent edited one of these files on another
		// branch. Only now is git asked whether that change is merged
		// into this checkout.
		if ein.Merged = mergedRisks(ctx, a.workTreeTop(cwd), dec.Merge); len(ein.Merged) > 0 {
			if dec, err = svc.CheckEdit(ctx, ein); err != nil {
				return hookReply{}, true, err
			}
		}
	}
	if dec.Decision == hooks.EditDeny {
		return hookReply{sort: replyDeny, text: dec.Reason}, true, nil
	}
	note := dec.Note
	if hookio.Context(client, event, "x") == nil {
		return hookReply{note: note}, true, nil
	}
	// The client adds this event's context to the model's (Claude Code):
	// the mail new since the last delivery comes with the edit, and its
	// PostToolUse is not run. An escalation told here is worded here too:
	// it is marked told by this delivery.
	sd, err := svc.DeliverToSession(ctx, sin)
	text := deliveryText(sd.Delivery)
	if err != nil || text.Empty() {
		return hookReply{note: note}, true, err
	}
	return hookReply{sort: replyContext, text: text, note: note}, true, nil
}

// hookStart is a session's start: its leases, its identity exported, and
// the brief (or, for a resumed conversation, one line and what is new).
func (a *app) hookStart(ctx context.Context, svc core.API, set hooks.HookSettings, in hookio.Input, sin hooks.SessionInput, sess hooks.SessionResult) (hookReply, error) {
	id := sess.AgentID
	held, leaseNote := a.sessionLeases(ctx, svc, id, in.SessionID, sin.Where)
	a.exportIdentity(id, svc.Root(), held)
	note := hub.TextOf(leaseNote)
	adopted := ""
	if sess.Adopted != nil {
		adopted = sess.Adopted.Evidence
		note = hub.TextOf(strings.TrimSpace(fmt.Sprintf("this session resumed %s (%s) %s", id, adopted, leaseNote)))
	}
	if !set.Delivery {
		return hookReply{note: note}, nil
	}
	if in.Source == "resume" && (!sess.New || sess.Adopted != nil) {
		// A resumed conversation already holds the earlier brief and every
		// mail delivered to it: one line of identity, then only what
		// arrived since the last delivery.
		d, err := svc.DeliverNew(ctx, id)
		if err != nil {
			return hookReply{note: note}, err
		}
		text := hub.TextOf(hooks.IdentityLine(id, filepath.ToSlash(svc.Root())), leasesBrief(ctx, svc, id, held), deliveryText(d))
		return hookReply{sort: replyContext, text: text, note: note}, nil
	}
	d, err := svc.SessionBrief(ctx, hooks.BriefInput{Agent: id, Adopted: adopted})
	if err != nil {
		return hookReply{note: note}, err
	}
	return hookReply{sort: replyContext, text: hub.TextOf(deliveryText(d), leasesBrief(ctx, svc, id, held)), note: note}, nil
}

// exportIdentity writes the session's agent id (and board) for the shell
// commands the agent runs, where the client documents a way: Claude Code
// sources $CLAUDE_ENV_FILE (written by SessionStart hooks) before each Bash
// command (https://code.claude.com/docs/en/hooks, SessionStart).
func (a *app) exportIdentity(id, root string, held []leases.Lease) {
	p := strings.TrimSpace(a.env.Getenv("CLAUDE_ENV_FILE"))
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		a.errorf("bb hook: cannot write %s: %v\n", p, err)
		return
	}
	defer f.Close()
	// The session's leases (bb config leases.session) too: BB_PORT_WEB=…
	for _, kv := range leases.EnvLines(held) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(f, "export %s=%s\n", k, shellquote.Quote(v))
	}
	if a.remote() {
		// The board is the server's: its directory means nothing here.
		fmt.Fprintf(f, "export BB_AGENT_ID=%s\n", shellquote.Quote(id))
		return
	}
	fmt.Fprintf(f, "export BB_AGENT_ID=%s\nexport BB_DIR=%s\n", shellquote.Quote(id), shellquote.Quote(root))
}

// configCmd is `bb config`: the board's settings (hooks.mode…).
func (a *app) configCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show or change the board's settings (hooks.mode, hooks.auto_reserve…)",
		Long: `Board settings, stored in the board and shared by every agent. An
environment variable named in the list wins over the stored value.`,
		Example: `  bb config list
  bb config set hooks.mode warn
  bb config set hooks.auto_reserve off
  bb config get hooks.mode
  bb config unset hooks.mode`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.configList(cmd, "") },
	}
	list := &cobra.Command{Use: "list", Short: "List every setting with its value and where it comes from", Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.configList(cmd, "") }}
	get := &cobra.Command{Use: "get <key>", Short: "Show one setting", Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return a.configList(cmd, args[0]) }}
	set := &cobra.Command{Use: "set <key> <value>", Short: "Change a setting", Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error { return a.configSet(cmd, args[0], args[1]) }}
	unset := &cobra.Command{Use: "unset <key>", Short: "Restore a setting's default", Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return a.configSet(cmd, args[0], "") }}
	c.AddCommand(list, get, set, unset)
	return c
}

func (a *app) configList(cmd *cobra.Command, key string) error {
	svc, err := a.service(cmd.Context())
	if err != nil {
		return err
	}
	es, err := svc.Config(cmd.Context())
	if err != nil {
		return err
	}
	if key != "" {
		for _, e := range es {
			if e.Key == key {
				return a.reply(cmd, e, func(w io.Writer) { fmt.Fprintln(w, e.Value) })
			}
		}
		return hub.FieldErr(hub.CodeInvalidInput, "key", "unknown setting %q", key)
	}
	return a.reply(cmd, es, func(w io.Writer) {
		for _, e := range es {
			fmt.Fprintf(w, "%-20s %-6s (%s; env %s) %s\n", e.Key, e.Value, e.Source, e.Env, e.Help)
		}
	})
}

func (a *app) configSet(cmd *cobra.Command, key, value string) error {
	id, svc, err := a.actorService(cmd.Context())
	if err != nil {
		return err
	}
	e, err := svc.SetConfig(cmd.Context(), id, key, value)
	if err != nil {
		return err
	}
	return a.reply(cmd, e, func(w io.Writer) {
		fmt.Fprintf(w, "%s = %s (%s)\n", e.Key, e.Value, e.Source)
		if e.Source == "env" {
			fmt.Fprintf(w, "note: $%s is set and wins over the stored value\n", e.Env)
		}
	})
}

// inProject keeps the paths inside the repository's work trees (relative
// ones resolve against wd): the work tree holding wd (a linked one
// included) and the project's own; files elsewhere (the client's own
// settings, /tmp) are not the board's to check. In remote mode the paths
// are made relative to the top of wd's work tree (the server knows only
// the repository, not this machine's directories) and wd becomes "".
func (a *app) inProject(root, wd string, paths []string) (string, []string) {
	top := a.workTreeTop(wd)
	tops := []string{top}
	if !a.remote() && root != "" && root != top {
		tops = append(tops, root)
	}
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		p = filepath.Clean(p)
		for _, t := range tops {
			rel, err := filepath.Rel(t, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			if a.remote() {
				p = filepath.ToSlash(rel)
			}
			out = append(out, p)
			break
		}
	}
	if a.remote() {
		return "", out
	}
	return wd, out
}

// mergedRisks asks git, in the work tree at top, which risks are merged
// into this checkout: no commit of the branch that touches the path is
// missing from HEAD (git rev-list HEAD..<branch> -- <path> is empty). A
// branch git does not know here (a clone without it) stays a risk. A
// change not committed yet cannot be seen from here and counts as merged
// (while it is being edited, its reservation covers the file).
func mergedRisks(ctx context.Context, top string, risks []hooks.MergeRisk) []hooks.MergeRisk {
	var out []hooks.MergeRisk
	for _, r := range risks {
		ref := "refs/heads/" + r.Branch
		if _, err := gitrepo.Run(ctx, top, nil, "rev-parse", "--verify", "-q", ref); err != nil {
			continue
		}
		b, err := gitrepo.Run(ctx, top, nil, "rev-list", "-n", "1", "HEAD.."+ref, "--", r.Path)
		if err == nil && len(bytes.TrimSpace(b)) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// hookStack is how much stack the hook's goroutine takes at once before its
// work. A goroutine starts with a few KB and doubles its stack each time a
// call needs more, copying it and walking every frame on it; the SQLite
// driver's calls run deep, so without this the copies happen deep inside
// them (BenchmarkCommandFloor's hook events, see BENCHMARKS.md).
const hookStack = 64 << 10

// growStack grows the calling goroutine's stack to more than hookStack
// while it is shallow (one copy of a few frames). i is any valid index:
// it keeps the compiler from dropping the array.
//
//go:noinline
func growStack(i int) byte {
	var b [hookStack]byte
	b[i] = 1
	return b[(i+1)%hookStack]
}
