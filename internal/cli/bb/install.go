package bb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/install"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
)

// installFlags are bb install's flags: the install options and the
// command's own switches.
type installFlags struct {
	tool                                       string
	o                                          install.Options
	printOnly, local, writeAlias, guard, trust bool
}

func (a *app) installCmd() *cobra.Command {
	var fl installFlags
	c := &cobra.Command{
		Use:   "install [" + strings.Join(install.ClientNames(), "|") + "]",
		Short: "Wire a coding agent to the board: its MCP server entry and its hooks",
		Long: `Configure a coding-agent client to use this project's board, in one step:
the MCP server entry ('bb mcp --dir <project>') and, for clients whose
documented hook system allows it, the hooks that give each session its own
identity, bring new mail into its context and stop edits of files another
agent holds ('bb hook <client> <event> --dir <project>').

Entries run 'bb' from your PATH (so reinstalling bb keeps them working;
--absolute writes this binary's path instead) and pin the project
directory, so they find the board even when the client starts them from /
or your home. No agent id is written: each session gets its own.

Merges keep every other setting of the file byte for byte (other servers,
other hooks, comments, formatting); running install again changes nothing,
except to bring entries an older bb wrote up to date (events and matchers:
'bb doctor' says "outdated" for them), removing its hooks for events it no
longer uses.
A file bb cannot parse is refused and nothing is written. 'bb uninstall
<client>' removes exactly what install added. Without a client name, bb
install lists what it would do for every client and writes nothing.

The project is the nearest directory holding .bb/ (run 'bb init' first),
or, with $BB_SERVER, the working directory. --global writes the files in
your home instead, without a pinned directory.

Files (project; --global: the same under your home unless noted):
` + install.FilesHelp() + `

--guard also installs the git guard ('bb guard install'); on a terminal,
bb install asks whether to.`,
		Example: `  bb install                      # what would be done, for every client
  bb install claude               # .mcp.json + .claude/settings.local.json
  bb install codex --print        # show every file it would write, write nothing
  bb install gemini --no-hooks    # the MCP entry only
  bb install cursor --guard       # and the git pre-commit/pre-push guard
  bb install claude --global      # for every project (~/.claude.json, ~/.claude/settings.json)
  bb uninstall claude             # remove exactly what install added`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runInstall(cmd, args, &fl)
		},
	}
	fl.register(c)
	return c
}

// register declares bb install's flags on c.
func (fl *installFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&fl.tool, "tool", "", "client to configure (same as the positional name)")
	f.BoolVar(&fl.o.Global, "global", false, "configure the client for every project (the files in your home)")
	f.BoolVar(&fl.local, "local", false, "configure this project only (default)")
	f.BoolVar(&fl.printOnly, "print", false, "print every file it would write, in full; write nothing")
	f.BoolVar(&fl.o.NoHooks, "no-hooks", false, "write the MCP entry only, no hooks")
	f.BoolVar(&fl.o.Absolute, "absolute", false, "run this bb binary by its absolute path instead of 'bb' from PATH")
	f.BoolVar(&fl.guard, "guard", false, "also install the git guard (bb guard install)")
	f.BoolVar(&fl.trust, "trust", false, "also record the client's trust in this project and bb's hooks (Codex, Gemini CLI, Copilot CLI, Qwen Code)")
	f.BoolVar(&fl.writeAlias, "write", false, "write the files (the default; kept for compatibility)")
	_ = f.MarkHidden("write")
	f.StringVar(&fl.o.Agent, "agent", "", "pin this agent id for every session (default: one identity per session)")
	f.StringVar(&fl.o.Tools, "tools", bbmcp.ProfileAll, "tool profile of the MCP server: core or all")
	f.StringVar(&fl.o.HookType, "hook-type", hookTypeAuto, "Claude Code: hooks answered by the session's bb mcp (mcp), or a bb process per event (command); auto picks by the installed claude --version")
}

