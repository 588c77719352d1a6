package install

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub"
)

// mcpServerName is the key of Blackboard's MCP entry in a client's config.
// Clients that share one file (Claude Code and Kimi CLI both read the
// project's .mcp.json) get distinct names so both stay installed.
const mcpServerName = "blackboard"

// hookStyle is the shape of one client's hook configuration.
type hookStyle int

const (
	// styleMatcherGroups: "hooks": {"<Event>": [{"matcher": …, "hooks":
	// [{"type": "command", "command": …}]}]} (Claude Code, Codex CLI).
	styleMatcherGroups hookStyle = iota
	// styleGemini: matcher groups whose handlers also carry a "name".
	styleGemini
	// styleFlat: {"version": 1, "hooks": {"<event>": [{"command": …,
	// "matcher": …}]}} (Cursor).
	styleFlat
	// stylePlugin: a whole JavaScript plugin file bb writes, which runs
	// bb hook at the client's plugin hooks (OpenCode; plugin.go).
	stylePlugin
)

// hookConfig is where and how a client reads its hooks. The events wired
// are the ones the hook runtime acts on, hookio.Events(client).
type hookConfig struct {
	Local, Global string // relative to the project / to $HOME
	Style         hookStyle
	// Skeleton is the content of a file bb creates ("{}" when empty).
	Skeleton string
	// NotCovered says what the client's hook events cannot do for
	// Blackboard.
	NotCovered string
	// Private is true when the project's hooks file is kept out of git
	// (Claude Code's settings.local.json): only there may an entry pin
	// this machine's project path (--dir). Every other project file is
	// meant to be committed, so its entries find the board from the
	// directory the client runs them in.
	Private bool
	// MCPHooks is true when the client can have its hooks answered by an
	// MCP server the session already runs (Claude Code's "mcp_tool" hooks):
	// with HookTypeMCP every event but the session start is wired to bb
	// mcp's hidden hook tool instead of a bb process per event.
	MCPHooks bool
	// GuardWake runs the waiter's command behind headlessGuard.
	GuardWake bool
}

// How the hooks of a client with MCPHooks are wired (Options.HookType).
const (
	// HookTypeMCP: answered by the session's bb mcp (mcp_tool handlers);
	// the session start stays a command (a client runs no MCP tool before
	// its servers connect).
	HookTypeMCP = "mcp"
	// HookTypeCommand: a `bb hook` process per event, for client versions
	// without mcp_tool hooks.
	HookTypeCommand = "command"
)

// HookTypeFor is the hook type bb install writes for client at version
// (its `--version`; "" when unknown): HookTypeMCP for a client with
// MCPHooks unless its version is known to predate them.
func HookTypeFor(client, version string) string {
	if client != "claude" {
		return HookTypeCommand
	}
	if version != "" && versionLess(version, ClaudeMCPHooksSince) {
		return HookTypeCommand
	}
	return HookTypeMCP
}

