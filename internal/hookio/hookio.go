// Package hookio reads the hook payloads of coding-agent clients and writes
// their documented replies. It holds no board logic: it turns a client's
// JSON into one normalized Input and a decision back into exactly the JSON
// that client documents (or nothing).
//
// Documentation each client's shapes follow:
//   - Claude Code: https://code.claude.com/docs/en/hooks
//   - Codex CLI:   https://developers.openai.com/codex/hooks (same wire format as Claude Code;
//     apply_patch carries the patch in tool_input.command)
//   - Gemini CLI:  https://geminicli.com/docs/hooks/reference
//   - Cursor:      https://cursor.com/docs/hooks
//   - GitHub Copilot CLI: https://docs.github.com/en/copilot/reference/hooks-reference (the
//     camelCase event names: payload fields sessionId, toolName, toolArgs; replies
//     additionalContext, permissionDecision, decision/reason)
//   - Qwen Code:   https://qwenlm.github.io/qwen-code-docs/en/users/features/hooks (Claude
//     Code's event names and wire format; file tools write_file and edit)
//   - OpenCode:    https://opencode.ai/docs/plugins (no command hooks: the plugin bb install
//     writes runs bb hook at its plugin hooks, with Claude Code's payload and reply shapes)
package hookio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/blackboard-hub/bb/internal/termtext"
)

// Clients lists the supported clients.
var Clients = []string{"claude", "codex", "gemini", "cursor", "copilot", "qwen", "opencode"}

// Kind is what a hook event means to the board.
type Kind string

// Event kinds.
const (
	// KindStart is a session start: the brief is injected.
	KindStart Kind = "start"
	// KindPrompt is a prompt about to be processed: new mail is injected.
	KindPrompt Kind = "prompt"
	// KindPreTool is a tool about to run: edits are checked.
	KindPreTool Kind = "pre_tool"
	// KindPostTool is a tool that ran: new mail is injected.
	KindPostTool Kind = "post_tool"
	// KindStop is the end of a turn: the reminder is given.
	KindStop Kind = "stop"
	// KindEnd is the end of a session: the leases it was given at its
	// start are released.
	KindEnd Kind = "end"
	// KindNone is an event the board does not act on.
	KindNone Kind = ""
)

// EventSpec is one hook event a client documents and the board uses.
type EventSpec struct {
	// Name is the client's event name, verbatim (the config key and the
	// <event> argument of bb hook).
	Name string
	Kind Kind
	// Matcher is the tool-name pattern for tool events ("" = none).
	Matcher string
	// Except, for a tool event that runs for every tool but some, names
	// those tools ("Edit|Write"); Matcher is then the pattern that says so.
	Except string
	// Injects is true when the client adds this event's output to the
	// model's context.
	Injects bool
	// Wakes is true when bb install arms an idle-session waiter at this
	// event (`bb hook <client> wake`, run by the client in the background
	// and able to wake the idle session: Claude Code's asyncRewake).
	Wakes bool
}

// ClaudeEditTools are Claude Code's file-editing tools (its PreToolUse
// matcher).
const ClaudeEditTools = "Edit|Write|MultiEdit|NotebookEdit"

// codexEditTools are the names Codex CLI matches a file edit by
// (apply_patch, and its aliases Edit and Write).
const codexEditTools = "apply_patch|Edit|Write"

const copilotEditTools = "create|edit|str_replace_editor|apply_patch"

