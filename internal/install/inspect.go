package install

import (
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/blackboard-hub/bb/internal/hookio"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
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
	// Options are the install options the entries show (for the fix).
	Options Options `json:"-"`
}

// Inspect reads what the client's files hold of bb's entries and whether
// they are what bb install writes today.
func (ie *Env) Inspect(cl Client) (Wiring, error) {
	w := Wiring{Client: cl.Name, Title: cl.Title, MCPPath: ie.mcpPath(cl), Hooks: map[string]string{}}
	b, err := readConfig(w.MCPPath)
	if err != nil {
		return w, err
	}
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
	} else {
		var doc map[string]map[string]stringish
		if DecodeJSONC(string(b), &doc) == nil {
			if raw, ok := doc[cl.mcpKey()][cl.Server]; ok {
				if cl.OpenCodeMCP {
					// {"type": "local", "command": [program, args…]}
					var oc struct {
						Command []string `json:"command"`
					}
					if DecodeJSONC(string(raw), &oc) == nil && len(oc.Command) > 0 {
						entry.Command, entry.Args = oc.Command[0], oc.Command[1:]
					}
				} else {
					_ = DecodeJSONC(string(raw), &entry)
				}
			}
		}
	}
	w.MCPCommand, w.MCPArgs = entry.Command, entry.Args
	if cl.Hooks != nil {
		w.HooksPath = ie.hooksPath(cl)
		hb, err := readConfig(w.HooksPath)
		if err != nil {
			return w, err
		}
		var doc struct {
			Hooks map[string][]stringish `json:"hooks"`
		}
		plugin := map[string]string{}
		if cl.Hooks.Style == stylePlugin {
			plugin = pluginCommands(string(hb), cl.Name)
		} else {
			_ = DecodeJSONC(string(hb), &doc)
		}
		for _, ev := range hookio.Events(cl.Name) {
			for _, raw := range doc.Hooks[ev.Name] {
				if cmd := ourCommand(string(raw), cl.Name); cmd != "" {
					w.Hooks[ev.Name] = cmd
				}
			}
			if cmd := plugin[ev.Name]; cmd != "" {
				w.Hooks[ev.Name] = cmd
			}
			if w.Hooks[ev.Name] == "" {
				w.Missing = append(w.Missing, ev.Name)
			}
		}
	}
	w.Installed = w.MCPCommand != "" || len(w.Hooks) > 0
	if !w.Installed {
		w.Missing = nil
		return w, nil
	}
	// The options the entries were written with: --absolute shows as a
	// path, --agent and --tools as arguments, --no-hooks as no hooks.
	o := Options{Global: ie.opts.Global, Tools: bbmcp.ProfileAll, NoHooks: cl.Hooks != nil && len(w.Hooks) == 0}
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
	w.Options = o
	probe := New(o, ie.base, exe, ie.getenv)
	r, err := probe.Install(cl)
	if err != nil {
		return w, err
	}
	w.Current = r.Action == "unchanged"
	return w, nil
}

// stringish keeps a JSON value's raw text.
type stringish []byte

func (s *stringish) UnmarshalJSON(b []byte) error { *s = append((*s)[:0], b...); return nil }

// ourCommand is the command of bb's handler in a hook entry for client.
func ourCommand(raw, client string) string {
	var e struct {
		Command string `json:"command"`
		Hooks   []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if DecodeJSONC(raw, &e) != nil {
		return ""
	}
	cmds := []string{e.Command}
	for _, h := range e.Hooks {
		cmds = append(cmds, h.Command)
	}
	for _, c := range cmds {
		if m := bbHookCommand.FindStringSubmatch(c); m != nil && m[3] == client {
			return c
		}
	}
	return ""
}

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
	if w.Options.Tools == bbmcp.ProfileCore {
		parts = append(parts, "--tools", "core")
	}
	return strings.Join(parts, " ")
}
