package bb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
)

// mcpServerName is the key of Blackboard's entry in every client's config.
const mcpServerName = "blackboard"

// mcpClient describes where one coding-agent client reads its MCP servers.
type mcpClient struct {
	Name  string
	Title string
	// TOML clients (Codex) keep servers in [mcp_servers.<name>] tables;
	// the others in a JSON object "mcpServers".
	TOML       bool
	LocalPath  string // relative to the project directory
	GlobalPath string // relative to $HOME
	DefaultID  string
	// AlwaysAllow lists the tools in the entry's alwaysAllow (Kilo Code
	// asks before each call otherwise).
	AlwaysAllow bool
}

func mcpClients() []mcpClient {
	return []mcpClient{
		{Name: "claude", Title: "Claude Code", LocalPath: ".mcp.json", GlobalPath: ".claude.json", DefaultID: "claude-01"},
		{Name: "codex", Title: "Codex CLI", TOML: true, LocalPath: filepath.Join(".codex", "config.toml"), GlobalPath: filepath.Join(".codex", "config.toml"), DefaultID: "codex-01"},
		{Name: "gemini", Title: "Gemini CLI", LocalPath: filepath.Join(".gemini", "settings.json"), GlobalPath: filepath.Join(".gemini", "settings.json"), DefaultID: "gemini-01"},
		{Name: "cursor", Title: "Cursor", LocalPath: filepath.Join(".cursor", "mcp.json"), GlobalPath: filepath.Join(".cursor", "mcp.json"), DefaultID: "cursor-01"},
		{Name: "kimi", Title: "Kimi CLI", LocalPath: ".mcp.json", GlobalPath: filepath.Join(".kimi", "mcp.json"), DefaultID: "kimi-01"},
		{Name: "kilo", Title: "Kilo Code", LocalPath: filepath.Join(".kilocode", "mcp.json"), GlobalPath: filepath.Join(".kilocode", "cli", "global", "settings", "mcp_settings.json"), DefaultID: "kilo-01", AlwaysAllow: true},
	}
}

func clientNames() []string {
	var out []string
	for _, c := range mcpClients() {
		out = append(out, c.Name)
	}
	return out
}

// installResult is one client's line of `bb install` (also its --json data).
type installResult struct {
	Client  string `json:"client"`
	Path    string `json:"path"`
	Scope   string `json:"scope"`
	AgentID string `json:"agent_id"`
	// Action is installed, updated or unchanged (written), or would_install,
	// would_update, unchanged (plan), or print.
	Action string `json:"action"`
	// Entry is what the file holds for the server, as JSON (for Codex, the
	// TOML table's content).
	Entry   map[string]any `json:"entry"`
	Snippet string         `json:"snippet,omitempty"`
	Error   string         `json:"error,omitempty"`
}