// Events returns the events the board uses for a client (nil for an
// unknown client). `bb install` writes exactly these.
func Events(client string) []EventSpec {
	switch client {
	case "claude":
		return []EventSpec{
			// SessionStart and Stop also arm the session's waiter: a command
			// hook with "asyncRewake": true runs in the background and, when
			// it exits with code 2, wakes the model even while the session
			// is idle, with the hook's stderr in a system reminder
			// (https://code.claude.com/docs/en/hooks, "Run hooks in the
			// background"; the hook schema of 2.1.328: "asyncRewake: If
			// true, hook runs in background and wakes the model on exit
			// code 2").
			{Name: "SessionStart", Kind: KindStart, Injects: true, Wakes: true},
			{Name: "UserPromptSubmit", Kind: KindPrompt, Injects: true},
			// PreToolUse of an edit tool also brings new mail (its
			// hookSpecificOutput.additionalContext), so PostToolUse runs
			// for every other tool only: one bb process per edit instead
			// of two, and mail still arrives mid-turn after every tool.
			// Claude Code tests a matcher that is not a plain list of
			// names as a JavaScript regular expression against the tool
			// name. https://code.claude.com/docs/en/hooks (matchers,
			// PreToolUse decision control).
			{Name: "PreToolUse", Kind: KindPreTool, Matcher: ClaudeEditTools, Injects: true},
			{Name: "PostToolUse", Kind: KindPostTool, Matcher: "^(?!(?:" + ClaudeEditTools + ")$)", Except: ClaudeEditTools, Injects: true},
			{Name: "Stop", Kind: KindStop, Injects: true, Wakes: true},
			// SessionEnd runs as the session ends (exit, /clear, logout);
			// its output reaches nobody, and Claude Code gives its hooks
			// 1.5 s by default (CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS in
			// 2.1.328). https://code.claude.com/docs/en/hooks#sessionend
			{Name: "SessionEnd", Kind: KindEnd},
		}
	case "codex":
		// As for Claude Code: Codex adds a PreToolUse hook's
		// hookSpecificOutput.additionalContext to the model's context when
		// it lets the tool run (developers.openai.com/codex/hooks,
		// PreToolUse; openai/codex#20692, in 0.169.0: its binary has no
		// "PreToolUse hook returned unsupported additionalContext" left,
		// and TestCodexCLI's own-edit step proves the mail arrives), so
		// PostToolUse runs for the other tools only. Codex matches a tool
		// name with Rust's regex crate, which has no look-around ("look-
		// around ... is not supported" in its binary): the matcher is
		// spelled without it (AllBut). An apply_patch call also matches
		// as Edit and Write, so those stay out too.
		return []EventSpec{
			{Name: "SessionStart", Kind: KindStart, Injects: true},
			{Name: "UserPromptSubmit", Kind: KindPrompt, Injects: true},
			{Name: "PreToolUse", Kind: KindPreTool, Matcher: codexEditTools, Injects: true},
			{Name: "PostToolUse", Kind: KindPostTool, Matcher: AllBut(codexEditTools), Except: codexEditTools, Injects: true},
			{Name: "Stop", Kind: KindStop, Injects: true},
			// SessionEnd, "Right before a session ends" (0.169.0's event
			// list): its payload is session_id, cwd, transcript_path and
			// reason, always "other" (the session-end.command.input schema
			// in 0.169.0's binary, with codex-rs/hooks/src/events/
			// session_end.rs; developers.openai.com/codex/hooks). Its
			// output reaches nobody. codex exec runs it as it exits:
			// TestCodexSessionEnd. Its timeout was not read from the
			// binary (bb writes none; a third-party installer reports that
			// Codex keeps SessionEnd hooks to a few seconds): bb hook's
			// release is one write, and the test's hook finished in time.
			{Name: "SessionEnd", Kind: KindEnd},
		}
	case "gemini":
		// AfterTool runs for every tool, edits included: a BeforeTool hook
		// cannot add context. Gemini CLI reads only its decision/reason
		// and hookSpecificOutput.tool_input (geminicli.com/docs/hooks/
		// reference, BeforeTool; 0.61.0's bundle applies nothing else when
		// the tool runs); TestGeminiCLI's own-edit step keeps that in view.
		return []EventSpec{
			{Name: "SessionStart", Kind: KindStart, Injects: true},
			{Name: "BeforeAgent", Kind: KindPrompt, Injects: true},
			{Name: "BeforeTool", Kind: KindPreTool, Matcher: "write_file|replace"},
			{Name: "AfterTool", Kind: KindPostTool, Injects: true},
			{Name: "AfterAgent", Kind: KindStop, Injects: true},
			// SessionEnd: on exit, /clear and logout (geminicli.com/docs/
			// hooks/reference; fireSessionEndEvent in 0.61.0's bundle).
			{Name: "SessionEnd", Kind: KindEnd},
		}
	case "cursor":
		return []EventSpec{
			{Name: "sessionStart", Kind: KindStart, Injects: true},
			{Name: "preToolUse", Kind: KindPreTool},
			{Name: "postToolUse", Kind: KindPostTool, Injects: true},
			{Name: "stop", Kind: KindStop, Injects: true},
		}
	case "copilot":
		// Matchers are regular expressions over the whole tool name; the
		// file-writing tools are create, edit (str_replace_editor) and
		// apply_patch. A preToolUse hook's additionalContext reaches the
		// model when the tool runs (a user message "Additional context from
		// preToolUse hook: …" after the tool's result), so postToolUse runs
		// for the other tools only. The CLI's hooks reference lists only
		// permissionDecision, permissionDecisionReason and modifiedArgs for
		// preToolUse; the SDK's (docs.github.com/en/copilot/how-tos/
		// copilot-sdk/use-hooks/pre-tool-use, and PreToolUseHookOutput in
		// 1.0.102's copilot-sdk/types.d.ts) has additionalContext, and the
		// same runtime applies it to command hooks: TestCopilotCLI's
		// own-edit step proves it with 1.0.102 and fails if a release stops.
		return []EventSpec{
			{Name: "sessionStart", Kind: KindStart, Injects: true},
			{Name: "userPromptSubmitted", Kind: KindPrompt, Injects: true},
			{Name: "preToolUse", Kind: KindPreTool, Matcher: copilotEditTools, Injects: true},
			{Name: "postToolUse", Kind: KindPostTool, Matcher: AllBut(copilotEditTools), Except: copilotEditTools, Injects: true},
			{Name: "agentStop", Kind: KindStop, Injects: true},
			// sessionEnd: payload sessionId, timestamp, cwd, reason
			// ("complete", "error", "abort", "timeout", "user_exit");
			// its output is not read (docs.github.com/en/copilot/reference/
			// hooks-reference; SessionEndHookInput in 1.0.102's
			// copilot-sdk/types.d.ts). A copilot -p run fires it once, as
			// it ends, after the agentStop continuations (1.0.102's
			// changelog.json: "Prompt-mode sessions fire a single sessionEnd
			// hook after Stop-hook continuations complete"); an interactive
			// session once, at its end or /clear. TestCopilotSessionEnd.
			{Name: "sessionEnd", Kind: KindEnd},
		}
	case "qwen":
		// Qwen Code's matchers are unanchored regular expressions over
		// the tool id ("edit" alone would also match notebook_edit).
		// PostToolUse runs for every tool, edits included: its hooks doc
		// lists additionalContext among PreToolUse's outputs, but 0.24.4
		// drops it when it lets the tool run (firePreToolUseHook returns
		// it; the scheduler and the ACP session only log it), which
		// TestQwenCode's own-edit step showed with the edits excluded.
		//
		// No session end. Qwen Code has a SessionEnd hook (payload
		// session_id, cwd, reason: clear, logout, prompt_input_exit,
		// bypass_permissions_disabled, other; timeout 60 s by default:
		// qwenlm.github.io/qwen-code-docs/en/users/features/hooks, and
		// bundled/qc-helper/docs/features/hooks.md in 0.24.4), but 0.24.4
		// fires it only as an interactive session exits or /clear runs,
		// and as an ACP session shuts down: fireSessionEndEvent's callers
		// are startInteractiveUI, start-opentui-ui, the /clear command and
		// acpAgent; nonInteractiveCli (qwen -p) has none. A trial with
		// SessionEnd wired (a qwen -p session given leases.session at its
		// start, exiting 0) released nothing. Wired, it would work for
		// the interactive terminal only, which no clienttest scenario
		// drives.
		return []EventSpec{
			{Name: "SessionStart", Kind: KindStart, Injects: true},
			{Name: "UserPromptSubmit", Kind: KindPrompt, Injects: true},
			{Name: "PreToolUse", Kind: KindPreTool, Matcher: "^(write_file|edit)$"},
			{Name: "PostToolUse", Kind: KindPostTool, Injects: true},
			{Name: "Stop", Kind: KindStop, Injects: true},
		}
	case "opencode":
		// The events of bb's OpenCode plugin, named after the plugin
		// hooks and bus events that run them; the plugin checks the
		// matcher itself. At session.idle (the end of a turn) the plugin
		// sends a reminder back as the session's next prompt, once.
		//
		// No session end: OpenCode 1.18.33's bus has no event for a
		// session that ends. session.deleted is the deletion of a stored
		// session (the user deletes it), not its end, and a one-shot
		// opencode run deletes nothing; server.instance.disposed is the
		// instance of a directory shutting down, for every session at
		// once (payload: directory only; the event schemas in its
		// binary's bundle; opencode.ai/docs/plugins, Events). The plugin
		// could end, at that event, each session it saw created: not
		// done, and not tried.
		return []EventSpec{
			{Name: "session.created", Kind: KindStart, Injects: true},
			{Name: "chat.message", Kind: KindPrompt, Injects: true},
			{Name: "tool.execute.before", Kind: KindPreTool, Matcher: "edit|write|patch|apply_patch|multiedit"},
			{Name: "tool.execute.after", Kind: KindPostTool, Injects: true},
			{Name: "session.idle", Kind: KindStop, Injects: true},
		}
	}
	return nil
}

