// Package install edits the configuration files of coding-agent clients
// (Claude Code, Codex CLI, Gemini CLI, Cursor, Kimi CLI, Kilo Code) so they
// use a Blackboard board: it merges the MCP server entry and the hook
// entries into each client's JSON(C) or TOML file, keeping every other
// byte, records what it added, and removes exactly that again. It knows
// where each client reads its files and in which shape; it does not print,
// prompt or parse flags (the bb command does), and it never touches the
// board itself.
package install

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

// FileChange is one file bb install or uninstall writes (or would write).
type FileChange struct {
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

// Result is one client's part of `bb install`/`bb uninstall` (also
// its --json data).
type Result struct {
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
	// HookType is how the hooks are answered (HookTypeMCP: by the
	// session's bb mcp, the session start aside; HookTypeCommand: a bb
	// process per event); "" without hooks.
	HookType string `json:"hook_type,omitempty"`
	// NotCovered says what the client's hooks cannot do, or why it gets no
	// hooks.
	NotCovered string `json:"not_covered,omitempty"`
	// Wakes is true when an idle session of the client is woken when mail
	// arrives (its waiter installed); WakeNote says how, or why not.
	Wakes    bool         `json:"wakes"`
	WakeNote string       `json:"wake_note,omitempty"`
	Files    []FileChange `json:"files"`
	Error    string       `json:"error,omitempty"`
	// Warnings are things to fix for the entries to work (bb not on PATH).
	Warnings []string `json:"warnings,omitempty"`
}

// Options are what bb install / bb uninstall are asked to write.
type Options struct {
	// Global writes the files under $HOME, without a pinned project.
	Global bool
	// NoHooks writes the MCP entry only.
	NoHooks bool
	// HookType is how a client that can have its hooks answered by the
	// session's bb mcp gets them: HookTypeMCP, HookTypeCommand (a bb
	// process per event, for an older client), or "": the type the
	// client's version takes (HookTypeFor, with ClientVersion; HookTypeMCP
	// without it).
	HookType string
	// ClientVersion is the installed client's version ("" when unknown),
	// asked only when a client with MCPHooks is installed or inspected,
	// once per Env.
	ClientVersion func(client string) string
	// Absolute runs the bb binary by its path (Exe) instead of "bb".
	Absolute bool
	// Agent pins one agent id for every session ("" for one per session).
	Agent string
	// Tools is the MCP tool profile (ToolsCore or ToolsAll, the profiles
	// of bb mcp --tools).
	Tools string
	// ToolNames lists the MCP tools of a profile, for the clients whose
	// entry names the tools it allows without asking (bb passes bb mcp's
	// own list; install does not link the MCP server).
	ToolNames func(profile string) []string
}

// The MCP tool profiles of bb mcp --tools (internal/mcp's ProfileAll and
// ProfileCore, which a test of internal/cli/bb holds equal).
const (
	ToolsAll  = "all"
	ToolsCore = "core"
)

// Env is what one install computes: the project, the command clients
// run, and the files it touches (edited in memory until committed).
type Env struct {
	opts   Options
	scope  string
	base   string // project root, or $HOME with --global
	exe    string
	state  *installState
	files  map[string]*FileChange
	order  []string
	getenv func(string) string
	// versions memoizes opts.ClientVersion.
	versions map[string]string
}

// New starts an install or uninstall in base (the project root, or $HOME
// with Global). exe is this binary's path, written with Absolute; getenv
// reads HOME, XDG_STATE_HOME (where the install record is kept) and
// CODEX_HOME.
func New(o Options, base, exe string, getenv func(string) string) *Env {
	ie := &Env{opts: o, scope: "project", base: base, files: map[string]*FileChange{}, state: loadState(getenv), exe: "bb", getenv: getenv}
	if o.Absolute {
		ie.exe = exe
	}
	if o.Global {
		ie.scope = "global"
	}
	return ie
}

// Base is the directory the entries pin (the project root), or $HOME.
func (ie *Env) Base() string { return ie.base }

// Exe is the command the entries run: "bb", or the absolute path.
func (ie *Env) Exe() string { return ie.exe }

// Content is the new content of a file Install or Uninstall computed.
func (ie *Env) Content(path string) string {
	if f, ok := ie.files[path]; ok {
		return f.cur
	}
	return ""
}

// FilesHelp lists, per client, the files bb install writes and the
// events it wires (from the same tables install uses).
func FilesHelp() string {
	var b strings.Builder
	for _, cl := range Clients() {
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
			if e.Except != "" {
				evs = append(evs, e.Name+"(all but "+e.Except+")")
			} else if e.Matcher != "" {
				evs = append(evs, e.Name+"("+e.Matcher+")")
			} else {
				evs = append(evs, e.Name)
			}
		}
		fmt.Fprintf(&b, "          hooks %s (global ~/%s): %s\n", cl.Hooks.Local, cl.Hooks.Global, strings.Join(evs, " "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func Select(name string) ([]Client, error) {
	var selected []Client
	for _, cl := range Clients() {
		if name == "" || strings.EqualFold(name, cl.Name) {
			selected = append(selected, cl)
		}
	}
	if len(selected) == 0 {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "client", "unknown client %q: expected one of %s", name, strings.Join(ClientNames(), ", "))
	}
	return selected, nil
}

// file returns the in-memory state of path, reading it on first use.
func (ie *Env) file(path, kind string) (*FileChange, error) {
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
	f := &FileChange{Path: path, Kind: kind, existed: b != nil, old: string(b), cur: string(b), rec: ie.state.record(path)}
	ie.files[path] = f
	ie.order = append(ie.order, path)
	return f, nil
}

// jsonEdit applies edit to the JSON(C) file at path, creating it from
// skeleton when absent; invalid content is refused.
func (ie *Env) jsonEdit(f *FileChange, skeleton string, edit func(d *jsonDoc) error) error {
	text := f.cur
	if f.delete || (!f.existed && text == "") {
		text = skeleton + "\n"
		if !f.existed {
			f.rec.Created = true
		}
		f.delete = false
	}
	d, err := openConfigDoc(f.Path, text)
	if err != nil {
		return err
	}
	if err := edit(d); err != nil {
		return hub.Errorf(hub.CodeInvalidInput, "%s: %s; nothing was written", f.Path, oneLineErr(err))
	}
	f.cur = d.text
	return nil
}

func (ie *Env) mcpPath(cl Client) string {
	if !ie.opts.Global {
		return filepath.Join(ie.base, cl.LocalPath)
	}
	if ch := ie.getenv("CODEX_HOME"); cl.Name == "codex" && ch != "" {
		return filepath.Join(ch, "config.toml")
	}
	if ch := ie.getenv("COPILOT_HOME"); cl.Name == "copilot" && ch != "" {
		return filepath.Join(ch, "mcp-config.json")
	}
	if x := ie.getenv("XDG_CONFIG_HOME"); cl.Name == "opencode" && x != "" {
		return filepath.Join(x, "opencode", "opencode.json")
	}
	return filepath.Join(ie.base, cl.GlobalPath)
}

func (ie *Env) hooksPath(cl Client) string {
	if !ie.opts.Global {
		return filepath.Join(ie.base, cl.Hooks.Local)
	}
	if ch := ie.getenv("CODEX_HOME"); cl.Name == "codex" && ch != "" {
		return filepath.Join(ch, "hooks.json")
	}
	if ch := ie.getenv("COPILOT_HOME"); cl.Name == "copilot" && ch != "" {
		return filepath.Join(ch, "hooks", "blackboard.json")
	}
	if x := ie.getenv("XDG_CONFIG_HOME"); cl.Name == "opencode" && x != "" {
		return filepath.Join(x, "opencode", "plugins", "blackboard.js")
	}
	return filepath.Join(ie.base, cl.Hooks.Global)
}

// mcpEntry is the server entry: bb mcp, which finds the board from the
// directory the client starts it in (the project, or any work tree of
// it). It pins no directory: the project's MCP file is meant to be
// committed, and every clone and work tree has its own path.
func (ie *Env) mcpEntry(cl Client) orderedMap {
	args := []any{"mcp"}
	if ie.opts.Agent != "" {
		args = append(args, "--agent", ie.opts.Agent)
	}
	if ie.opts.Tools == ToolsCore {
		args = append(args, "--tools", "core")
	}
	if cl.OpenCodeMCP {
		cmd := append([]any{ie.exe}, args...)
		return orderedEntry(map[string]any{"type": "local", "command": cmd, "enabled": true}, "type", "command", "enabled")
	}
	e := map[string]any{"command": ie.exe, "args": args}
	if cl.AlwaysAllow {
		var names []any
		if ie.opts.ToolNames != nil {
			for _, n := range ie.opts.ToolNames(ie.opts.Tools) {
				names = append(names, n)
			}
		}
		e["alwaysAllow"] = names
	}
	return orderedEntry(e, "command", "args", "alwaysAllow")
}

// hookCommand is the shell command a client runs for one event. It pins
// the project (--dir) only in a hooks file kept out of git.
func (ie *Env) hookCommand(cl Client, event string) string {
	parts := []string{shellquote.Quote(ie.exe), "hook", cl.Name, event}
	if !ie.opts.Global && cl.Hooks != nil && cl.Hooks.Private {
		parts = append(parts, "--dir", shellquote.Quote(ie.base))
	}
	if ie.opts.Agent != "" {
		parts = append(parts, "--agent", shellquote.Quote(ie.opts.Agent))
	}
	return strings.Join(parts, " ")
}

// mcpHooks reports whether cl's hooks are wired to the session's bb mcp.
func (ie *Env) mcpHooks(cl Client) bool {
	if cl.Hooks == nil || !cl.Hooks.MCPHooks || ie.opts.HookType == HookTypeCommand {
		return false
	}
	if ie.opts.HookType == HookTypeMCP || ie.opts.ClientVersion == nil {
		return true
	}
	v, ok := ie.versions[cl.Name]
	if !ok {
		v = ie.opts.ClientVersion(cl.Name)
		if ie.versions == nil {
			ie.versions = map[string]string{}
		}
		ie.versions[cl.Name] = v
	}
	return HookTypeFor(cl.Name, v) == HookTypeMCP
}

// ourHookEntry recognises the hook entries bb wrote for client.
func ourHookEntry(client string) func(string) bool {
	return func(raw string) bool { return isOurHookEntry(raw, client) }
}

// install computes the client's files with bb's entries merged in.
func (ie *Env) Install(cl Client) (Result, error) {
	r := Result{Client: cl.Name, Title: cl.Title, Scope: ie.scope, Server: cl.Server, Path: ie.mcpPath(cl), Hooks: []string{}, NotCovered: cl.NoHooks, WakeNote: cl.WakeNote}
	var touched []*FileChange
	mf, err := ie.file(r.Path, "mcp")
	if err != nil {
		return r, err
	}
	if err := ie.wireServer(cl, mf); err != nil {
		return r, err
	}
	touched = append(touched, mf)
	if cl.Hooks != nil && !ie.opts.NoHooks {
		h := cl.Hooks
		hf, err := ie.file(ie.hooksPath(cl), "hooks")
		if err != nil {
			return r, err
		}
		if err := ie.wireHooks(cl, hf); err != nil {
			return r, err
		}
		if !slices.Contains(touched, hf) {
			touched = append(touched, hf)
		}
		r.Hooks = eventNames(cl.Name)
		r.HookType = HookTypeCommand
		if ie.mcpHooks(cl) {
			r.HookType = HookTypeMCP
		}
		r.NotCovered = h.NotCovered
		r.Wakes = cl.Wakes
		if cl.WorktreeInclude != "" && !ie.opts.Global {
			wf, err := ie.addWorktreeInclude(cl.WorktreeInclude)
			if err != nil {
				return r, err
			}
			if !slices.Contains(touched, wf) {
				touched = append(touched, wf)
			}
		}
	} else if cl.Hooks != nil {
		r.NotCovered = "hooks not installed (--no-hooks): no per-session identity, no mail delivery into the context, no edit check"
		r.WakeNote = notWoken(cl.Title + " is not woken: its hooks are not installed (--no-hooks)")
	}
	if !ie.opts.Absolute {
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

// wireServer sets the blackboard server's entry in cl's MCP file mf
// (TOML or JSON), keeping everything else byte for byte.
func (ie *Env) wireServer(cl Client, mf *FileChange) error {
	entry := ie.mcpEntry(cl)
	if !cl.TOML {
		return ie.jsonEdit(mf, "{}", func(d *jsonDoc) error {
			created, _, err := d.setMember([]string{cl.mcpKey()}, cl.Server, entry)
			mf.rec.addContainers(created)
			return err
		})
	}
	var emap map[string]any
	b, _ := entry.MarshalJSON()
	_ = decodeJSONC(string(b), &emap)
	out, changed, err := mergeTOMLServer(mf.Path, []byte(mf.cur), cl.Server, emap)
	if err != nil || !changed {
		return err
	}
	if !mf.existed && mf.cur == "" {
		mf.rec.Created = true
	}
	if added, ok := strings.CutPrefix(string(out), mf.cur); ok {
		mf.rec.TOMLPrefix = strings.TrimSuffix(added, tomlTableIn(mf.cur, cl.Server, emap))
	}
	mf.cur = string(out)
	return nil
}

// wireHooks writes bb's hook entry for every event of cl into its hooks
// file hf (or bb's plugin file), and removes bb's entries of events it no
// longer uses.
func (ie *Env) wireHooks(cl Client, hf *FileChange) error {
	h := cl.Hooks
	if h.Style == stylePlugin {
		return ie.setPlugin(hf, cl.Name)
	}
	wake := ie.hookCommand(cl, "wake")
	if h.GuardWake {
		wake = headlessGuard(wake)
	}
	var groups []HookGroup
	for _, ev := range hookio.Events(cl.Name) {
		handler := commandHandler(ie.hookCommand(cl, ev.Name))
		if ie.mcpHooks(cl) && ev.Kind != hookio.KindStart {
			handler = mcpHandler(cl.Name, cl.Server, ev, ie.opts.Agent)
		}
		groups = append(groups, HookGroup{Event: ev.Name, Entry: h.hookEntry(ev, handler, wake)})
	}
	return ie.jsonEdit(hf, h.Skeleton, func(d *jsonDoc) error {
		created, _, err := d.setHookGroups(groups, ourHookEntry(cl.Name))
		hf.rec.addContainers(created)
		if err != nil {
			return err
		}
		return d.removeStaleHooks(cl.Name)
	})
}

// uninstall computes the client's files with bb's entries removed.
func (ie *Env) Uninstall(cl Client) (Result, error) {
	r := Result{Client: cl.Name, Title: cl.Title, Scope: ie.scope, Server: cl.Server, Path: ie.mcpPath(cl), Hooks: []string{}}
	paths := []string{r.Path}
	if cl.Hooks != nil {
		paths = append(paths, ie.hooksPath(cl))
	}
	var touched []*FileChange
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
		if err := ie.unwire(cl, f, i == 0, cl.Hooks != nil && p == ie.hooksPath(cl)); err != nil {
			return r, err
		}
	}
	if cl.WorktreeInclude != "" && !ie.opts.Global {
		wf, err := ie.removeWorktreeInclude()
		if err != nil {
			return r, err
		}
		if wf.existed && !slices.Contains(touched, wf) {
			touched = append(touched, wf)
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

// unwire takes bb's entries out of one file of cl (its MCP file, its
// hooks file, or both when they are one): the server, bb's hook entries,
// the containers bb created that are empty now; the file goes when bb
// created it and nothing else is left.
func (ie *Env) unwire(cl Client, f *FileChange, mcpFile, hooksFile bool) error {
	if mcpFile && cl.TOML {
		out, _, err := removeTOMLServer(f.Path, []byte(f.cur), cl.Server, f.rec.TOMLPrefix)
		if err != nil {
			return err
		}
		f.cur = string(out)
		f.delete = f.rec.Created && strings.TrimSpace(f.cur) == ""
		return nil
	}
	if cl.Hooks != nil && cl.Hooks.Style == stylePlugin && hooksFile {
		// bb's plugin file goes whole; any other file stays.
		f.delete = isOurPlugin(f.cur)
		return nil
	}
	skeleton := "{}"
	if cl.Hooks != nil && hooksFile {
		skeleton = cl.Hooks.Skeleton
	}
	d, err := openConfigDoc(f.Path, f.cur)
	if err != nil {
		return err
	}
	if _, err := d.removeMember([]string{cl.mcpKey()}, cl.Server); err != nil {
		return err
	}
	if cl.Hooks != nil {
		if err := removeHookEntries(d, cl.Name); err != nil {
			return err
		}
	}
	if f.rec.Containers, err = pruneCreated(d, f.rec.Containers); err != nil {
		return err
	}
	f.cur = d.text
	if f.rec.Created && (jsonEqual(f.cur, map[string]any{}) || jsonEqual(stripJSONC(f.cur), jsonOf(skeleton))) {
		f.delete = true
	}
	return nil
}

// removeHookEntries removes client's bb entries from every event of the
// document's "hooks" object.
func removeHookEntries(d *jsonDoc, client string) error {
	hooks := d.root.lookup([]string{"hooks"})
	if hooks == nil || hooks.kind != '{' {
		return nil
	}
	var events []string
	for _, m := range hooks.members {
		events = append(events, m.key)
	}
	for _, ev := range events {
		if _, err := d.removeElements([]string{"hooks", ev}, ourHookEntry(client)); err != nil {
			return err
		}
	}
	return nil
}

// pruneCreated removes the containers bb created that are empty now,
// deepest first, and returns those that stay.
func pruneCreated(d *jsonDoc, created [][]string) ([][]string, error) {
	conts := slices.Clone(created)
	sort.SliceStable(conts, func(i, j int) bool { return len(conts[i]) > len(conts[j]) })
	var kept [][]string
	for _, c := range conts {
		if err := d.pruneEmpty(c); err != nil {
			return nil, err
		}
		if d.root.lookup(c) != nil {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

func jsonOf(text string) any {
	var v any
	_ = decodeJSONC(text, &v)
	return v
}

// commit writes every changed file, then the install record.
func (ie *Env) Commit() error {
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

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
