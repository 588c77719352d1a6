package bb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/shellquote"
	"github.com/blackboard-hub/bb/internal/termtext"
	"github.com/blackboard-hub/bb/internal/view"
)

func writeJSON(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(w, `{"ok":false,"command":"","data":null,"error":{"code":"INTERNAL_ERROR","message":"cannot encode reply"}}`+"\n")
		return
	}
	// Stored DEL, C1 and bidi characters as \u escapes: the same JSON,
	// safe to print on a terminal (bb export, --json replies).
	_, _ = w.Write(termtext.JSON(buf.Bytes()))
}

// reply prints a successful result: the envelope in --json mode, or what
// human renders. It then performs the caller's check-in (last_seen refresh
// and notices) when the caller is an identified agent.
func (a *app) reply(cmd *cobra.Command, data any, human func(w io.Writer)) error {
	a.checkIn(cmd.Context())
	if a.g.json {
		writeJSON(a.env.Stdout, view.Envelope{OK: true, Command: commandName(cmd), Data: data, Notices: a.notices})
		return nil
	}
	if human != nil {
		// Stored text may hold control characters; the safety net escapes
		// every one that reaches the terminal but newline and tab (colour
		// codes are added only by mark).
		human(a.humanOut())
	}
	a.noticeFooter()
	return nil
}

// checkIn refreshes an identified caller's last_seen and loads its notices.
// It never fails the command: a board that cannot be opened simply yields
// no notices.
func (a *app) checkIn(ctx context.Context) {
	id := a.checkInAgent()
	if id == "" {
		return
	}
	if n, ok := a.checkedIn.NoticesFor(id); ok {
		a.notices = &n // made by the command's own write
		return
	}
	svc, err := a.service(ctx)
	if err != nil {
		return
	}
	n, err := svc.CheckIn(ctx, id)
	if err != nil {
		return
	}
	a.notices = &n
}

// checkInAgent is the agent a reply checks in: the command's acting agent,
// else an explicit --as / BB_AGENT_ID; "" for the anonymous "human".
func (a *app) checkInAgent() string {
	id, explicit := a.identity()
	if a.acting != "" {
		id, explicit = a.acting, true
	}
	if !explicit || hub.ValidateStoredAgentID(id) != nil {
		return ""
	}
	return id
}

// checksIn reports whether cmd is a one-shot command whose reply checks
// its caller in: not the long-lived servers (bb serve, bb mcp) nor the
// hook events, which answer their client instead.
func checksIn(cmd *cobra.Command) bool {
	for c := cmd; c != nil && c.HasParent(); c = c.Parent() {
		if !c.Parent().HasParent() {
			switch c.Name() {
			case "serve", "mcp", "hook":
				return false
			}
		}
	}
	return true
}

// cliNotices names the bb command that clears each kind of notice.
var cliNotices = hub.NoticeCommands{
	Addressed:  "bb agent inbox, then bb agent read --message <id>",
	Board:      "bb log",
	Acks:       "bb agent ack --message <id>",
	Incursions: "bb events --type INCURSION",
}

// noticeFooter prints the caller's notices on stderr when they changed
// since the agent was last told (on any surface); -q silences it.
func (a *app) noticeFooter() {
	if a.notices == nil || a.g.quiet || !a.notices.Changed {
		return
	}
	if t := a.notices.Text(cliNotices); t != "" {
		fmt.Fprintf(a.env.Stderr, "bb: %s\n", t)
	}
}

func (a *app) fail(cmd *cobra.Command, command string, err *hub.Error) {
	err = a.remoteAuthWords(err)
	vocab := commandWords(cmd)
	msg := err.Words(vocab)
	if ex := positionalExample(cmd, err.Field); ex != "" && strings.HasSuffix(msg, " is required") {
		msg += "; for example: " + ex
	}
	if a.g.json {
		writeJSON(a.env.Stdout, view.Envelope{OK: false, Command: command, Error: &view.ErrorBody{Code: string(err.Code), Message: msg, Field: err.Field}})
		return
	}
	if err.Code == hub.CodeInternal && err.Err != nil && a.env.Getenv("BB_DEBUG") != "" {
		msg += ": " + err.Err.Error()
	}
	msg = hub.HandleText(msg) + shortHandleHint(err)
	a.errorWord()
	// A message of several lines (the guard's refusal) keeps them, each
	// escaped and indented under the first, so none passes for a line
	// of its own.
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = termtext.Line(l)
	}
	fmt.Fprintf(a.env.Stderr, " [%s]: %s\n", err.Code, strings.Join(lines, "\n  "))
}