// AllBut returns a regular expression that matches a whole tool name
// unless it is one of the names in list ("a|b|c"). It uses nothing but
// literals, classes, groups, alternation and anchors, which every client's
// engine reads alike (Rust's regex crate, Go's RE2, JavaScript), so no
// look-ahead: the complement of the names is spelled out over a trie of
// them. A name is matched when, read from the start, it leaves every
// listed name at some character, stops short of one, or runs past one.
func AllBut(list string) string {
	type node struct {
		next map[byte]*node
		end  bool
	}
	root := &node{next: map[byte]*node{}}
	for _, name := range strings.Split(list, "|") {
		n := root
		for i := 0; i < len(name); i++ {
			c := name[i]
			if n.next[c] == nil {
				n.next[c] = &node{next: map[byte]*node{}}
			}
			n = n.next[c]
		}
		n.end = true
	}
	lit := func(c byte) string {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			return string(c)
		}
		return fmt.Sprintf(`\x%02x`, c)
	}
	var rest func(n *node, top bool) string
	rest = func(n *node, top bool) string {
		keys := slices.Sorted(maps.Keys(n.next))
		if len(keys) == 0 {
			return ".+" // past a listed name
		}
		var class strings.Builder
		for _, c := range keys {
			class.WriteString(lit(c))
		}
		alts := []string{"[^" + class.String() + "].*"}
		for _, c := range keys {
			alts = append(alts, lit(c)+rest(n.next[c], false))
		}
		g := "(?:" + strings.Join(alts, "|") + ")"
		if !n.end && !top {
			g += "?" // or short of a listed name
		}
		return g
	}
	return "^" + rest(root, true) + "$"
}