func (a *app) installCmd() *cobra.Command {
	var tool, agent, tools string
	var global, local, printOnly, writeAlias bool
	c := &cobra.Command{
		Use:   "install [" + strings.Join(clientNames(), "|") + "]",
		Short: "Configure a coding agent to start `bb mcp` (merges into its MCP config file)",
		Long: `Add Blackboard's MCP server ("blackboard", running 'bb mcp --agent <id>') to
a coding-agent client's configuration. The entry is merged into the file:
every other server and setting is kept, and running it again reports
"already installed" without changing a byte. A file that cannot be parsed
is left alone (nothing is written). --print shows the entry instead of
writing it. Without a client name, bb install lists what it would do for
every client and writes nothing.

Files (project = --dir/$BB_DIR/working directory; global = your home):
  claude  project .mcp.json              global ~/.claude.json
  codex   project .codex/config.toml     global ~/.codex/config.toml ($CODEX_HOME)
  gemini  project .gemini/settings.json  global ~/.gemini/settings.json
  cursor  project .cursor/mcp.json       global ~/.cursor/mcp.json
  kimi    project .mcp.json              global ~/.kimi/mcp.json
  kilo    project .kilocode/mcp.json     global ~/.kilocode/cli/global/settings/mcp_settings.json

Codex's TOML file is edited in place: the [mcp_servers.blackboard] table
is appended or replaced, and everything else (comments included) stays
as it was.`,
		Example: `  bb install                      # what would be done, for every client
  bb install claude               # merge into ./.mcp.json
  bb install codex --global       # merge into ~/.codex/config.toml
  bb install gemini --print       # show the entry, write nothing
  bb install kilo --agent kilo-reviewer --tools core`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if tool != "" && !strings.EqualFold(tool, args[0]) {
					return usageErr{fmt.Errorf("client given twice: %q and --tool %q", args[0], tool)}
				}
				tool = args[0]
			}
			if global && local {
				return usageErr{errors.New("--global and --local are exclusive")}
			}
			if tools != bbmcp.ProfileAll && tools != bbmcp.ProfileCore {
				return usageErr{fmt.Errorf("invalid --tools %q: expected core or all", tools)}
			}
			var selected []mcpClient
			for _, cl := range mcpClients() {
				if tool == "" || strings.EqualFold(tool, cl.Name) {
					selected = append(selected, cl)
				}
			}
			if len(selected) == 0 {
				return hub.FieldErr(hub.CodeInvalidInput, "client", "unknown client %q: expected one of %s", tool, strings.Join(clientNames(), ", "))
			}
			if agent != "" {
				if err := hub.ValidateBoardAgentID(agent); err != nil {
					return err
				}
			}
			plan := tool == "" // no client: list, write nothing
			exe := a.env.Exe
			if exe == "" {
				exe = "bb"
			}
			base, scope := "", "project"
			if global {
				scope = "global"
				base = a.env.Getenv("HOME")
				if base == "" {
					return hub.Errorf(hub.CodeInvalidInput, "HOME is not set: cannot find the global configuration")
				}
			} else {
				var err error
				if base, err = a.targetDir(); err != nil {
					return err
				}
			}
			var results []installResult
			for _, cl := range selected {
				id := agent
				if id == "" {
					id = cl.DefaultID
				}
				path := filepath.Join(base, cl.LocalPath)
				if global {
					path = filepath.Join(base, cl.GlobalPath)
					if ch := a.env.Getenv("CODEX_HOME"); cl.Name == "codex" && ch != "" {
						path = filepath.Join(ch, "config.toml")
					}
				}
				entry := mcpEntry(exe, id, tools, cl.AlwaysAllow)
				r := installResult{Client: cl.Name, Path: path, Scope: scope, AgentID: id, Entry: entry}
				if printOnly {
					r.Action = "print"
					r.Snippet = snippet(cl, entry)
					results = append(results, r)
					continue
				}
				merge := mergeJSONServer
				if cl.TOML {
					merge = mergeTOMLServer
				}
				old, err := readConfig(path)
				var updated []byte
				var changed bool
				if err == nil {
					updated, changed, err = merge(path, old, mcpServerName, entry)
				}
				if err != nil && plan {
					r.Action, r.Error = "cannot_install", hub.MessageOf(err)
					results = append(results, r)
					continue
				}
				if err != nil {
					return err
				}
				switch {
				case !changed:
					r.Action = "unchanged"
				case plan && (old == nil || !hasServer(cl, old)):
					r.Action = "would_install"
				case plan:
					r.Action = "would_update"
				default:
					if err := writeConfig(path, updated); err != nil {
						return err
					}
					r.Action = map[bool]string{true: "installed", false: "updated"}[old == nil || !hasServer(cl, old)]
				}
				results = append(results, r)
			}
			return a.reply(cmd, results, func(w io.Writer) { printInstall(w, results, plan, printOnly) })
		},
	}
	f := c.Flags()
	f.StringVar(&tool, "tool", "", "client to configure (same as the positional name)")
	f.BoolVar(&global, "global", false, "configure the client for every project (the file in your home)")
	f.BoolVar(&local, "local", false, "configure this project only (default)")
	f.BoolVar(&printOnly, "print", false, "print the entry and where it goes; write nothing")
	f.BoolVar(&writeAlias, "write", false, "write the file (the default; kept for compatibility)")
	_ = f.MarkHidden("write")
	f.StringVar(&agent, "agent", "", "agent id the MCP server acts as (default <client>-01)")
	f.StringVar(&tools, "tools", bbmcp.ProfileAll, "tool profile of the server: core or all")
	return c
}

// mcpEntry is the server entry every client understands: command, args,
// env (and Kilo Code's alwaysAllow).
func mcpEntry(exe, id, tools string, alwaysAllow bool) map[string]any {
	args := []any{"mcp", "--agent", id}
	if tools == bbmcp.ProfileCore {
		args = append(args, "--tools", "core")
	}
	e := map[string]any{"command": exe, "args": args, "env": map[string]any{"BB_AGENT_ID": id}}
	if alwaysAllow {
		var names []any
		for _, n := range bbmcp.ToolNames(tools) {
			names = append(names, n)
		}
		e["alwaysAllow"] = names
	}
	return e
}

