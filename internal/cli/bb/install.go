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
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

// mcpClient describes where one coding-agent client reads its MCP servers.
type mcpClient struct {
	Name        string
	LocalPath   string // relative to the project directory
	GlobalPath  string // relative to $HOME
	DefaultID   string
	AlwaysAllow bool
}

// BoardToolNames are the MCP tools of seed 003 §7.2.
var BoardToolNames = []string{"bb_identify", "bb_set_status", "bb_get_status", "bb_post_message", "bb_read_messages",
	"bb_register_artifact", "bb_list_artifacts", "bb_find_refs", "bb_summary"}

func mcpClients() []mcpClient {
	return []mcpClient{
		{Name: "claude", LocalPath: ".mcp.json", GlobalPath: ".claude.json", DefaultID: "claude-01", AlwaysAllow: true},
		{Name: "kimi", LocalPath: ".mcp.json", GlobalPath: filepath.Join(".kimi", "mcp.json"), DefaultID: "kimi-01"},
		{Name: "kilo", LocalPath: filepath.Join(".kilocode", "mcp.json"), GlobalPath: filepath.Join(".kilocode", "cli", "global", "settings", "mcp_settings.json"), DefaultID: "kilo-01", AlwaysAllow: true},
	}
}

func clientNames() []string {
	var out []string
	for _, c := range mcpClients() {
		out = append(out, c.Name)
	}
	return out
}

func (a *app) installCmd() *cobra.Command {
	var tool, agent string
	var global, local, writeFiles bool
	c := &cobra.Command{
		Use:   "install [" + strings.Join(clientNames(), "|") + "]",
		Short: "Print (or write) the MCP configuration that starts `bb mcp` for a coding agent",
		Long: `Show the MCP server entry a coding-agent client needs to talk to this board
through 'bb mcp', and where it goes. With --write, merge it into that file:
other servers and settings in the file are kept, and running it twice
changes nothing. Without a client name, every supported client is shown.

Files (project = --dir/$BB_DIR/working directory; global = your home):
  claude  project .mcp.json              global ~/.claude.json
  kimi    project .mcp.json              global ~/.kimi/mcp.json
  kilo    project .kilocode/mcp.json     global ~/.kilocode/cli/global/settings/mcp_settings.json`,
		Example: `  bb install claude              # print the entry for Claude Code
  bb install claude --write      # merge it into ./.mcp.json
  bb install kilo --global --write --agent kilo-reviewer`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if tool != "" && !strings.EqualFold(tool, args[0]) {
					return hub.Errorf(hub.CodeInvalidInput, "client given twice: %q and --tool %q", args[0], tool)
				}
				tool = args[0]
			}
			if global && local {
				return hub.FieldErr(hub.CodeInvalidInput, "global", "--global and --local are exclusive")
			}
			var selected []mcpClient
			for _, cl := range mcpClients() {
				if tool == "" || strings.EqualFold(tool, cl.Name) {
					selected = append(selected, cl)
				}
			}
			if len(selected) == 0 {
				return hub.FieldErr(hub.CodeInvalidInput, "tool", "unknown client %q: expected one of %s", tool, strings.Join(clientNames(), ", "))
			}
			if agent != "" {
				if err := hub.ValidateBoardAgentID(agent); err != nil {
					return err
				}
			}
			exe := a.env.Exe
			if exe == "" {
				exe = "bb"
			}
			base, err := a.targetDir()
			if err != nil {
				return err
			}
			if global {
				home := a.env.Getenv("HOME")
				if home == "" {
					return hub.Errorf(hub.CodeInvalidInput, "HOME is not set: cannot find the global configuration")
				}
				base = home
			}
			var results []map[string]any
			for _, cl := range selected {
				id := agent
				if id == "" {
					id = cl.DefaultID
				}
				entry := map[string]any{"command": exe, "args": []string{"mcp", "--agent", id}, "env": map[string]string{"BB_AGENT_ID": id}}
				if cl.AlwaysAllow {
					entry["alwaysAllow"] = BoardToolNames
				}
				rel := cl.LocalPath
				if global {
					rel = cl.GlobalPath
				}
				path := filepath.Join(base, rel)
				r := map[string]any{"client": cl.Name, "path": path, "agent_id": id, "entry": map[string]any{"blackboard": entry}, "written": false}
				if writeFiles {
					changed, err := mergeMCPConfig(path, "blackboard", entry)
					if err != nil {
						return err
					}
					r["written"], r["changed"] = true, changed
				}
				results = append(results, r)
			}
			return a.reply(cmd, results, func(w io.Writer) {
				fmt.Fprintln(w, "Blackboard MCP Installation")
				fmt.Fprintln(w, strings.Repeat("=", 27))
				for _, r := range results {
					fmt.Fprintln(w)
					if r["written"] == true {
						if r["changed"] == true {
							fmt.Fprintf(w, "Installed to: %s (%s, agent %s)\n", r["path"], r["client"], r["agent_id"])
						} else {
							fmt.Fprintf(w, "Already installed in: %s (%s)\n", r["path"], r["client"])
						}
						continue
					}
					fmt.Fprintf(w, "%s → add to %s under \"mcpServers\":\n", r["client"], r["path"])
					var buf bytes.Buffer
					enc := json.NewEncoder(&buf)
					enc.SetEscapeHTML(false)
					enc.SetIndent("", "  ")
					_ = enc.Encode(r["entry"])
					fmt.Fprint(w, buf.String())
				}
				fmt.Fprintln(w)
				if !writeFiles {
					fmt.Fprintln(w, "Run again with --write to merge this into the file.")
				}
				fmt.Fprintln(w, "Note: restart your agent after configuration.")
			})
		},
	}
	f := c.Flags()
	f.StringVar(&tool, "tool", "", "client to configure (same as the positional name)")
	f.BoolVar(&global, "global", false, "configure the client for every project (file in your home)")
	f.BoolVar(&local, "local", false, "configure this project only (default)")
	f.BoolVar(&writeFiles, "write", false, "merge the entry into the configuration file")
	f.StringVar(&agent, "agent", "", "agent id the MCP server acts as (default <client>-01)")
	return c
}

// mergeMCPConfig sets mcpServers[name] = entry in the JSON file at path,
// keeping every other key. It reports whether the file changed. A file that
// is not a JSON object is an error (nothing is overwritten).
func mergeMCPConfig(path, name string, entry map[string]any) (bool, error) {
	doc := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case err == nil && len(bytes.TrimSpace(b)) > 0:
		if err := json.Unmarshal(b, &doc); err != nil {
			return false, hub.Errorf(hub.CodeInvalidInput, "%s is not valid JSON (%v): fix or move it, nothing was written", path, err)
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read " + path, Err: err}
	}
	servers, _ := doc["mcpServers"].(map[string]any)
	if servers == nil {
		if _, exists := doc["mcpServers"]; exists {
			return false, hub.Errorf(hub.CodeInvalidInput, "%s: \"mcpServers\" is not an object, nothing was written", path)
		}
		servers = map[string]any{}
	}
	old, _ := json.Marshal(servers[name])
	normalized, _ := json.Marshal(entry)
	if bytes.Equal(old, normalized) {
		return false, nil
	}
	var e any
	_ = json.Unmarshal(normalized, &e)
	servers[name] = e
	doc["mcpServers"] = servers
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return false, hub.Internal("encode config", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create " + filepath.Dir(path), Err: err}
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp := path + ".bb-tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), mode); err != nil {
		return false, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + path, Err: err}
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return false, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + path, Err: err}
	}
	return true, nil
}