// KindOf returns what event means for client (KindNone when the board does
// not use it). Names match case-insensitively.
func KindOf(client, event string) Kind {
	for _, e := range Events(client) {
		if strings.EqualFold(e.Name, event) {
			return e.Kind
		}
	}
	return KindNone
}

// specOf returns the client's spelling of event.
func specOf(client, event string) (EventSpec, bool) {
	for _, e := range Events(client) {
		if strings.EqualFold(e.Name, event) {
			return e, true
		}
	}
	return EventSpec{}, false
}

// Input is a hook payload reduced to what the board needs. Fields the
// payload lacks (or gives with another type) are empty.
type Input struct {
	SessionID string
	Cwd       string
	// Source is the session start's source (startup, resume, clear,
	// compact).
	Source   string
	ToolName string
	// Paths are the files an edit tool is about to write (absolute, or
	// relative to Cwd).
	Paths []string
	// StopActive is the client's "already continuing because of a stop
	// hook" flag (stop_hook_active; Cursor: loop_count > 0).
	StopActive bool
}

// MaxPayload bounds the payload read from stdin (Write carries the whole
// file content).
const MaxPayload = 32 << 20

// Parse reads a hook payload. Invalid JSON or a payload that is not an
// object yields ok=false; unknown fields are ignored and fields of an
// unexpected type read as empty.
func Parse(client string, data []byte) (Input, bool) {
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&m); err != nil || m == nil {
		return Input{}, false
	}
	in := Input{
		SessionID: str(m["session_id"]),
		Cwd:       str(m["cwd"]),
		Source:    str(m["source"]),
		ToolName:  str(m["tool_name"]),
	}
	if in.SessionID == "" {
		in.SessionID = str(m["conversation_id"]) // Cursor
	}
	if in.SessionID == "" {
		in.SessionID = str(m["sessionId"]) // Copilot CLI
	}
	if in.ToolName == "" {
		in.ToolName = str(m["toolName"]) // Copilot CLI
	}
	if in.Source == "" {
		in.Source = str(m["trigger"])
	}
	if in.Cwd == "" {
		var roots []string
		if json.Unmarshal(m["workspace_roots"], &roots) == nil && len(roots) > 0 {
			in.Cwd = roots[0]
		}
	}
	var active bool
	if json.Unmarshal(m["stop_hook_active"], &active) == nil && active {
		in.StopActive = true
	}
	var loops float64
	if json.Unmarshal(m["loop_count"], &loops) == nil && loops > 0 {
		in.StopActive = true
	}
	if in.ToolName != "" && IsEditTool(client, in.ToolName) {
		input := m["tool_input"]
		if len(input) == 0 {
			input = m["toolArgs"] // Copilot CLI
		}
		in.Paths = editPaths(input)
	}
	return in, true
}

