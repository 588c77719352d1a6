package bb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
)

// fileChange is one file bb install or uninstall writes (or would write).
type fileChange struct {
	Path string `json:"path"`
	// Kind is what bb keeps there: mcp, hooks, or mcp+hooks.
	Kind string `json:"kind"`
	// Action: created, updated, unchanged, deleted (or, with --print and
	// without a client, the same words for what would happen).
	Action string `json:"action"`
	// Content is the file's new content (--print only; "" when deleted).
	Content *string `json:"content,omitempty"`

	existed bool
	old     string
	cur     string
	delete  bool
	rec     *installRecord
}

// installResult is one client's part of `bb install`/`bb uninstall` (also
// its --json data).
type installResult struct {
	Client string `json:"client"`
	Title  string `json:"title"`
	Scope  string `json:"scope"`
	// Path is the MCP configuration file.
	Path string `json:"path"`
	// Server is the MCP entry's name in that file.
	Server string `json:"server"`
	// Action is installed, updated, unchanged or removed (written), or
	// would_install, would_update, cannot_install (no client named), or
	// print.
	Action string `json:"action"`
	// Hooks are the client events wired to `bb hook` (empty with --no-hooks
	// or for clients without hooks).
	Hooks []string `json:"hooks"`
	// NotCovered says what the client's hooks cannot do, or why it gets no
	// hooks.
	NotCovered string       `json:"not_covered,omitempty"`
	Files      []fileChange `json:"files"`
	Error      string       `json:"error,omitempty"`
	// Warnings are things to fix for the entries to work (bb not on PATH).
	Warnings []string `json:"warnings,omitempty"`
	// Guard is the git guard's installation, when asked for.
	Guard *guardResult `json:"guard,omitempty"`
}

// installOpts are the flags of bb install / bb uninstall.
type installOpts struct {
	global, noHooks, absolute, printOnly bool
	agent, tools                         string
}

// installEnv is what one install computes: the project, the command clients
// run, and the files it touches (edited in memory until committed).
type installEnv struct {
	opts   installOpts
	scope  string
	base   string // project root, or $HOME with --global
	exe    string
	state  *installState
	files  map[string]*fileChange
	order  []string
	getenv func(string) string
}

func (a *app) installCmd() *cobra.Command {
	var tool string
	var o installOpts
	var local, writeAlias, guard bool
	c := &cobra.Command{
		Use:   "install [" + strings.Join(clientNames(), "|") + "]",
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
other hooks, comments, formatting); running install again changes nothing.
A file bb cannot parse is refused and nothing is written. 'bb uninstall
<client>' removes exactly what install added. Without a client name, bb
install lists what it would do for every client and writes nothing.

The project is the nearest directory holding .bb/ (run 'bb init' first),
or, with $BB_SERVER, the working directory. --global writes the files in
your home instead, without a pinned directory.

Files (project; --global: the same under your home unless noted):
` + clientFilesHelp() + `

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
			if len(args) == 1 {
				if tool != "" && !strings.EqualFold(tool, args[0]) {
					return usageErr{fmt.Errorf("client given twice: %q and --tool %q", args[0], tool)}
				}
				tool = args[0]
			}
			if o.global && local {
				return usageErr{errors.New("--global and --local are exclusive")}
			}
			if o.tools != bbmcp.ProfileAll && o.tools != bbmcp.ProfileCore {
				return usageErr{fmt.Errorf("invalid --tools %q: expected core or all", o.tools)}
			}
			selected, err := selectClients(tool)
			if err != nil {
				return err
			}
			if o.agent != "" {
				if err := hub.ValidateBoardAgentID(o.agent); err != nil {
					return err
				}
			}
			ie, err := a.newInstallEnv(o, true)
			if err != nil {
				return err
			}
			plan := tool == ""
			var results []installResult
			for _, cl := range selected {
				r, err := ie.install(cl)
				if err != nil && plan {
					r.Action, r.Error = "cannot_install", hub.MessageOf(err)
					results = append(results, r)
					continue
				}
				if err != nil {
					return err
				}
				results = append(results, r)
			}
			switch {
			case o.printOnly:
				for i := range results {
					results[i].Action = "print"
					for j := range results[i].Files {
						f := &results[i].Files[j]
						content := ie.files[f.Path].cur
						f.Content = &content
					}
				}
			case plan:
				for i := range results {
					if results[i].Action == "installed" {
						results[i].Action = "would_install"
					} else if results[i].Action == "updated" {
						results[i].Action = "would_update"
					}
				}
			default:
				if err := ie.commit(); err != nil {
					return err
				}
				if !o.global && a.wantGuard(cmd, ie.base, guard) {
					g, err := a.guardInstall(ie.base, ie.exe)
					if err != nil {
						return err
					}
					results[0].Guard = &g
				}
			}
			return a.reply(cmd, results, func(w io.Writer) { a.printInstall(w, results, plan, o.printOnly, false) })
		},
	}
	f := c.Flags()
	f.StringVar(&tool, "tool", "", "client to configure (same as the positional name)")
	f.BoolVar(&o.global, "global", false, "configure the client for every project (the files in your home)")
	f.BoolVar(&local, "local", false, "configure this project only (default)")
	f.BoolVar(&o.printOnly, "print", false, "print every file it would write, in full; write nothing")
	f.BoolVar(&o.noHooks, "no-hooks", false, "write the MCP entry only, no hooks")
	f.BoolVar(&o.absolute, "absolute", false, "run this bb binary by its absolute path instead of 'bb' from PATH")
	f.BoolVar(&guard, "guard", false, "also install the git guard (bb guard install)")
	f.BoolVar(&writeAlias, "write", false, "write the files (the default; kept for compatibility)")
	_ = f.MarkHidden("write")
	f.StringVar(&o.agent, "agent", "", "pin this agent id for every session (default: one identity per session)")
	f.StringVar(&o.tools, "tools", bbmcp.ProfileAll, "tool profile of the MCP server: core or all")
	return c
}

