package install

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/blackboard-hub/bb/internal/hookio"
)

// Wiring is what a client's files hold of bb's entries, read back.
type Wiring struct {
	Client string `json:"client"`
	Title  string `json:"title"`
	// Installed is true when the MCP entry or any of bb's hooks is there.
	Installed bool `json:"installed"`
	// MCPPath is the MCP configuration file; MCPCommand and MCPArgs the
	// entry ("" when absent).
	MCPPath    string   `json:"mcp_path"`
	MCPCommand string   `json:"mcp_command,omitempty"`
	MCPArgs    []string `json:"mcp_args,omitempty"`
	// HooksPath is the hooks file ("" for MCP-only clients); Hooks maps
	// each wired event to its command; Missing lists the events bb wires
	// that have no bb entry.
	HooksPath string            `json:"hooks_path,omitempty"`
	Hooks     map[string]string `json:"hooks,omitempty"`
	Missing   []string          `json:"missing_hooks,omitempty"`
	// Current is true when bb install, with the options the entries show,
	// would change nothing.
	Current bool `json:"current"`
	// Outdated is true when bb's hook entries are not the events and
	// matchers this bb's install writes (hookio.Events): written by an
	// older bb, or edited by hand. HookChanges says how; re-running bb
	// install <client> rewrites them.
	Outdated    bool         `json:"outdated"`
	HookChanges []HookChange `json:"hook_changes,omitempty"`
	// HookType is how bb's hooks are answered: HookTypeCommand (a bb
	// process per event), HookTypeMCP (the session's bb mcp, the session
	// start aside), "mixed", or "" without hooks. HookTypes has it per
	// event.
	HookType  string            `json:"hook_type,omitempty"`
	HookTypes map[string]string `json:"hook_types,omitempty"`
	// Pinned is a directory of the installing machine that a project
	// file meant to be committed pins (--dir in the MCP entry, or in the
	// hooks of a shared hooks file: an install by an older bb), and
	// PinnedIn that file; both "" when none. Every clone and work tree
	// would get a path it does not have; bb install rewrites it.
	Pinned   string `json:"pinned_dir,omitempty"`
	PinnedIn string `json:"pinned_in,omitempty"`
	// Options are the install options the entries show (for the fix).
	Options Options `json:"-"`
}

// Inspect reads what the client's files hold of bb's entries and whether
// they are what bb install writes today.
func (ie *Env) Inspect(cl Client) (Wiring, error) {
	w := Wiring{Client: cl.Name, Title: cl.Title, MCPPath: ie.mcpPath(cl), Hooks: map[string]string{}, HookTypes: map[string]string{}}
	b, err := readConfig(w.MCPPath)
	if err != nil {
		return w, err
	}
	w.MCPCommand, w.MCPArgs = mcpEntryOf(cl, b)
	if cl.Hooks != nil {
		w.HooksPath = ie.hooksPath(cl)
		hb, err := readConfig(w.HooksPath)
		if err != nil {
			return w, err
		}
		inspectHooks(cl, hb, &w)
	}
	w.Pinned, w.PinnedIn = ie.pinned(cl, w)
	w.Installed = w.MCPCommand != "" || len(w.Hooks) > 0 || len(w.HookChanges) > len(w.Missing)
	if !w.Installed || len(w.Hooks) == 0 && len(w.HookChanges) == len(w.Missing) {
		// No hooks at all: --no-hooks (or nothing installed), not an
		// outdated install.
		w.Missing, w.HookChanges = nil, nil
	}
	if !w.Installed {
		return w, nil
	}
	if cl.Hooks != nil && cl.Hooks.MCPHooks && w.HookType == HookTypeCommand && ie.mcpHooks(cl) {
		// Command hooks where this client's version answers them through
		// bb mcp: an install by an older bb (or for an older client).
		w.HookChanges = append(w.HookChanges, HookChange{Change: HookTypeChange, Installed: HookTypeCommand, Want: HookTypeMCP})
	}
	w.Outdated = len(w.HookChanges) > 0
	o, exe := ie.optionsOf(cl, w)
	w.Options = o
	probe := New(o, ie.base, exe, ie.getenv)
	r, err := probe.Install(cl)
	if err != nil {
		return w, err
	}
	w.Current = r.Action == "unchanged"
	return w, nil
}