// editTools are the tools that write files, per client.
var editTools = map[string][]string{
	"claude":   {"Edit", "Write", "MultiEdit", "NotebookEdit"},
	"codex":    {"apply_patch", "Edit", "Write"},
	"gemini":   {"write_file", "replace"},
	"cursor":   {"Write", "Edit", "MultiEdit", "StrReplace", "Delete", "EditNotebook"},
	"copilot":  {"create", "edit", "str_replace_editor", "apply_patch"},
	"qwen":     {"write_file", "edit"},
	"opencode": {"edit", "write", "patch", "apply_patch", "multiedit"},
}

// IsEditTool reports whether tool writes files in client. Cursor's
// preToolUse fires for every tool and its docs name no fixed list of file
// tools, so for Cursor a tool whose name speaks of writing, editing,
// replacing or deleting counts too.
func IsEditTool(client, tool string) bool {
	for _, t := range editTools[client] {
		if t == tool {
			return true
		}
	}
	if client == "cursor" {
		l := strings.ToLower(tool)
		for _, w := range []string{"write", "edit", "replace", "delete"} {
			if strings.Contains(l, w) {
				return true
			}
		}
	}
	return false
}

// editPaths finds the files in an edit tool's input: file_path (Claude,
// Gemini, Cursor), notebook_path (NotebookEdit), path/target_file, or the
// file headers of an apply_patch patch in command (Codex); tool_input may
// itself be a JSON string holding the object.
func editPaths(raw json.RawMessage) []string {
	var ti map[string]json.RawMessage
	if json.Unmarshal(raw, &ti) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &ti) != nil {
			if s != "" {
				return patchPaths(s)
			}
			return nil
		}
	}
	var out []string
	for _, k := range []string{"file_path", "notebook_path", "path", "target_file", "filePath"} {
		if p := rawStr(ti[k]); p != "" {
			out = append(out, p)
		}
	}
	if cmd := rawStr(ti["command"]); cmd != "" {
		out = append(out, patchPaths(cmd)...)
	}
	if cmd := rawStr(ti["patch"]); cmd != "" {
		out = append(out, patchPaths(cmd)...)
	}
	if cmd := rawStr(ti["patchText"]); cmd != "" { // OpenCode's apply_patch
		out = append(out, patchPaths(cmd)...)
	}
	return dedupe(out)
}

// patchPaths reads the files an apply_patch patch adds, updates, deletes or
// moves to ("*** Update File: path" …).
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if strings.HasPrefix(line, h) {
				if p := strings.TrimSpace(line[len(h):]); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return dedupe(out)
}