func hasServer(cl mcpClient, content []byte) bool {
	if cl.TOML {
		var doc map[string]any
		if toml.Unmarshal(content, &doc) != nil {
			return false
		}
		servers, _ := doc["mcp_servers"].(map[string]any)
		return servers[mcpServerName] != nil
	}
	var doc struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	_ = json.Unmarshal(content, &doc)
	return doc.Servers[mcpServerName] != nil
}

func printInstall(w io.Writer, results []installResult, plan, printOnly bool) {
	fmt.Fprintln(w, "Blackboard MCP Installation")
	fmt.Fprintln(w, strings.Repeat("=", 27))
	if plan && !printOnly {
		fmt.Fprintln(w)
	}
	for _, r := range results {
		if !plan || printOnly {
			fmt.Fprintln(w)
		}
		switch r.Action {
		case "print":
			fmt.Fprintf(w, "%s: add to %s\n%s", r.Client, r.Path, r.Snippet)
		case "installed":
			fmt.Fprintf(w, "Installed to: %s (%s, agent %s)\n", r.Path, r.Client, r.AgentID)
		case "updated":
			fmt.Fprintf(w, "Updated: %s (%s, agent %s)\n", r.Path, r.Client, r.AgentID)
		case "unchanged":
			fmt.Fprintf(w, "Already installed in: %s (%s, agent %s)\n", r.Path, r.Client, r.AgentID)
		case "would_install":
			fmt.Fprintf(w, "%-7s would install to %s (agent %s)\n", r.Client, r.Path, r.AgentID)
		case "would_update":
			fmt.Fprintf(w, "%-7s would update %s (agent %s)\n", r.Client, r.Path, r.AgentID)
		case "cannot_install":
			fmt.Fprintf(w, "%-7s cannot install: %s\n", r.Client, r.Error)
		}
	}
	fmt.Fprintln(w)
	switch {
	case plan && !printOnly:
		fmt.Fprintln(w, "Nothing was written. Run 'bb install <client>' to install, or add --print to see the entry.")
	case printOnly:
		fmt.Fprintln(w, "Nothing was written (--print).")
	default:
		fmt.Fprintln(w, "Note: restart your agent after configuration.")
	}
}

// snippet renders the entry as the client's file would hold it.
func snippet(cl mcpClient, entry map[string]any) string {
	if cl.TOML {
		return tomlTable(mcpServerName, entry)
	}
	out, _, _ := mergeJSONServer("", nil, mcpServerName, entry)
	return string(out)
}

// readConfig returns the file's content, or nil when it does not exist.
func readConfig(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read " + path, Err: err}
	}
	return b, nil
}

// writeConfig replaces the file's content atomically (through a temporary
// file renamed over it, keeping its permissions), writing through a
// symlink to its target.
func writeConfig(path string, content []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create " + filepath.Dir(path), Err: err}
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".bb-*")
	if err != nil {
		return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + path, Err: err}
	}
	_, werr := tmp.Write(content)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Chmod(tmp.Name(), mode)
	}
	if werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + path, Err: errors.Join(werr, cerr)}
	}
	return nil
}

// sameJSON reports whether two JSON values are equal (key order aside).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// orderedObject is a JSON object that keeps its keys in file order.
type orderedObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(b []byte) (*orderedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &orderedObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return o, nil
}