func (a *app) uninstallCmd() *cobra.Command {
	var o installOpts
	c := &cobra.Command{
		Use:   "uninstall <" + strings.Join(clientNames(), "|") + ">",
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
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			selected, err := selectClients(args[0])
			if err != nil {
				return err
			}
			ie, err := a.newInstallEnv(o, false)
			if err != nil {
				return err
			}
			r, err := ie.uninstall(selected[0])
			if err != nil {
				return err
			}
			if o.printOnly {
				r.Action = "print"
				for j := range r.Files {
					content := ie.files[r.Files[j].Path].cur
					r.Files[j].Content = &content
				}
			} else if err := ie.commit(); err != nil {
				return err
			}
			results := []installResult{r}
			return a.reply(cmd, results, func(w io.Writer) { a.printInstall(w, results, false, o.printOnly, true) })
		},
	}
	f := c.Flags()
	f.BoolVar(&o.global, "global", false, "remove it from the files in your home")
	f.BoolVar(&o.printOnly, "print", false, "print the files as they would become; write nothing")
	return c
}

// clientFilesHelp lists, per client, the files bb install writes and the
// events it wires (from the same tables install uses).
func clientFilesHelp() string {
	var b strings.Builder
	for _, cl := range mcpClients() {
		global := cl.GlobalPath
		if cl.Name == "codex" {
			global += " or $CODEX_HOME"
		}
		fmt.Fprintf(&b, "  %-7s MCP %s (global ~/%s), entry %q\n", cl.Name, cl.LocalPath, global, cl.Server)
		if cl.Hooks == nil {
			fmt.Fprintf(&b, "          MCP only: %s\n", cl.NoHooks)
			continue
		}
		var evs []string
		for _, e := range hookio.Events(cl.Name) {
			if e.Matcher != "" {
				evs = append(evs, e.Name+"("+e.Matcher+")")
			} else {
				evs = append(evs, e.Name)
			}
		}
		fmt.Fprintf(&b, "          hooks %s (global ~/%s): %s\n", cl.Hooks.Local, cl.Hooks.Global, strings.Join(evs, " "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func selectClients(name string) ([]mcpClient, error) {
	var selected []mcpClient
	for _, cl := range mcpClients() {
		if name == "" || strings.EqualFold(name, cl.Name) {
			selected = append(selected, cl)
		}
	}
	if len(selected) == 0 {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "client", "unknown client %q: expected one of %s", name, strings.Join(clientNames(), ", "))
	}
	return selected, nil
}

// newInstallEnv finds where the files go. Installing into a project needs
// its board (or BB_SERVER): the entries pin the board's root.
func (a *app) newInstallEnv(o installOpts, installing bool) (*installEnv, error) {
	ie := &installEnv{opts: o, scope: "project", files: map[string]*fileChange{}, state: a.loadInstallState(), exe: "bb", getenv: a.env.Getenv}
	if o.absolute {
		ie.exe = a.env.Exe
	}
	if o.global {
		ie.scope = "global"
		ie.base = a.env.Getenv("HOME")
		if ie.base == "" {
			return nil, hub.Errorf(hub.CodeInvalidInput, "HOME is not set: cannot find the global configuration")
		}
		return ie, nil
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
	ie.base = root
	return ie, nil
}

// file returns the in-memory state of path, reading it on first use.
func (ie *installEnv) file(path, kind string) (*fileChange, error) {
	if f, ok := ie.files[path]; ok {
		if !strings.Contains(f.Kind, kind) {
			f.Kind += "+" + kind
		}
		return f, nil
	}
	b, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	f := &fileChange{Path: path, Kind: kind, existed: b != nil, old: string(b), cur: string(b), rec: ie.state.record(path)}
	ie.files[path] = f
	ie.order = append(ie.order, path)
	return f, nil
}

// jsonEdit applies edit to the JSON(C) file at path, creating it from
// skeleton when absent; invalid content is refused.
func (ie *installEnv) jsonEdit(f *fileChange, skeleton string, edit func(d *jsonDoc) error) error {
	text := f.cur
	if f.delete || (!f.existed && text == "") {
		text = skeleton + "\n"
		if !f.existed {
			f.rec.Created = true
		}
		f.delete = false
	}
	d, err := openJSONDoc(text)
	if err != nil {
		return hub.Errorf(hub.CodeInvalidInput, "%s is not a valid JSON object (%s): fix or move it; nothing was written", f.Path, oneLineErr(err))
	}
	if err := edit(d); err != nil {
		return hub.Errorf(hub.CodeInvalidInput, "%s: %s; nothing was written", f.Path, oneLineErr(err))
	}
	f.cur = d.text
	return nil
}

func (ie *installEnv) mcpPath(cl mcpClient) string {
	if !ie.opts.global {
		return filepath.Join(ie.base, cl.LocalPath)
	}
	if ch := ie.getenv("CODEX_HOME"); cl.Name == "codex" && ch != "" {
		return filepath.Join(ch, "config.toml")
	}
	return filepath.Join(ie.base, cl.GlobalPath)
}

func (ie *installEnv) hooksPath(cl mcpClient) string {
	if !ie.opts.global {
		return filepath.Join(ie.base, cl.Hooks.Local)
	}
	if ch := ie.getenv("CODEX_HOME"); cl.Name == "codex" && ch != "" {
		return filepath.Join(ch, "hooks.json")
	}
	return filepath.Join(ie.base, cl.Hooks.Global)
}

// mcpEntry is the server entry: bb mcp with the project pinned.
func (ie *installEnv) mcpEntry(cl mcpClient) orderedMap {
	args := []any{"mcp"}
	if !ie.opts.global {
		args = append(args, "--dir", ie.base)
	}
	if ie.opts.agent != "" {
		args = append(args, "--agent", ie.opts.agent)
	}
	if ie.opts.tools == bbmcp.ProfileCore {
		args = append(args, "--tools", "core")
	}
	e := map[string]any{"command": ie.exe, "args": args}
	if cl.AlwaysAllow {
		var names []any
		for _, n := range bbmcp.ToolNames(ie.opts.tools) {
			names = append(names, n)
		}
		e["alwaysAllow"] = names
	}
	return orderedEntry(e, "command", "args", "alwaysAllow")
}

// hookCommand is the shell command a client runs for one event.
func (ie *installEnv) hookCommand(client, event string) string {
	parts := []string{shellQuote(ie.exe), "hook", client, event}
	if !ie.opts.global {
		parts = append(parts, "--dir", shellQuote(ie.base))
	}
	if ie.opts.agent != "" {
		parts = append(parts, "--agent", shellQuote(ie.opts.agent))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ourHookEntry recognises the hook entries bb wrote for client.
func ourHookEntry(client string) func(string) bool {
	return func(raw string) bool { return isOurHookEntry(raw, client) }
}

// install computes the client's files with bb's entries merged in.
func (ie *installEnv) install(cl mcpClient) (installResult, error) {
	r := installResult{Client: cl.Name, Title: cl.Title, Scope: ie.scope, Server: cl.Server, Path: ie.mcpPath(cl), Hooks: []string{}, NotCovered: cl.NoHooks}
	var touched []*fileChange
	mf, err := ie.file(r.Path, "mcp")
	if err != nil {
		return r, err
	}
	entry := ie.mcpEntry(cl)
	if cl.TOML {
		var emap map[string]any
		b, _ := entry.MarshalJSON()
		_ = decodeJSONC(string(b), &emap)
		out, changed, err := mergeTOMLServer(mf.Path, []byte(mf.cur), cl.Server, emap)
		if err != nil {
			return r, err
		}
		if changed {
			if !mf.existed && mf.cur == "" {
				mf.rec.Created = true
			}
			if added, ok := strings.CutPrefix(string(out), mf.cur); ok {
				mf.rec.TOMLPrefix = strings.TrimSuffix(added, tomlTableIn(mf.cur, cl.Server, emap))
			}
			mf.cur = string(out)
		}
	} else if err := ie.jsonEdit(mf, "{}", func(d *jsonDoc) error {
		created, _, err := d.setMember([]string{"mcpServers"}, cl.Server, entry)
		mf.rec.addContainers(created)
		return err
	}); err != nil {
		return r, err
	}
	touched = append(touched, mf)
	if cl.Hooks != nil && !ie.opts.noHooks {
		h := cl.Hooks
		hf, err := ie.file(ie.hooksPath(cl), "hooks")
		if err != nil {
			return r, err
		}
		if err := ie.jsonEdit(hf, h.Skeleton, func(d *jsonDoc) error {
			for _, ev := range hookio.Events(cl.Name) {
				created, _, err := d.setElement([]string{"hooks", ev.Name}, h.hookEntry(ev, ie.hookCommand(cl.Name, ev.Name)), ourHookEntry(cl.Name))
				if err != nil {
					return err
				}
				hf.rec.addContainers(created)
			}
			return nil
		}); err != nil {
			return r, err
		}
		if !slices.Contains(touched, hf) {
			touched = append(touched, hf)
		}
		r.Hooks = eventNames(cl.Name)
		r.NotCovered = h.NotCovered
	} else if cl.Hooks != nil {
		r.NotCovered = "hooks not installed (--no-hooks): no per-session identity, no mail delivery into the context, no edit check"
	}
	if !ie.opts.absolute {
		if _, err := exec.LookPath("bb"); err != nil {
			r.Warnings = append(r.Warnings, "bb is not on your PATH, so the client will not find it: add its directory to PATH, or reinstall with --absolute")
		}
	}
	r.Action = "unchanged"
	for _, f := range touched {
		f.Action = "unchanged"
		if f.cur != f.old {
			f.Action = map[bool]string{true: "updated", false: "created"}[f.existed]
			if r.Action == "unchanged" {
				r.Action = "updated"
			}
		}
		r.Files = append(r.Files, *f)
	}
	if r.Action != "unchanged" && !strings.Contains(mf.old, `"`+cl.Server+`"`) && !strings.Contains(mf.old, "mcp_servers."+cl.Server) {
		r.Action = "installed"
	}
	return r, nil
}

// uninstall computes the client's files with bb's entries removed.
func (ie *installEnv) uninstall(cl mcpClient) (installResult, error) {
	r := installResult{Client: cl.Name, Title: cl.Title, Scope: ie.scope, Server: cl.Server, Path: ie.mcpPath(cl), Hooks: []string{}}
	paths := []string{r.Path}
	if cl.Hooks != nil {
		paths = append(paths, ie.hooksPath(cl))
	}
	var touched []*fileChange
	for i, p := range paths {
		kind := map[bool]string{true: "mcp", false: "hooks"}[i == 0]
		f, err := ie.file(p, kind)
		if err != nil {
			return r, err
		}
		if slices.Contains(touched, f) {
			continue
		}
		touched = append(touched, f)
		if !f.existed || strings.TrimSpace(f.cur) == "" {
			continue
		}
		if i == 0 && cl.TOML {
			out, _, err := removeTOMLServer(f.Path, []byte(f.cur), cl.Server, f.rec.TOMLPrefix)
			if err != nil {
				return r, err
			}
			f.cur = string(out)
			if f.rec.Created && strings.TrimSpace(f.cur) == "" {
				f.delete = true
			}
			continue
		}
		skeleton := "{}"
		if cl.Hooks != nil && p == ie.hooksPath(cl) {
			skeleton = cl.Hooks.Skeleton
		}
		d, err := openJSONDoc(f.cur)
		if err != nil {
			return r, hub.Errorf(hub.CodeInvalidInput, "%s is not a valid JSON object (%s): fix or move it; nothing was written", f.Path, oneLineErr(err))
		}
		if _, err := d.removeMember([]string{"mcpServers"}, cl.Server); err != nil {
			return r, err
		}
		if cl.Hooks != nil {
			if hooks := d.root.lookup([]string{"hooks"}); hooks != nil && hooks.kind == '{' {
				var events []string
				for _, m := range hooks.members {
					events = append(events, m.key)
				}
				for _, ev := range events {
					if _, err := d.removeElements([]string{"hooks", ev}, ourHookEntry(cl.Name)); err != nil {
						return r, err
					}
				}
			}
		}
		// Containers bb created go when empty, deepest first.
		conts := slices.Clone(f.rec.Containers)
		sort.SliceStable(conts, func(i, j int) bool { return len(conts[i]) > len(conts[j]) })
		var kept [][]string
		for _, c := range conts {
			if err := d.pruneEmpty(c); err != nil {
				return r, err
			}
			if d.root.lookup(c) != nil {
				kept = append(kept, c)
			}
		}
		f.rec.Containers = kept
		f.cur = d.text
		if f.rec.Created && (jsonEqual(f.cur, map[string]any{}) || jsonEqual(stripJSONC(f.cur), jsonOf(skeleton))) {
			f.delete = true
		}
	}
	r.Action = "unchanged"
	for _, f := range touched {
		f.Action = "unchanged"
		switch {
		case f.delete:
			f.Action = "deleted"
			f.cur = ""
		case f.cur != f.old:
			f.Action = "updated"
		}
		if f.Action != "unchanged" {
			r.Action = "removed"
		}
		r.Files = append(r.Files, *f)
	}
	return r, nil
}

func jsonOf(text string) any {
	var v any
	_ = decodeJSONC(text, &v)
	return v
}

// commit writes every changed file, then the install record.
func (ie *installEnv) commit() error {
	for _, p := range ie.order {
		f := ie.files[p]
		switch {
		case f.delete:
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot delete " + p, Err: err}
			}
			delete(ie.state.Files, p)
			// Directories bb created go when empty, deepest first.
			for d := filepath.Dir(p); slices.Contains(ie.state.Dirs, d); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
				ie.state.Dirs = slices.DeleteFunc(ie.state.Dirs, func(x string) bool { return x == d })
			}
			continue
		case f.cur != f.old:
			for d := filepath.Dir(p); !f.existed && d != filepath.Dir(d) && !isDir(d); d = filepath.Dir(d) {
				ie.state.Dirs = append(ie.state.Dirs, d)
			}
			if err := writeConfig(p, []byte(f.cur)); err != nil {
				return err
			}
		}
		ie.state.Files[p] = f.rec
	}
	return ie.state.save()
}

// wantGuard decides whether bb install also installs the git guard: --guard,
// or a yes on a terminal (never asked otherwise).
func (a *app) wantGuard(cmd *cobra.Command, root string, flag bool) bool {
	if flag || cmd.Flags().Changed("guard") {
		return flag
	}
	if !a.env.IsTerminal || a.g.json {
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

func (a *app) printInstall(w io.Writer, results []installResult, plan, printOnly, removing bool) {
	for _, r := range results {
		for _, warn := range r.Warnings {
			fmt.Fprintf(a.env.Stderr, "warning: %s\n", warn)
		}
		if plan && !printOnly {
			switch r.Action {
			case "cannot_install":
				fmt.Fprintf(w, "%-7s cannot install: %s\n", r.Client, r.Error)
			case "unchanged":
				fmt.Fprintf(w, "%-7s already installed (%s)\n", r.Client, r.Path)
			default:
				fmt.Fprintf(w, "%-7s %s %s\n", r.Client, strings.ReplaceAll(r.Action, "_", " "), filesList(r.Files))
			}
			continue
		}
		switch {
		case printOnly:
			for _, f := range r.Files {
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
		if !removing {
			if len(r.Hooks) > 0 {
				fmt.Fprintf(w, "  hooks: %s\n", strings.Join(r.Hooks, " "))
			}
			if r.NotCovered != "" {
				fmt.Fprintf(w, "  not covered: %s\n", r.NotCovered)
			}
		}
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

func filesList(files []fileChange) string {
	var parts []string
	for _, f := range files {
		if f.Action != "unchanged" {
			parts = append(parts, f.Path)
		}
	}
	return strings.Join(parts, ", ")
}