// check merges the positional client name into --tool and refuses
// contradictory or invalid flags; it turns --hook-type auto into "" (the
// type the client's version takes).
func (fl *installFlags) check(args []string) error {
	if len(args) == 1 {
		if fl.tool != "" && !strings.EqualFold(fl.tool, args[0]) {
			return usageErr{fmt.Errorf("client given twice: %q and --tool %q", args[0], fl.tool)}
		}
		fl.tool = args[0]
	}
	if fl.o.Global && fl.local {
		return usageErr{errors.New("--global and --local are exclusive")}
	}
	if fl.o.Tools != bbmcp.ProfileAll && fl.o.Tools != bbmcp.ProfileCore {
		return usageErr{fmt.Errorf("invalid --tools %q: expected core or all", fl.o.Tools)}
	}
	switch fl.o.HookType {
	case hookTypeAuto:
		fl.o.HookType = ""
	case install.HookTypeMCP, install.HookTypeCommand:
	default:
		return usageErr{fmt.Errorf("invalid --hook-type %q: expected auto, mcp or command", fl.o.HookType)}
	}
	return nil
}

// runInstall is bb install's body: without a client name it plans every
// client and writes nothing; --print shows the files in full; otherwise it
// writes them, then the trust and, when asked, the git guard.
func (a *app) runInstall(cmd *cobra.Command, args []string, fl *installFlags) error {
	if err := fl.check(args); err != nil {
		return err
	}
	selected, err := install.Select(fl.tool)
	if err != nil {
		return err
	}
	if fl.o.Agent != "" {
		if err := hub.ValidateBoardAgentID(fl.o.Agent); err != nil {
			return err
		}
	}
	ie, err := a.newInstallEnv(fl.o, true)
	if err != nil {
		return err
	}
	plan := fl.tool == ""
	results, err := installEach(ie, selected, plan)
	if err != nil {
		return err
	}
	switch {
	case fl.printOnly:
		installPrinted(ie, results)
	case plan:
		installPlanned(results)
	default:
		if err := a.installCommit(cmd, ie, selected, results, fl); err != nil {
			return err
		}
	}
	return a.reply(cmd, results, func(w io.Writer) { a.printInstall(w, results, plan, fl.printOnly, false) })
}

// installEach stages every selected client's files in ie. When planning, a
// client that cannot be installed is reported as cannot_install instead of
// failing the command.
func installEach(ie *install.Env, selected []install.Client, plan bool) ([]installReply, error) {
	var results []installReply
	for _, cl := range selected {
		r, err := ie.Install(cl)
		if err != nil && plan {
			r.Action, r.Error = "cannot_install", hub.MessageOf(err)
			results = append(results, installReply{Result: r})
			continue
		}
		if err != nil {
			return nil, err
		}
		results = append(results, installReply{Result: r})
	}
	return results, nil
}

// installPrinted marks the results as printed, each file with the content
// it would be given (--print).
func installPrinted(ie *install.Env, results []installReply) {
	for i := range results {
		results[i].Action = "print"
		for j := range results[i].Files {
			f := &results[i].Files[j]
			content := ie.Content(f.Path)
			f.Content = &content
		}
	}
}

// installPlanned turns what would be done into would_install and
// would_update (bb install without a client).
func installPlanned(results []installReply) {
	for i := range results {
		if results[i].Action == "installed" {
			results[i].Action = "would_install"
		} else if results[i].Action == "updated" {
			results[i].Action = "would_update"
		}
	}
}

// installCommit writes the staged files, then records each client's trust
// and, for a project install when wanted, installs the git guard.
func (a *app) installCommit(cmd *cobra.Command, ie *install.Env, selected []install.Client, results []installReply, fl *installFlags) error {
	if err := ie.Commit(); err != nil {
		return err
	}
	for i, cl := range selected {
		results[i].Trust = a.installTrust(cmd, ie, cl, fl.trust)
	}
	if !fl.o.Global && a.wantGuard(cmd, ie.Base(), fl.guard) {
		g, err := a.guardInstall(ie.Base(), ie.Exe())
		if err != nil {
			return err
		}
		results[0].Guard = &g
	}
	return nil
}

// hookTypeAuto is --hook-type's default: the type the client's version
// takes (install.HookTypeFor).
const hookTypeAuto = "auto"