// versionLess compares dotted version numbers (a leading "v" and anything
// after the numbers ignored); a version that does not parse is not less.
func versionLess(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	if pa == nil || pb == nil {
		return false
	}
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

var versionRe = regexp.MustCompile(`^v?(\d+(?:\.\d+)*)`)

func versionParts(v string) []int {
	m := versionRe.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return nil
	}
	var out []int
	for _, p := range strings.Split(m[1], ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// ClaudeMCPHooksSince is the first Claude Code version with "mcp_tool"
// hooks (its release notes of 2.1.118: "Hooks can now invoke MCP tools
// directly via type: mcp_tool").
const ClaudeMCPHooksSince = "2.1.118"

// Client describes one coding-agent client: its MCP server file and,
// when its documented hook system allows it, its hook file.
type Client struct {
	Name  string
	Title string
	// TOML clients (Codex) keep servers in [mcp_servers.<name>] tables;
	// the others in a JSON object "mcpServers".
	TOML       bool
	LocalPath  string // relative to the project directory
	GlobalPath string // relative to $HOME
	// Server is the MCP entry's name in the file.
	Server string
	// AlwaysAllow lists the tools in the entry's alwaysAllow (Kilo Code
	// asks before each call otherwise).
	AlwaysAllow bool
	// OpenCodeMCP: the servers are in the object "mcp", each entry
	// {"type": "local", "command": [program, args…], "enabled": true}.
	OpenCodeMCP bool
	Hooks       *hookConfig
	// NoHooks says why the client gets the MCP entry only.
	NoHooks string
	// WorktreeInclude is a git-ignored hook file the client copies into
	// the work trees it creates when .worktreeinclude at the repository
	// root names it (worktree.go).
	WorktreeInclude string
	// Wakes is true when bb install wires a waiter that wakes an idle
	// session of the client when something arrives for its agent
	// (`bb hook <client> wake`); WakeNote says how it is woken, or why it
	// cannot be and what happens instead (docs/hooks.md, "An idle
	// session").
	Wakes    bool
	WakeNote string
}

// notWoken is the note of a client whose idle session bb cannot wake:
// why, then what happens instead.
func notWoken(why string) string {
	return why + "; mail sent to an idle session waits until its next prompt"
}

// Claude Code: MCP servers in .mcp.json (project) or ~/.claude.json;
// hooks in .claude/settings.local.json (project, kept out of git by
// Claude Code — the right place for a command that pins this machine's
// project path) or ~/.claude/settings.json, as event -> matcher groups ->
// command handlers; matcher is a tool-name regex for PreToolUse and
// PostToolUse. https://docs.claude.com/en/docs/claude-code/hooks and
// https://docs.claude.com/en/docs/claude-code/settings
var claudeHooks = &hookConfig{
	Local: filepath.Join(".claude", "settings.local.json"), Global: filepath.Join(".claude", "settings.json"),
	Style: styleMatcherGroups, Skeleton: "{}", Private: true, MCPHooks: true, GuardWake: true,
}

// Codex CLI: hooks in hooks.json next to an active config layer
// (<repo>/.codex/hooks.json, ~/.codex/hooks.json), same event -> matcher
// group -> handler shape as Claude Code; file edits arrive as tool_name
// "apply_patch", and matchers also accept Edit and Write for them. Project
// layers load only in trusted projects.
// https://developers.openai.com/codex/hooks
var codexHooks = &hookConfig{
	Local: filepath.Join(".codex", "hooks.json"), Global: filepath.Join(".codex", "hooks.json"),
	Style: styleMatcherGroups, Skeleton: "{}",
	NotCovered: "edits Codex makes through shell commands rather than apply_patch are not checked before they happen (the git guard still catches them at commit)",
}

// Gemini CLI: hooks in the "hooks" object of .gemini/settings.json (or
// ~/.gemini/settings.json), event -> matcher groups -> handlers with a
// name; file-writing tools are write_file and replace.
// https://geminicli.com/docs/hooks/reference and
// https://geminicli.com/docs/hooks/writing-hooks
var geminiHooks = &hookConfig{
	Local: filepath.Join(".gemini", "settings.json"), Global: filepath.Join(".gemini", "settings.json"),
	Style: styleGemini, Skeleton: "{}",
	NotCovered: "files changed by run_shell_command are not checked before they happen (the git guard still catches them at commit)",
}

// Cursor: hooks in .cursor/hooks.json (project) or ~/.cursor/hooks.json,
// {"version": 1, "hooks": {"<event>": [{"command": …}]}} with flat
// entries. beforeSubmitPrompt cannot add context, so new mail reaches the
// agent at session start, after tool calls (postToolUse additional_context)
// and at stop only.
// https://cursor.com/docs/hooks
var cursorHooks = &hookConfig{
	Local: filepath.Join(".cursor", "hooks.json"), Global: filepath.Join(".cursor", "hooks.json"),
	Style: styleFlat, Skeleton: "{\n  \"version\": 1\n}",
	NotCovered: "no context can be added before a prompt (beforeSubmitPrompt only allows or blocks), so mail arrives at session start, after tool calls and at stop; Cursor also runs Claude Code's hooks from .claude/ — with both installed, events may fire twice",
}

// GitHub Copilot CLI: hooks in any .github/hooks/*.json of the repository
// (bb writes its own file, blackboard.json) or ~/.copilot/hooks/*.json
// ($COPILOT_HOME/hooks), {"version": 1, "hooks": {"<event>": [{"command":
// …, "matcher": …}]}} with flat entries ("type" defaults to "command",
// "command" is the cross-platform form of "bash"/"powershell"); camelCase
// event names get camelCase payloads. Repository hooks and the workspace
// MCP file load only in a trusted folder. Copilot also reads Claude Code's
// .claude/settings*.json hooks: with both installed, events may fire twice.
// https://docs.github.com/en/copilot/reference/hooks-reference
var copilotHooks = &hookConfig{
	Local: filepath.Join(".github", "hooks", "blackboard.json"), Global: filepath.Join(".copilot", "hooks", "blackboard.json"),
	Style: styleFlat, Skeleton: "{\n  \"version\": 1\n}",
	NotCovered: "files changed by shell commands are not checked before they happen (the git guard still catches them); Copilot CLI also runs Claude Code's hooks from .claude/settings*.json — with both installed, events may fire twice",
}

// Qwen Code: MCP servers and hooks in .qwen/settings.json (or
// ~/.qwen/settings.json), hooks in Claude Code's shape (event -> matcher
// groups -> command handlers) and wire format; file-writing tools are
// write_file and edit.
// https://qwenlm.github.io/qwen-code-docs/en/users/features/hooks and
// https://qwenlm.github.io/qwen-code-docs/en/users/features/mcp
var qwenHooks = &hookConfig{
	Local: filepath.Join(".qwen", "settings.json"), Global: filepath.Join(".qwen", "settings.json"),
	Style: styleMatcherGroups, Skeleton: "{}",
	NotCovered: "files changed by run_shell_command are not checked before they happen (the git guard still catches them at commit)",
}

// OpenCode: no command hooks; bb writes a plugin file, loaded at startup
// from .opencode/plugins/ (project) or ~/.config/opencode/plugins/.
// https://opencode.ai/docs/plugins
var opencodeHooks = &hookConfig{
	Local: filepath.Join(".opencode", "plugins", "blackboard.js"), Global: filepath.Join(".config", "opencode", "plugins", "blackboard.js"),
	Style:      stylePlugin,
	NotCovered: "no end-of-turn reminder in a one-shot `opencode run` (it exits as soon as the turn ends; the TUI and opencode serve get it); files changed by bash are not checked before they happen (the git guard still catches them); OpenCode also reads Claude Code's files unless OPENCODE_DISABLE_CLAUDE_CODE is set",
}

// Clients are the clients bb installs for, each titled, and marked as one
// whose idle session is woken, by the core's facts (hub.Client).
func Clients() []Client {
	cs := []Client{
		{Name: "claude", LocalPath: ".mcp.json", GlobalPath: ".claude.json", Server: mcpServerName, Hooks: claudeHooks,
			WorktreeInclude: claudeHooks.Local,
			// TestClaudeCodeWake: an interactive session is woken (2.1.328).
			WakeNote: "an idle session is woken when mail arrives (an asyncRewake hook armed at SessionStart and after every turn; not in claude -p or the Agent SDK, which wait for background hooks before they exit, so no waiter starts there)"},
		{Name: "codex", TOML: true, LocalPath: filepath.Join(".codex", "config.toml"), GlobalPath: filepath.Join(".codex", "config.toml"), Server: mcpServerName, Hooks: codexHooks,
			// Codex hooks run in the turn and wait for the hook; an outside
			// process reaches a thread only as a client of an app-server
			// (turn/start). docs/hooks.md has what was found on 0.169.0.
			WakeNote: notWoken("Codex CLI cannot be woken: its hooks run only inside a turn, and bb does not drive the app-server a running codex session talks to")},
		{Name: "gemini", LocalPath: filepath.Join(".gemini", "settings.json"), GlobalPath: filepath.Join(".gemini", "settings.json"), Server: mcpServerName, Hooks: geminiHooks,
			// "Hooks run synchronously as part of the agent loop"
			// (https://geminicli.com/docs/hooks); nothing runs in the
			// background or starts a turn.
			WakeNote: notWoken("Gemini CLI cannot be woken: its hooks run only inside a turn, none in the background")},
		{Name: "cursor", LocalPath: filepath.Join(".cursor", "mcp.json"), GlobalPath: filepath.Join(".cursor", "mcp.json"), Server: mcpServerName, Hooks: cursorHooks,
			WakeNote: notWoken("Cursor cannot be woken: its hooks run only inside a turn")},
		// Copilot CLI reads workspace MCP servers from .mcp.json or
		// .github/mcp.json; bb takes .github/mcp.json, so Claude Code's
		// .mcp.json entry stays Claude's. User-wide:
		// ~/.copilot/mcp-config.json ($COPILOT_HOME). `copilot mcp --help`.
		{Name: "copilot", LocalPath: filepath.Join(".github", "mcp.json"), GlobalPath: filepath.Join(".copilot", "mcp-config.json"), Server: mcpServerName, Hooks: copilotHooks,
			WakeNote: notWoken("GitHub Copilot CLI cannot be woken: its hooks run only inside a turn, none in the background (it reads Claude Code's hook files but not their asyncRewake)")},
		{Name: "qwen", LocalPath: filepath.Join(".qwen", "settings.json"), GlobalPath: filepath.Join(".qwen", "settings.json"), Server: mcpServerName, Hooks: qwenHooks,
			WakeNote: notWoken("Qwen Code cannot be woken: its hooks run only inside a turn, none in the background")},
		// OpenCode: MCP servers in the "mcp" object of opencode.json
		// (project root) or ~/.config/opencode/opencode.json.
		// https://opencode.ai/docs/mcp-servers and https://opencode.ai/docs/config
		{Name: "opencode", LocalPath: "opencode.json", GlobalPath: filepath.Join(".config", "opencode", "opencode.json"), Server: mcpServerName, OpenCodeMCP: true, Hooks: opencodeHooks,
			// TestOpenCodeWake (opencode-ai 1.18.33, serve mode).
			WakeNote: "an idle session is woken when mail arrives (bb's plugin runs a waiter at session.idle and sends what arrives as the session's next prompt; not in a one-shot opencode run)"},
		// Kimi CLI reads hooks only from [[hooks]] tables of the user-wide
		// ~/.kimi/config.toml, which would fire in every project.
		// https://moonshotai.github.io/kimi-cli/en/customization/hooks.html
		{Name: "kimi", LocalPath: ".mcp.json", GlobalPath: filepath.Join(".kimi", "mcp.json"), Server: mcpServerName + "-kimi",
			NoHooks:  "Kimi CLI reads hooks only from the user-wide ~/.kimi/config.toml; bb writes the MCP entry only",
			WakeNote: notWoken("Kimi CLI cannot be woken: bb installs no hooks for it")},
		// Kilo Code extends its agent with TypeScript plugins, not command
		// hooks. https://kilo.ai/docs/automate/extending/plugins
		{Name: "kilo", LocalPath: filepath.Join(".kilocode", "mcp.json"), GlobalPath: filepath.Join(".kilocode", "cli", "global", "settings", "mcp_settings.json"), Server: mcpServerName, AlwaysAllow: true,
			NoHooks:  "Kilo Code has no command hooks (only TypeScript plugins); bb writes the MCP entry only",
			WakeNote: notWoken("Kilo Code cannot be woken: bb installs no hooks for it")},
	}
	for i := range cs {
		f := hub.Client(cs[i].Name)
		cs[i].Title, cs[i].Wakes = f.Title, f.Wakes
	}
	return cs
}

func ClientNames() []string {
	var out []string
	for _, c := range Clients() {
		out = append(out, c.Name)
	}
	return out
}

func eventNames(client string) []string {
	var out []string
	for _, e := range hookio.Events(client) {
		out = append(out, e.Name)
	}
	return out
}

// wakeTimeout is the timeout, in seconds, of the waiter's hook entry.
// Claude Code kills an asyncRewake hook when its timeout runs out (the
// hook's shell command is started with it: a waiter with "timeout": 4 was
// gone 4 s into an idle session, which was not woken: a trial
// on 2.1.328, interactive), and without one the default hook
// timeout applies. The waiter ends itself long before (when its
// session's client ends, or a newer waiter takes over), so a week never
// cuts an idle session off; it stays below the 2^31-1 ms a JavaScript
// timer holds.
const wakeTimeout = 7 * 24 * 3600

// rewakePrefix heads what a wake puts into Claude Code's context: the
// entry's rewakeMessage, the "Custom prefix for the system-reminder shown
// to the model when an asyncRewake hook exits with code 2" (the hook
// schema of 2.1.328, marked @internal); without it the client's own
// prefix calls the delivery a "Stop hook blocking error from command".
// The model reads "<system-reminder>\n<rewakeMessage> <stderr>".
const rewakePrefix = "[Blackboard] This idle session was woken by the board:"

// rewakeSummary is the entry's rewakeSummary: the "One-line summary shown
// to the user in the terminal when an asyncRewake hook exits with code 2"
// (2.1.328's hook schema, @internal), which the model also reads as the
// <summary> of the wake's <task-notification>; without it, "Stop hook
// feedback".
const rewakeSummary = "Blackboard: new mail woke this session"

// hookEntry is the array element bb adds under hooks.<event>: handler
// (commandHandler or mcpHandler's) and, where the event arms the idle
// session's waiter, the waiter's command.
func (h *hookConfig) hookEntry(ev hookio.EventSpec, handler orderedMap, wake string) any {
	switch h.Style {
	case styleFlat:
		e := map[string]any{"command": handler.vals["command"]}
		if ev.Matcher != "" {
			e["matcher"] = ev.Matcher
		}
		return orderedEntry(e, "command", "matcher")
	default:
		if h.Style == styleGemini {
			handler.vals["name"] = mcpServerName
			handler.keys = append([]string{"name"}, handler.keys...)
		}
		handlers := []any{handler}
		if ev.Wakes && wake != "" {
			w := map[string]any{"type": "command", "command": wake, "asyncRewake": true, "timeout": wakeTimeout,
				"rewakeMessage": rewakePrefix, "rewakeSummary": rewakeSummary}
			handlers = append(handlers, orderedEntry(w, "type", "command", "asyncRewake", "timeout", "rewakeMessage", "rewakeSummary"))
		}
		g := map[string]any{"hooks": handlers}
		if ev.Matcher != "" {
			g["matcher"] = ev.Matcher
		}
		return orderedEntry(g, "matcher", "hooks")
	}
}

// commandHandler is a hook handler that runs command.
func commandHandler(command string) orderedMap {
	return orderedEntry(map[string]any{"type": "command", "command": command}, "type", "command")
}

// mcpHookTimeout is an mcp_tool handler's timeout in seconds: past the
// hook's own budget (8 s, after which it answers nothing and the work goes
// on), so the client gives up on a server that does not answer at all
// soon, and runs the tool call anyway (fails open).
const mcpHookTimeout = 10

// MCPHookTool is bb mcp's hidden tool that answers hooks (internal/mcp
// HookTool; install does not link the MCP server, a test holds them equal).
const MCPHookTool = "bb_hook"

// mcpHandler is a hook handler that asks the session's bb mcp (server,
// as named in the client's MCP file) to answer ev: an "mcp_tool" handler
// whose input names the client and event and carries, filled in by the
// client from its hook input, the fields bb hook reads for that event —
// for an edit only the paths, not the file's content.
// https://code.claude.com/docs/en/hooks (mcp_tool hooks: "server",
// "tool", "input" with ${path} placeholders, "timeout").
func mcpHandler(client, server string, ev hookio.EventSpec, agent string) orderedMap {
	in := map[string]any{"bb_client": client, "bb_event": ev.Name, "session_id": "${session_id}", "cwd": "${cwd}"}
	keys := []string{"bb_client", "bb_event", "session_id", "cwd"}
	switch ev.Kind {
	case hookio.KindPreTool:
		in["tool_name"] = "${tool_name}"
		in["tool_input"] = orderedEntry(map[string]any{"file_path": "${tool_input.file_path}", "notebook_path": "${tool_input.notebook_path}"}, "file_path", "notebook_path")
		keys = append(keys, "tool_name", "tool_input")
	case hookio.KindPostTool:
		in["tool_name"] = "${tool_name}"
		keys = append(keys, "tool_name")
	case hookio.KindStop:
		in["stop_hook_active"] = "${stop_hook_active}"
		keys = append(keys, "stop_hook_active")
	}
	if agent != "" {
		in["bb_agent"] = agent
		keys = append(keys, "bb_agent")
	}
	return orderedEntry(map[string]any{"type": "mcp_tool", "server": server, "tool": MCPHookTool, "input": orderedEntry(in, keys...), "timeout": mcpHookTimeout},
		"type", "server", "tool", "input", "timeout")
}

// headlessGuard runs command only outside a headless Claude Code run:
// claude -p and the Agent SDK (CLAUDE_CODE_ENTRYPOINT sdk-cli, sdk-ts,
// sdk-py, which it exports to its hooks) wait for a background hook before
// they exit, so no waiter may start there (bb hook claude wake would end
// at once; the guard spares its process). Claude Code runs a hook's
// command with a POSIX shell (Git Bash on Windows) unless the entry asks
// for PowerShell.
//
// The waiter's command also names the client to the waiter: the shell's
// $PPID is the process that started the shell, set as the shell starts,
// so it stays Claude Code's even when Claude Code ends before the waiter
// looks up its own parents (bb hook wake then sees its way up no longer
// passes it, and starts no waiter that would outlive its session).
func headlessGuard(command string) string {
	return `[ "${CLAUDE_CODE_ENTRYPOINT#sdk-}" != "$CLAUDE_CODE_ENTRYPOINT" ] || BB_WAKE_CLIENT_PID=$PPID ` + command
}

// bbHookCommand matches the hook commands bb writes: `bb hook <client>
// <event> …`, with bb bare, as a path, or quoted.
var bbHookCommand = regexp.MustCompile(`(^|[\s/\\])bb(\.exe)?'?\s+hook\s+(\S+)\s+\S+`)

// isOurHookEntry reports whether an element of hooks.<event> is one bb
// added for client (any of its handlers runs `bb hook <client>`, or asks
// bb mcp's hook tool for client).
func isOurHookEntry(raw, client string) bool {
	cmd, _ := ourHandler(raw, client)
	return cmd != ""
}

// hookHandlerJSON is what bb reads of a hook entry's handler.
type hookHandlerJSON struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Server  string `json:"server"`
	Tool    string `json:"tool"`
	Input   struct {
		Client string `json:"bb_client"`
	} `json:"input"`
}

// ourHandler is, for a hook entry (a flat handler or a matcher group), the
// first of its handlers that is bb's for client: its command, or for an
// mcp_tool handler "mcp_tool <server> <tool>", and its HookType; "" when
// none is.
func ourHandler(raw, client string) (command, hookType string) {
	var e struct {
		hookHandlerJSON
		Hooks []hookHandlerJSON `json:"hooks"`
	}
	if decodeJSONC(raw, &e) != nil {
		return "", ""
	}
	for _, h := range append([]hookHandlerJSON{e.hookHandlerJSON}, e.Hooks...) {
		if m := bbHookCommand.FindStringSubmatch(h.Command); m != nil && m[3] == client {
			return h.Command, HookTypeCommand
		}
		if h.Type == "mcp_tool" && h.Tool == MCPHookTool && strings.EqualFold(h.Input.Client, client) {
			return "mcp_tool " + h.Server + " " + h.Tool, HookTypeMCP
		}
	}
	return "", ""
}

// mcpKey is the object of the client's file that holds MCP servers.
func (c Client) mcpKey() string {
	if c.OpenCodeMCP {
		return "mcp"
	}
	return "mcpServers"
}

// orderedMap is a JSON object that keeps its keys in the given order.
type orderedMap struct {
	keys []string
	vals map[string]any
}

func orderedEntry(m map[string]any, keys ...string) orderedMap {
	var ks []string
	for _, k := range keys {
		if _, ok := m[k]; ok {
			ks = append(ks, k)
		}
	}
	return orderedMap{keys: ks, vals: m}
}

func (o orderedMap) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshalNoEscape(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