// mcpEntryOf reads the blackboard server's command and arguments from
// cl's MCP file b (TOML, JSON, or OpenCode's command list).
func mcpEntryOf(cl Client, b []byte) (string, []string) {
	type mcpEntry struct {
		Command string   `json:"command" toml:"command"`
		Args    []string `json:"args" toml:"args"`
	}
	var entry mcpEntry
	if cl.TOML {
		var doc struct {
			Servers map[string]mcpEntry `toml:"mcp_servers"`
		}
		if toml.Unmarshal(b, &doc) == nil {
			entry = doc.Servers[cl.Server]
		}
		return entry.Command, entry.Args
	}
	var doc map[string]map[string]stringish
	if DecodeJSONC(string(b), &doc) != nil {
		return "", nil
	}
	raw, ok := doc[cl.mcpKey()][cl.Server]
	if !ok {
		return "", nil
	}
	if cl.OpenCodeMCP {
		// {"type": "local", "command": [program, args…]}
		var oc struct {
			Command []string `json:"command"`
		}
		if DecodeJSONC(string(raw), &oc) == nil && len(oc.Command) > 0 {
			return oc.Command[0], oc.Command[1:]
		}
		return "", nil
	}
	_ = DecodeJSONC(string(raw), &entry)
	return entry.Command, entry.Args
}

// inspectHooks reads bb's hook entries from cl's hooks file hb into w:
// the command per event, and what differs from what bb install writes
// (missing, duplicated, another matcher, an event bb no longer uses).
func inspectHooks(cl Client, hb []byte, w *Wiring) {
	var doc struct {
		Hooks map[string][]stringish `json:"hooks"`
	}
	plugin := map[string]string{}
	if cl.Hooks.Style == stylePlugin {
		plugin = pluginCommands(string(hb), cl.Name)
	} else {
		_ = DecodeJSONC(string(hb), &doc)
	}
	// bb's entries under each event of the file, with their matchers.
	installed := map[string][]string{}
	for _, event := range slices.Sorted(maps.Keys(doc.Hooks)) {
		for _, raw := range doc.Hooks[event] {
			if cmd, typ := ourHandler(string(raw), cl.Name); cmd != "" {
				w.Hooks[event] = cmd
				w.HookTypes[event] = typ
				var e struct {
					Matcher string `json:"matcher"`
				}
				_ = DecodeJSONC(string(raw), &e)
				installed[event] = append(installed[event], e.Matcher)
			}
		}
	}
	wired := map[string]bool{}
	for _, ev := range hookio.Events(cl.Name) {
		wired[ev.Name] = true
		if cmd := plugin[ev.Name]; cmd != "" {
			w.Hooks[ev.Name] = cmd
		}
		if c, ok := hookChange(ev, w.Hooks[ev.Name] != "", installed[ev.Name]); ok {
			if c.Change == HookMissing {
				w.Missing = append(w.Missing, ev.Name)
			}
			w.HookChanges = append(w.HookChanges, c)
		}
	}
	for _, event := range slices.Sorted(maps.Keys(installed)) {
		if !wired[event] {
			w.HookChanges = append(w.HookChanges, HookChange{Event: event, Change: HookStale, Installed: installed[event][0]})
			delete(w.Hooks, event)
			delete(w.HookTypes, event)
		}
	}
	w.HookType = hookTypeOf(cl, w.HookTypes)
}

// hookTypeOf is how the hooks of types (per event) are answered as a
// whole: the session start always runs bb, so it counts only for a client
// whose every hook is a command.
func hookTypeOf(cl Client, types map[string]string) string {
	seen := map[string]bool{}
	for _, ev := range hookio.Events(cl.Name) {
		if t := types[ev.Name]; t != "" && (ev.Kind != hookio.KindStart || !cl.Hooks.MCPHooks) {
			seen[t] = true
		}
	}
	switch {
	case len(seen) > 1:
		return "mixed"
	case seen[HookTypeMCP]:
		return HookTypeMCP
	case seen[HookTypeCommand]:
		return HookTypeCommand
	}
	return ""
}

// hookChange is what differs for event ev between bb's entries in the
// file (present, with the matchers ms) and what bb install writes.
func hookChange(ev hookio.EventSpec, present bool, ms []string) (HookChange, bool) {
	means := ""
	if ev.Except != "" {
		means = "every tool but " + ev.Except
	}
	switch {
	case !present:
		return HookChange{Event: ev.Name, Change: HookMissing, Want: ev.Matcher, WantMeans: means}, true
	case len(ms) > 1:
		return HookChange{Event: ev.Name, Change: HookDuplicate, Installed: ms[0], Want: ev.Matcher, WantMeans: means}, true
	case len(ms) == 1 && ms[0] != ev.Matcher:
		return HookChange{Event: ev.Name, Change: HookMatcher, Installed: ms[0], Want: ev.Matcher, WantMeans: means}, true
	}
	return HookChange{}, false
}

// optionsOf is the options w's entries were written with: --absolute
// shows as a path, --agent and --tools as arguments, --no-hooks as no
// hooks; exe is the program they run.
func (ie *Env) optionsOf(cl Client, w Wiring) (Options, string) {
	o := Options{Global: ie.opts.Global, Tools: ToolsAll, NoHooks: cl.Hooks != nil && len(w.Hooks) == 0 && !w.Outdated}
	if w.HookType == HookTypeCommand {
		o.HookType = HookTypeCommand
	}
	exe := "bb"
	if w.MCPCommand != "" && w.MCPCommand != "bb" {
		o.Absolute, exe = true, w.MCPCommand
	}
	for i := 0; i+1 < len(w.MCPArgs); i++ {
		switch w.MCPArgs[i] {
		case "--agent":
			o.Agent = w.MCPArgs[i+1]
		case "--tools":
			o.Tools = w.MCPArgs[i+1]
		}
	}
	return o, exe
}