// clientVersion is the version a client's `--version` prints ("2.1.328
// (Claude Code)" → "2.1.328"), or "" when it is not on PATH or does not
// answer within 5 s. Only Claude Code's decides anything (its hook type).
func (a *app) clientVersion(client string) string {
	if client != "claude" {
		return ""
	}
	path, err := exec.LookPath("claude")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return ""
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v
}

func (a *app) uninstallCmd() *cobra.Command {
	var o install.Options
	var printOnly bool
	c := &cobra.Command{
		Use:   "uninstall <" + strings.Join(install.ClientNames(), "|") + ">",
		Short: "Remove what bb install added to a client's configuration",
		Long: `Remove Blackboard's MCP entry and hooks from a client's files, and nothing
else: every other server, hook, setting and comment stays as it was. A
container (such as "mcpServers" or "hooks") that bb install created is
removed when it is empty again, and a file it created is deleted when
nothing else is left in it, so the files return to what they were before
install. --print shows the resulting files without writing them. It does
not need a board. The git guard is removed separately ('bb guard
uninstall').`,
		Example: `  bb uninstall claude
  bb uninstall codex --global
  bb uninstall gemini --print`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr{errors.New(a.nameAClient(o))}
			}
			selected, err := install.Select(args[0])
			if err != nil {
				return err
			}
			ie, err := a.newInstallEnv(o, false)
			if err != nil {
				return err
			}
			r, err := ie.Uninstall(selected[0])
			if err != nil {
				return err
			}
			if printOnly {
				r.Action = "print"
				for j := range r.Files {
					content := ie.Content(r.Files[j].Path)
					r.Files[j].Content = &content
				}
			} else if err := ie.Commit(); err != nil {
				return err
			}
			results := []installReply{{Result: r}}
			return a.reply(cmd, results, func(w io.Writer) { a.printInstall(w, results, false, printOnly, true) })
		},
	}
	f := c.Flags()
	f.BoolVar(&o.Global, "global", false, "remove it from the files in your home")
	f.BoolVar(&printOnly, "print", false, "print the files as they would become; write nothing")
	return c
}

// nameAClient is the refusal of a bb uninstall that names no client: the
// clients bb knows and those wired here (read from their files).
func (a *app) nameAClient(o install.Options) string {
	msg := "name the client to remove bb from: one of " + strings.Join(install.ClientNames(), ", ")
	ie, err := a.newInstallEnv(o, false)
	if err != nil {
		return msg
	}
	var wired []string
	for _, cl := range install.Clients() {
		if w, err := ie.Inspect(cl); err == nil && w.Installed {
			wired = append(wired, cl.Name)
		}
	}
	where := "here"
	if o.Global {
		where = "in your home"
	}
	if len(wired) == 0 {
		return fmt.Sprintf("%s (none is installed %s)", msg, where)
	}
	return fmt.Sprintf("%s (installed %s: %s; for example: bb uninstall %s)", msg, where, strings.Join(wired, ", "), wired[0])
}

// installReply is one client's part of the reply of bb install and bb
// uninstall: what the installer did, and the git guard when asked for.
type installReply struct {
	install.Result
	// Trust is what the client's own trust gate says about this project
	// (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code), after
	// --trust or the
	// question.
	Trust *install.Trust `json:"trust,omitempty"`
	// Guard is the git guard's installation, when asked for.
	Guard *guardResult `json:"guard,omitempty"`
}

// installTrust checks the client's trust gate after an install and, with
// --trust or a yes on a terminal, records the trust the client documents.
func (a *app) installTrust(cmd *cobra.Command, ie *install.Env, cl install.Client, flag bool) *install.Trust {
	t := ie.CheckTrust(cl)
	if t == nil || t.State == install.TrustTrusted || !t.CanRecord {
		return t
	}
	if !flag && !cmd.Flags().Changed("trust") && a.env.StdinTerminal && !a.g.json {
		fmt.Fprintf(a.env.Stderr, "%s: %s.\nRecord the trust now (%s)? [y/N] ", cl.Title, t.Detail, trustHow(cl.Name))
		line, _ := bufio.NewReader(a.env.Stdin).ReadString('\n')
		ans := strings.ToLower(strings.TrimSpace(line))
		flag = ans == "y" || ans == "yes"
	}
	if !flag {
		return t
	}
	r, err := ie.RecordTrust(cl)
	if err != nil {
		t.Detail += "; " + hub.MessageOf(err)
		return t
	}
	return r
}