func dedupe(ps []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if !seen[p] && !strings.ContainsRune(p, 0) {
			seen[p] = true
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// rawStr is str for a path: the JSON string's bytes as sent. encoding/json
// turns invalid UTF-8 and unpaired surrogate escapes into U+FFFD, which
// would name another file (the edit check would reserve that name); here
// they stay invalid, so the board's rule for paths refuses them.
func rawStr(raw json.RawMessage) string {
	s := str(raw)
	if !strings.ContainsRune(s, utf8.RuneError) {
		return s
	}
	if kept, ok := unquoteKeep(bytes.TrimSpace(raw)); ok {
		return kept
	}
	return s
}

// unquoteKeep decodes a JSON string literal, keeping invalid UTF-8 bytes
// as they are and writing an unpaired surrogate escape as its (invalid)
// three-byte form.
func unquoteKeep(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	b := raw[1 : len(raw)-1]
	out := make([]byte, 0, len(b))
	hex4 := func(i int) (rune, bool) {
		if i+4 > len(b) {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
		return rune(v), err == nil
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		i++
		if i >= len(b) {
			return "", false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(i + 1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					if r2, ok := hex4(i + 3); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
				}
				out = append(out, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

func str(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Every text a reply carries is read by the model (and shown to the person
// in the client): it goes through termtext.Text, the rule of bb's human
// output, so stored control characters (C0, DEL, C1) and bidirectional
// overrides arrive as visible escapes, never as the characters themselves
// (JSON would carry them through). Newlines and tabs are kept.

// Context renders text to inject into the model's context at event, or nil
// when the client has no documented way to do so at that event (or text is
// empty).
func Context(client, event, text string) []byte {
	spec, ok := specOf(client, event)
	if !ok || text == "" || !spec.Injects {
		return nil
	}
	text = termtext.Text(text)
	switch client {
	case "claude", "codex", "gemini", "qwen", "opencode":
		if spec.Kind == KindStop {
			return nil
		}
		return marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": spec.Name, "additionalContext": text}})
	case "copilot":
		if spec.Kind == KindStop {
			return nil
		}
		return marshal(map[string]any{"additionalContext": text})
	case "cursor":
		if spec.Kind == KindStart || spec.Kind == KindPostTool {
			return marshal(map[string]any{"additional_context": text})
		}
	}
	return nil
}

// Deny renders the denial of a tool call with reason (read by the model).
func Deny(client, event, reason string) []byte {
	spec, ok := specOf(client, event)
	if !ok || spec.Kind != KindPreTool {
		return nil
	}
	reason = termtext.Text(reason)
	switch client {
	case "claude", "codex", "qwen", "opencode":
		return marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": spec.Name,
			"permissionDecision": "deny", "permissionDecisionReason": reason}})
	case "copilot":
		return marshal(map[string]any{"permissionDecision": "deny", "permissionDecisionReason": reason})
	case "gemini":
		return marshal(map[string]any{"decision": "deny", "reason": reason})
	case "cursor":
		return marshal(map[string]any{"permission": "deny", "agent_message": reason, "user_message": reason})
	}
	return nil
}

// Continue renders an end-of-turn reminder that makes the agent go on with
// text as its next instruction (Claude/Codex decision block, Gemini
// AfterAgent deny, Cursor followup_message).
func Continue(client, event, text string) []byte {
	spec, ok := specOf(client, event)
	if !ok || spec.Kind != KindStop || text == "" {
		return nil
	}
	text = termtext.Text(text)
	switch client {
	case "claude", "codex", "copilot", "qwen":
		return marshal(map[string]any{"decision": "block", "reason": text})
	case "gemini":
		return marshal(map[string]any{"decision": "deny", "reason": text})
	case "cursor":
		return marshal(map[string]any{"followup_message": text})
	case "opencode":
		// Claude Code's shape; bb's plugin sends reason as the session's
		// next prompt.
		return marshal(map[string]any{"decision": "block", "reason": text})
	}
	return nil
}

func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return buf.Bytes()
}