// pinned finds a --dir in the project files meant to be committed: the
// MCP entry, and the hooks unless their file is kept out of git.
func (ie *Env) pinned(cl Client, w Wiring) (dir, file string) {
	if ie.opts.Global {
		return "", ""
	}
	for i := 0; i+1 < len(w.MCPArgs); i++ {
		if w.MCPArgs[i] == "--dir" {
			return w.MCPArgs[i+1], w.MCPPath
		}
	}
	if cl.Hooks == nil || cl.Hooks.Private {
		return "", ""
	}
	for _, ev := range slices.Sorted(maps.Keys(w.Hooks)) {
		if w.HookTypes[ev] != HookTypeCommand {
			continue
		}
		if _, d := CommandExe(w.Hooks[ev]); d != "" {
			return d, w.HooksPath
		}
	}
	return "", ""
}

// Hook changes: how an installed bb hook entry differs from what this bb's
// install writes.
const (
	// HookMatcher: the event's entry has another matcher.
	HookMatcher = "matcher"
	// HookMissing: the event has no bb entry.
	HookMissing = "missing"
	// HookStale: a bb entry under an event this bb does not wire.
	HookStale = "stale"
	// HookDuplicate: more than one bb entry under the event (each one a
	// process).
	HookDuplicate = "duplicate"
	// HookTypeChange: every hook runs a bb process (Installed
	// HookTypeCommand) where this client answers them through bb mcp
	// (Want HookTypeMCP); Event is empty.
	HookTypeChange = "type"
)

// HookChange is one way an installed bb hook entry differs from what this
// bb's install writes (also bb doctor --json's clients[].hook_changes).
type HookChange struct {
	Event string `json:"event"`
	// Change is matcher, missing, stale or duplicate.
	Change string `json:"change"`
	// Installed is the entry's matcher ("" = every tool, or none);
	// Want the one bb install writes.
	Installed string `json:"installed_matcher"`
	Want      string `json:"want_matcher"`
	// WantMeans says Want in words when it is a pattern for "every tool
	// but …" ("" otherwise).
	WantMeans string `json:"want_means,omitempty"`
}

// String says the change in a few words.
func (c HookChange) String() string {
	matcher := func(m string) string {
		if m == "" {
			return "no matcher"
		}
		return "matcher " + strconv.Quote(m)
	}
	switch c.Change {
	case HookMissing:
		return "no bb hook for " + c.Event
	case HookStale:
		return "a bb hook for " + c.Event + ", which this bb does not use"
	case HookTypeChange:
		return "every hook starts a bb process (command hooks), where this client can have the session's bb mcp answer them (mcp_tool hooks)"
	case HookDuplicate:
		return "more than one bb hook for " + c.Event
	}
	want := "writes " + matcher(c.Want)
	if c.WantMeans != "" {
		want = "runs it for " + c.WantMeans
	}
	have := "has " + matcher(c.Installed)
	if c.Installed == "" {
		have = "runs for every tool (no matcher)"
	}
	return fmt.Sprintf("%s %s, this bb %s", c.Event, have, want)
}

// stringish keeps a JSON value's raw text.
type stringish []byte

func (s *stringish) UnmarshalJSON(b []byte) error { *s = append((*s)[:0], b...); return nil }

// CommandExe is the program a hook command runs (its first shell word,
// unquoted), and the --dir it pins ("" when none).
func CommandExe(command string) (exe, dir string) {
	words := shellWords(command)
	if len(words) == 0 {
		return "", ""
	}
	for i := 1; i+1 < len(words); i++ {
		if words[i] == "--dir" {
			dir = words[i+1]
		}
	}
	return words[0], dir
}

// shellWords splits the simple command lines bb writes (words, single
// quotes as shellquote.Quote writes them, double quotes).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			// Up to the matching quote (the end when there is none).
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// Fix is the command that rewrites a client's entries as they are.
func (w Wiring) Fix(global bool) string {
	parts := []string{"bb install", w.Client}
	if global {
		parts = append(parts, "--global")
	}
	if w.Options.Absolute {
		parts = append(parts, "--absolute")
	}
	if w.Options.NoHooks {
		parts = append(parts, "--no-hooks")
	}
	if w.Options.Agent != "" {
		parts = append(parts, "--agent", w.Options.Agent)
	}
	if w.Options.Tools == ToolsCore {
		parts = append(parts, "--tools", "core")
	}
	return strings.Join(parts, " ")
}