// trustHow says where bb records a client's trust.
func trustHow(client string) string {
	switch client {
	case "codex":
		return "through Codex's app-server, as its /hooks review does"
	case "copilot":
		return "in trustedFolders of ~/.copilot/config.json"
	case "qwen":
		return "in ~/.qwen/trustedFolders.json"
	}
	return "in ~/.gemini/trustedFolders.json"
}

// newInstallEnv finds where the files go. Installing into a project needs
// its board (or BB_SERVER): the entries pin the board's root.
func (a *app) newInstallEnv(o install.Options, installing bool) (*install.Env, error) {
	if o.Global {
		home := a.env.Getenv("HOME")
		if home == "" {
			return nil, hub.Errorf(hub.CodeInvalidInput, "HOME is not set: cannot find the global configuration")
		}
		return a.newInstall(o, home, a.env.Exe, a.env.Getenv), nil
	}
	root, err := a.findProject()
	if err != nil {
		var he *hub.Error
		if !errors.As(err, &he) || he.Code != hub.CodeNotInitialized {
			return nil, err
		}
		if installing && strings.TrimSpace(a.env.Getenv(EnvServer)) == "" {
			msg, _, _ := strings.Cut(he.Message, ". Run")
			return nil, &hub.Error{Code: hub.CodeNotInitialized, Message: msg +
				". Run 'bb init' in the project first (or set BB_SERVER to use a bb serve); nothing was written."}
		}
		if root, err = a.targetDir(); err != nil {
			return nil, err
		}
	}
	return a.newInstall(o, root, a.env.Exe, a.env.Getenv), nil
}

// newInstall is install.New with bb mcp's tool lists, which the entries of
// some clients name (install does not link the MCP server).
func (a *app) newInstall(o install.Options, base, exe string, getenv func(string) string) *install.Env {
	o.ToolNames = bbmcp.ToolNames
	// With --hook-type auto, the installed client's version decides (asked
	// only when Claude Code is installed or inspected).
	o.ClientVersion = a.clientVersion
	return install.New(o, base, exe, getenv)
}

// wantGuard decides whether bb install also installs the git guard: --guard,
// or a yes on a terminal (never asked otherwise).
func (a *app) wantGuard(cmd *cobra.Command, root string, flag bool) bool {
	if flag || cmd.Flags().Changed("guard") {
		return flag
	}
	if !a.env.StdinTerminal || a.g.json {
		return false
	}
	if _, err := hooksDir(root); err != nil {
		return false // not a git repository: nothing to guard
	}
	fmt.Fprint(a.env.Stderr, "Also install the git guard (pre-commit and pre-push hooks that refuse commits touching files another active agent holds)? [y/N] ")
	line, _ := bufio.NewReader(a.env.Stdin).ReadString('\n')
	ans := strings.ToLower(strings.TrimSpace(line))
	return ans == "y" || ans == "yes"
}

func (a *app) printInstall(w io.Writer, results []installReply, plan, printOnly, removing bool) {
	for _, r := range results {
		for _, warn := range r.Warnings {
			fmt.Fprintf(a.env.Stderr, "warning: %s\n", warn)
		}
		if plan && !printOnly {
			printInstallPlan(w, r)
			continue
		}
		switch {
		case printOnly:
			printInstallFiles(w, r.Files)
		default:
			printInstallDone(w, r, removing)
		}
		if !removing {
			printInstallNotes(w, r)
		}
		a.printInstallTrust(w, r)
		if r.Guard != nil {
			printGuard(w, *r.Guard)
		}
	}
	switch {
	case printOnly:
		fmt.Fprintln(w, "Nothing was written (--print).")
	case plan:
		fmt.Fprintln(w, "Nothing was written. Run 'bb install <client>' to install, or add --print to see the files.")
	case !removing && results[0].Action != "unchanged":
		fmt.Fprintln(w, "Restart the client (or start a new session) to load the changes.")
	}
}