// shortHandleHint is why a task handle under hub.MinPrefixLen characters
// was not found ("; a task handle needs at least 4 characters …"), or "".
func shortHandleHint(err *hub.Error) string {
	if err.Code != hub.CodeNotFound {
		return ""
	}
	for _, p := range []string{"dependency task not found: ", "task not found: "} {
		if id, ok := strings.CutPrefix(err.Message, p); ok {
			if w := hub.ShortHandleWords(id); w != "" {
				return "; " + w
			}
			return ""
		}
	}
	return ""
}

// remoteAuthWords is a bb serve's refusal of a missing or wrong token
// (worded for an HTTP client: "send Authorization: Bearer <token>") in
// what a bb user does: set BB_TOKEN. Other errors are returned as they
// are (a revoked credential already says what to do).
func (a *app) remoteAuthWords(err *hub.Error) *hub.Error {
	server := strings.TrimSpace(a.env.Getenv(EnvServer))
	if err.Code != hub.CodeUnauthorized || server == "" || len(err.Actions) > 0 || !strings.Contains(err.Message, "Authorization") {
		return err
	}
	fix := "set BB_TOKEN to the token that bb serve was started with (--token or its BB_TOKEN), or to a credential the operator made with bb token create --agent <id> (docs/security.md)"
	if strings.TrimSpace(a.env.Getenv("BB_TOKEN")) == "" {
		return &hub.Error{Code: err.Code, Message: fmt.Sprintf("the bb server at %s (BB_SERVER) needs a token, and BB_TOKEN is not set: %s", server, fix)}
	}
	return &hub.Error{Code: err.Code, Message: fmt.Sprintf("the bb server at %s (BB_SERVER) refused BB_TOKEN: it is neither its token nor a valid credential; %s", server, fix)}
}

// humanOut is the writer for human output on stdout.
func (a *app) humanOut() *humanOut { return newHumanOut(a.env.Stdout, a.colorOn(a.env.StdoutTerminal)) }

// errorWord starts an error line on stderr: "Error", in colour when stderr
// takes colour.
func (a *app) errorWord() {
	mark(newHumanOut(a.env.Stderr, a.colorOn(a.env.StderrTerminal)), styleBad, "Error")
}

func (a *app) usageFail(cmd *cobra.Command, command string, err error) {
	var fs *pflag.FlagSet
	if cmd != nil {
		fs = cmd.Flags()
	}
	msg, _ := flagerr.Suggest(err, fs)
	if a.g.json {
		writeJSON(a.env.Stdout, view.Envelope{OK: false, Command: command, Error: &view.ErrorBody{Code: string(hub.CodeInvalidArgs), Message: msg}})
		return
	}
	hint := "bb --help"
	if cmd != nil {
		hint = cmd.CommandPath() + " --help"
	}
	a.errorWord()
	fmt.Fprintf(a.env.Stderr, ": %s\nRun '%s' for usage.\n", termtext.Line(strings.TrimSpace(msg)), termtext.Line(hint))
}

// usageArgs wraps a cobra positional-args validator so its failures are
// reported as usage errors (exit 2).
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageErr{err}
		}
		return nil
	}
}

// words is how bb words the core's errors: fields as its flags, actions
// as its commands.
func words() hub.Vocabulary { return hub.Vocabulary{Field: flagName, Action: actionWords} }

// commandWords is words() for an error of cmd: a field that cmd takes as
// a positional argument (bb task create <title>) is named as that argument,
// not as a flag cmd does not have.
func commandWords(cmd *cobra.Command) hub.Vocabulary {
	v := words()
	v.Field = func(field string) string {
		if positional(cmd, field) {
			return "the <" + field + "> argument"
		}
		return flagName(field)
	}
	return v
}