func (o *orderedObject) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// entryJSON renders the entry with its keys in the usual order.
func entryJSON(entry map[string]any) []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for _, k := range []string{"command", "args", "env", "alwaysAllow"} {
		v, ok := entry[k]
		if !ok {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&buf, "%q:", k)
		b, _ := json.Marshal(v)
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

func (o *orderedObject) compact() []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		_ = json.Compact(&buf, o.vals[k])
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// mergeJSONServer sets mcpServers[name] = entry in a JSON config, keeping
// every other key and the order of keys. It returns the new content and
// whether it differs; invalid JSON is an error and nothing is written.
func mergeJSONServer(path string, old []byte, name string, entry map[string]any) ([]byte, bool, error) {
	ent := entryJSON(entry)
	doc := &orderedObject{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if doc, err = parseObject(old); err != nil {
			return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s is not a valid JSON object (%v): fix or move it; nothing was written", path, err)
		}
	}
	servers := &orderedObject{vals: map[string]json.RawMessage{}}
	if raw, ok := doc.vals["mcpServers"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		var err error
		if servers, err = parseObject(raw); err != nil {
			return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: \"mcpServers\" is not an object; nothing was written", path)
		}
	}
	if cur, ok := servers.vals[name]; ok && sameJSON(cur, ent) {
		return old, false, nil
	}
	servers.set(name, ent)
	doc.set("mcpServers", servers.compact())
	var buf bytes.Buffer
	if err := json.Indent(&buf, doc.compact(), "", "  "); err != nil {
		return nil, false, hub.Internal("encode "+path, err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), true, nil
}

// tomlString renders s as a TOML basic string (JSON escapes are valid TOML).
func tomlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(buf.String())
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlString(x)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, tomlValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(x))
		for _, k := range keys {
			parts = append(parts, tomlKey(k)+" = "+tomlValue(x[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprint(v)
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tomlTable renders the server entry as a [mcp_servers.<name>] table.
func tomlTable(name string, entry map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", tomlKey(name))
	for _, k := range []string{"command", "args", "env"} {
		if v, ok := entry[k]; ok {
			fmt.Fprintf(&b, "%s = %s\n", k, tomlValue(v))
		}
	}
	return b.String()
}

// tableHeader matches a TOML table header line: [a.b] or [[a.b]].
var tableHeader = regexp.MustCompile(`^\s*\[`)

// mergeTOMLServer sets [mcp_servers.<name>] in a TOML config by editing the
// text: the table is appended when absent, or its lines (with its
// sub-tables) replaced when it differs, so every other line — comments
// included — stays as it was. The result is parsed again and must hold
// exactly the old document plus the new entry; otherwise nothing is
// written.
func mergeTOMLServer(path string, old []byte, name string, entry map[string]any) ([]byte, bool, error) {
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s is not valid TOML (%s): fix or move it; nothing was written", path, oneLineErr(err))
	}
	if doc == nil {
		doc = map[string]any{}
	}
	want := normalizeTOML(entry)
	servers, isMap := doc["mcp_servers"].(map[string]any)
	if doc["mcp_servers"] != nil && !isMap {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: mcp_servers is not a table; nothing was written", path)
	}
	if cur, ok := servers[name]; ok && reflect.DeepEqual(normalizeTOML(cur), want) {
		return old, false, nil
	}
	table := tomlTable(name, entry)
	var out string
	if _, exists := servers[name]; !exists {
		text := string(old)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if strings.TrimSpace(text) != "" {
			text += "\n"
		}
		out = text + table
	} else {
		lines := strings.SplitAfter(string(old), "\n")
		header := regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*("` + regexp.QuoteMeta(name) + `"|` + regexp.QuoteMeta(name) + `)\s*(\]|\.)`)
		start, end := -1, len(lines)
		for i, l := range lines {
			if start < 0 {
				if header.MatchString(l) {
					start = i
				}
				continue
			}
			if tableHeader.MatchString(l) && !header.MatchString(l) {
				end = i
				break
			}
		}
		if start < 0 {
			return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s defines mcp_servers.%s in a form bb cannot edit safely: replace it with the entry from 'bb install codex --print'; nothing was written", path, name)
		}
		// Keep the blank lines and comments that precede the next table.
		for end > start+1 && isBlankOrComment(lines[end-1]) {
			end--
		}
		out = strings.Join(lines[:start], "") + table + strings.Join(lines[end:], "")
	}
	// Verify: the edited file must parse to the old document plus the entry.
	var got map[string]any
	if err := toml.Unmarshal([]byte(out), &got); err != nil {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: cannot add mcp_servers.%s safely (%s): add the entry from 'bb install codex --print' by hand; nothing was written", path, name, oneLineErr(err))
	}
	exp := normalizeTOML(doc).(map[string]any)
	expServers, _ := exp["mcp_servers"].(map[string]any)
	if expServers == nil {
		expServers = map[string]any{}
	}
	expServers[name] = want
	exp["mcp_servers"] = expServers
	if !reflect.DeepEqual(normalizeTOML(got), exp) {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: cannot add mcp_servers.%s without changing other settings: add the entry from 'bb install codex --print' by hand; nothing was written", path, name)
	}
	return []byte(out), true, nil
}

func isBlankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

// normalizeTOML maps decoded TOML and our entry to comparable values.
func normalizeTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalizeTOML(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = normalizeTOML(e)
		}
		return s
	case []string:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = e
		}
		return s
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		return m
	}
	return v
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