// printInstallPlan is one client's line of a plan (no --print).
func printInstallPlan(w io.Writer, r installReply) {
	switch r.Action {
	case "cannot_install":
		fmt.Fprintf(w, "%-7s cannot install: %s\n", r.Client, r.Error)
	case "unchanged":
		fmt.Fprintf(w, "%-7s already installed (%s)\n", r.Client, r.Path)
	default:
		fmt.Fprintf(w, "%-7s %s %s\n", r.Client, strings.ReplaceAll(r.Action, "_", " "), filesList(r.Files))
	}
}

// printInstallFiles shows each file --print would write, with its content.
func printInstallFiles(w io.Writer, files []install.FileChange) {
	for _, f := range files {
		if f.Action == "unchanged" {
			fmt.Fprintf(w, "=== %s (%s, unchanged)\n", f.Path, f.Kind)
			continue
		}
		verb := map[string]string{"created": "would create", "updated": "would update", "deleted": "would delete"}[f.Action]
		fmt.Fprintf(w, "=== %s (%s, %s)\n", f.Path, f.Kind, verb)
		if f.Content != nil && f.Action != "deleted" {
			fmt.Fprint(w, *f.Content)
			if !strings.HasSuffix(*f.Content, "\n") {
				fmt.Fprintln(w)
			}
		}
	}
}

// printInstallDone says what an install or an uninstall did to one client.
func printInstallDone(w io.Writer, r installReply, removing bool) {
	switch {
	case r.Action == "unchanged" && removing:
		fmt.Fprintf(w, "%s (%s): nothing to remove\n", r.Client, r.Title)
	case r.Action == "unchanged":
		fmt.Fprintf(w, "%s (%s): already installed, nothing changed\n", r.Client, r.Title)
	default:
		verb := map[string]string{"installed": "installed", "updated": "updated", "removed": "removed"}[r.Action]
		fmt.Fprintf(w, "%s (%s): %s\n", r.Client, r.Title, verb)
		for _, f := range r.Files {
			fmt.Fprintf(w, "  %-9s %s (%s)\n", f.Action, f.Path, f.Kind)
		}
	}
}

// printInstallNotes are an install's hooks, what they do not cover and
// how idle sessions are woken.
func printInstallNotes(w io.Writer, r installReply) {
	if len(r.Hooks) > 0 {
		fmt.Fprintf(w, "  hooks: %s\n", strings.Join(r.Hooks, " "))
		if r.HookType == install.HookTypeMCP {
			fmt.Fprintf(w, "  answered by: the session's bb mcp (mcp_tool hooks; only the session start runs bb)\n")
		}
	}
	if r.NotCovered != "" {
		fmt.Fprintf(w, "  not covered: %s\n", r.NotCovered)
	}
	if r.WakeNote != "" && r.Action != "cannot_install" {
		fmt.Fprintf(w, "  idle sessions: %s\n", r.WakeNote)
	}
}

// printInstallTrust is the client's trust of the project: a line when
// recorded or trusted, a warning with the fix otherwise.
func (a *app) printInstallTrust(w io.Writer, r installReply) {
	t := r.Trust
	if t == nil {
		return
	}
	switch {
	case t.Recorded:
		fmt.Fprintf(w, "  trust: recorded (%s)\n", t.Detail)
	case t.State == install.TrustTrusted:
		fmt.Fprintf(w, "  trust: %s\n", t.Detail)
	default:
		fmt.Fprintf(a.env.Stderr, "warning: %s: %s\n  to fix: %s\n", r.Title, t.Detail, t.Fix)
	}
}

func filesList(files []install.FileChange) string {
	var parts []string
	for _, f := range files {
		if f.Action != "unchanged" {
			parts = append(parts, f.Path)
		}
	}
	return strings.Join(parts, ", ")
}