// positional reports whether cmd takes field as a positional argument:
// its usage line names <field> and it has no flag of that name.
func positional(cmd *cobra.Command, field string) bool {
	if cmd == nil || field == "" {
		return false
	}
	if !strings.Contains(cmd.Use, "<"+field+">") {
		return false
	}
	return cmd.Flags().Lookup(strings.ReplaceAll(field, "_", "-")) == nil
}

// positionalExample is the first line of cmd's example when the error is
// about one of its positional arguments, so the message about a missing
// one shows a call.
func positionalExample(cmd *cobra.Command, field string) string {
	if !positional(cmd, field) {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(cmd.Example), "\n")
	return strings.TrimSpace(line)
}

// actionWords words a core error's action as the bb command that does it.
func actionWords(a hub.Action) string {
	switch a.Do {
	case hub.ActRegister:
		return fmt.Sprintf("bb agent register --name %s --role <role>", a.Args["agent"])
	case hub.ActIdentify:
		return "set --as or BB_AGENT_ID"
	case hub.ActHandOff:
		return fmt.Sprintf("bb agent send --to %s --category HANDOFF", a.Args["agent"])
	case hub.ActStartSession:
		return fmt.Sprintf("bb agent init --register %s --role %s", a.Args["agent"], a.Args["role"])
	case hub.ActAdopt:
		return fmt.Sprintf("bb agent init --adopt %s", a.Args["agent"])
	case hub.ActListCredentials:
		return "see bb token list"
	case hub.ActNewCredential:
		return "ask the operator for a new one: bb token create"
	case hooks.ActActAs:
		return fmt.Sprintf("bb commands take --as %s (bb agent commands --agent %s)", a.Args["agent"], a.Args["agent"])
	case hooks.ActCompleteTask:
		return fmt.Sprintf("bb --as %s task complete %s --summary \"...\"", a.Args["agent"], a.Args["task"])
	case hooks.ActAck:
		return fmt.Sprintf("bb agent ack --agent %s --message %s", a.Args["agent"], a.Args["message"])
	case hooks.ActReply:
		return fmt.Sprintf("bb agent reply --agent %s %s \"...\"", a.Args["agent"], a.Args["message"])
	case hooks.ActAskRelease:
		return fmt.Sprintf("bb agent send --from %s --to %s --bead %s --category BLOCKED --subject \"release %s\" --body \"I need to edit %s\"",
			a.Args["from"], a.Args["to"], a.Args["bead"], a.Args["scope"], a.Args["path"])
	case hub.ActWaitFor:
		if sc := a.Args["scope"]; sc != "" {
			return fmt.Sprintf("bb agent wait --agent %s --for-scope %s", a.Args["agent"], shellquote.Quote(sc))
		}
		return fmt.Sprintf("bb agent wait --agent %s --for-reply %s", a.Args["agent"], a.Args["message"])
	case hooks.ActCoordinate:
		return fmt.Sprintf("bb agent send --from %s --to %s --subject \"%s on %s\" --body \"I am about to edit %s too\"",
			a.Args["from"], a.Args["to"], a.Args["path"], a.Args["branch"], a.Args["path"])
	case hooks.ActRelease:
		return fmt.Sprintf("bb agent release --agent %s --scope %s", a.Args["agent"], a.Args["scope"])
	case hooks.ActNameAgent:
		return "--agent or BB_AGENT_ID"
	case hub.ActOwnBoard:
		return "Point BB_SERVER at the bb serve of this repository, or unset BB_SERVER to use a local board (bb init)"
	}
	return ""
}

// flagName names the field of a core error as the bb flag that sets it:
// the one mapping from domain fields to bb's vocabulary.
func flagName(field string) string {
	switch field {
	case "ttl_minutes":
		return "--ttl"
	case "lease":
		return "the lease name"
	case "port_range":
		return hub.ConfigLeasesPortRange
	case "session_leases":
		return hub.ConfigLeasesSession
	}
	return view.FlagName(field)
}
