package hooktest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Claude Code hook inputs and outputs as documented in
// https://code.claude.com/docs/en/hooks: common fields session_id,
// transcript_path, cwd, permission_mode, hook_event_name; SessionStart
// (source), UserPromptSubmit (prompt) and PostToolUse add context with
// hookSpecificOutput.additionalContext; PreToolUse denies with
// hookSpecificOutput.permissionDecision "deny" and permissionDecisionReason;
// Stop continues with {"decision":"block","reason"} and carries
// stop_hook_active; SessionStart hooks may append `export` lines to
// $CLAUDE_ENV_FILE for later Bash commands.
func TestClaudeCode(t *testing.T) {
	p := newProject(t)
	envFile := filepath.Join(t.TempDir(), "claude.env")
	common := func(event string) map[string]any {
		return map[string]any{"session_id": "11111111-aaaa", "transcript_path": "/home/u/.claude/projects/x/t.jsonl",
			"cwd": p.dir, "permission_mode": "default", "hook_event_name": event}
	}
	start := common("SessionStart")
	start["source"] = "startup"
	out, _ := p.hook(t, []string{"CLAUDE_ENV_FILE=" + envFile}, "claude", "SessionStart", start)
	if str(out, "hookSpecificOutput.hookEventName") != "SessionStart" {
		t.Fatalf("SessionStart reply: %v", out)
	}
	brief := str(out, "hookSpecificOutput.additionalContext")
	me := agentOf(t, brief)
	if !strings.Contains(me, "-") || !strings.Contains(brief, "No unread mail") {
		t.Fatalf("brief: %q", brief)
	}
	env, err := os.ReadFile(envFile)
	if err != nil || !strings.Contains(string(env), "export BB_AGENT_ID="+me+"\n") {
		t.Fatalf("CLAUDE_ENV_FILE: %q %v", env, err)
	}

	// Nothing new before a prompt: no output at all.
	prompt := common("UserPromptSubmit")
	prompt["prompt"] = "fix the bug"
	if out, _ := p.hook(t, nil, "claude", "UserPromptSubmit", prompt); out != nil {
		t.Fatalf("nothing new, yet: %v", out)
	}

	// An edit of a free file is allowed (no output) and reserves it.
	edit := common("PreToolUse")
	edit["tool_name"], edit["tool_use_id"] = "Edit", "toolu_01"
	edit["tool_input"] = map[string]any{"file_path": filepath.Join(p.dir, "src/a.go"), "old_string": "x", "new_string": "y"}
	if out, _ := p.hook(t, nil, "claude", "PreToolUse", edit); out != nil {
		t.Fatalf("free edit: %v", out)
	}
	if h := p.holders(t); h["src/a.go"] != me {
		t.Fatalf("auto-reserve: %v", h)
	}
	// Non-edit tools are not checked.
	bash := common("PreToolUse")
	bash["tool_name"], bash["tool_input"] = "Bash", map[string]any{"command": "ls"}
	if out, _ := p.hook(t, nil, "claude", "PreToolUse", bash); out != nil {
		t.Fatalf("bash: %v", out)
	}

	// Mail arrives after a tool call, once.
	p.bb(t, nil, "agent", "register", "--name", "other-agent", "--role", "worker")
	p.bb(t, nil, "agent", "send", "--from", "other-agent", "--to", me, "--bead", "bd-1", "--category", "HANDOFF",
		"--subject", "take over parsing", "--body", "done with the lexer", "--next-action", "run the parser tests")
	post := common("PostToolUse")
	post["tool_name"], post["tool_input"], post["tool_response"] = "Bash", map[string]any{"command": "ls"}, map[string]any{"stdout": ""}
	out, _ = p.hook(t, nil, "claude", "PostToolUse", post)
	text := str(out, "hookSpecificOutput.additionalContext")
	if str(out, "hookSpecificOutput.hookEventName") != "PostToolUse" || !strings.Contains(text, "HANDOFF from other-agent") ||
		!strings.Contains(text, "  > the next action it proposes: run the parser tests\n") || !strings.Contains(text, "bb agent ack --agent "+me) {
		t.Fatalf("PostToolUse delivery: %v", out)
	}
	if out, _ := p.hook(t, nil, "claude", "UserPromptSubmit", prompt); out != nil {
		t.Fatalf("delivered twice: %v", out)
	}
	// An allowed edit brings the mail that is new (bb installs no
	// PostToolUse for the edit tools), without a permission decision.
	p.bb(t, nil, "agent", "send", "--from", "other-agent", "--to", me, "--bead", "bd-1", "--category", "INFO",
		"--subject", "lexer notes", "--body", "EDITMAIL in the wiki")
	out, _ = p.hook(t, nil, "claude", "PreToolUse", edit)
	if str(out, "hookSpecificOutput.hookEventName") != "PreToolUse" || !strings.Contains(str(out, "hookSpecificOutput.additionalContext"), "EDITMAIL") ||
		jq(out, "hookSpecificOutput.permissionDecision") != nil {
		t.Fatalf("PreToolUse delivery: %v", out)
	}
	if out, _ := p.hook(t, nil, "claude", "PreToolUse", edit); out != nil {
		t.Fatalf("delivered twice: %v", out)
	}

	// End of turn: one reminder (idle reservation, owed ack), never twice,
	// never while stop_hook_active.
	stop := common("Stop")
	stop["stop_hook_active"] = true
	if out, _ := p.hook(t, nil, "claude", "Stop", stop); out != nil {
		t.Fatalf("stop_hook_active: %v", out)
	}
	stop["stop_hook_active"] = false
	out, _ = p.hook(t, nil, "claude", "Stop", stop)
	if str(out, "decision") != "block" || !strings.Contains(str(out, "reason"), "src/a.go") || !strings.Contains(str(out, "reason"), "owe acks") {
		t.Fatalf("Stop reminder: %v", out)
	}
	if out, _ := p.hook(t, nil, "claude", "Stop", stop); out != nil {
		t.Fatalf("reminded twice: %v", out)
	}
}

// Codex CLI uses Claude Code's wire format; file edits arrive as
// tool_name apply_patch with the patch in tool_input.command
// (https://developers.openai.com/codex/hooks).
func TestCodex(t *testing.T) {
	p := newProject(t)
	base := map[string]any{"session_id": "codex-1", "transcript_path": nil, "cwd": p.dir, "model": "gpt-5-codex"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	out, _ := p.hook(t, nil, "codex", "SessionStart", with("hook_event_name", "SessionStart", "source", "startup"))
	me := agentOf(t, str(out, "hookSpecificOutput.additionalContext"))
	// Another agent holds src/b.go: the patch touching it is denied.
	p.bb(t, nil, "agent", "register", "--name", "holder-one", "--role", "worker")
	p.bb(t, nil, "agent", "reserve", "--agent", "holder-one", "--scope", "src/b.go", "--bead", "bd-7")
	patch := "*** Begin Patch\n*** Update File: src/a.go\n@@\n-package x\n+package y\n*** Update File: src/b.go\n@@\n-package x\n+package y\n*** End Patch\n"
	out, _ = p.hook(t, nil, "codex", "PreToolUse", with("hook_event_name", "PreToolUse", "turn_id", "t1", "tool_name", "apply_patch",
		"tool_use_id", "call_1", "tool_input", map[string]any{"command": patch}))
	reason := str(out, "hookSpecificOutput.permissionDecisionReason")
	if str(out, "hookSpecificOutput.permissionDecision") != "deny" || !strings.Contains(reason, "holder-one") || !strings.Contains(reason, "bd-7") {
		t.Fatalf("codex deny: %v", out)
	}
	if h := p.holders(t); h["src/a.go"] != "" {
		t.Fatalf("a denied patch reserved nothing, yet: %v (me %s)", h, me)
	}
	out, _ = p.hook(t, nil, "codex", "Stop", with("hook_event_name", "Stop", "turn_id", "t1", "stop_hook_active", false, "last_assistant_message", "done"))
	if out != nil {
		t.Fatalf("nothing to remind: %v", out)
	}
}

// Gemini CLI (https://geminicli.com/docs/hooks/reference): BeforeTool
// denies with {"decision":"deny","reason"}; SessionStart, BeforeAgent and
// AfterTool add hookSpecificOutput.additionalContext; AfterAgent's deny
// makes the agent go on with reason as its prompt, and stop_hook_active
// marks such a retry.
func TestGeminiCLI(t *testing.T) {
	p := newProject(t)
	base := func(event string, kv ...any) map[string]any {
		m := map[string]any{"session_id": "gem-1", "transcript_path": "/t.json", "cwd": p.dir, "hook_event_name": event, "timestamp": "2026-11-23T07:00:00Z"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	out, _ := p.hook(t, nil, "gemini", "SessionStart", base("SessionStart", "source", "startup"))
	if str(out, "hookSpecificOutput.hookEventName") != "SessionStart" {
		t.Fatalf("gemini start: %v", out)
	}
	me := agentOf(t, str(out, "hookSpecificOutput.additionalContext"))
	p.bb(t, nil, "agent", "register", "--name", "holder-two", "--role", "worker")
	p.bb(t, nil, "agent", "reserve", "--agent", "holder-two", "--scope", "src/*", "--bead", "bd-9")
	out, _ = p.hook(t, nil, "gemini", "BeforeTool", base("BeforeTool", "tool_name", "replace",
		"tool_input", map[string]any{"file_path": filepath.Join(p.dir, "src/a.go"), "old_string": "x", "new_string": "y"}))
	if str(out, "decision") != "deny" || !strings.Contains(str(out, "reason"), "holder-two") || !strings.Contains(str(out, "reason"), "src/*") {
		t.Fatalf("gemini deny: %v", out)
	}
	// The denial names the wait, so the agent does not poll for the file.
	if want := "then wait for src/a.go: bb agent wait --agent " + me + " --for-scope src/a.go"; !strings.Contains(str(out, "reason"), want) {
		t.Errorf("gemini deny does not name the wait %q: %s", want, str(out, "reason"))
	}
	p.bb(t, nil, "agent", "send", "--from", "holder-two", "--to", me, "--bead", "bd-9", "--category", "BLOCKED",
		"--subject", "need README", "--body", "please leave README alone", "--urgency", "high")
	out, _ = p.hook(t, nil, "gemini", "BeforeAgent", base("BeforeAgent", "prompt", "continue"))
	if !strings.Contains(str(out, "hookSpecificOutput.additionalContext"), "urgency high") {
		t.Fatalf("gemini delivery: %v", out)
	}
	out, _ = p.hook(t, nil, "gemini", "AfterAgent", base("AfterAgent", "prompt", "continue", "prompt_response", "ok", "stop_hook_active", false))
	if str(out, "decision") != "deny" || !strings.Contains(str(out, "reason"), "owe acks") {
		t.Fatalf("gemini AfterAgent: %v", out)
	}
}

// Cursor (https://cursor.com/docs/hooks): conversation_id names the
// session, workspace_roots the project; preToolUse denies with
// permission "deny" plus agent_message/user_message; sessionStart and
// postToolUse add additional_context; stop continues with
// followup_message.
func TestCursor(t *testing.T) {
	p := newProject(t)
	base := func(event string, kv ...any) map[string]any {
		m := map[string]any{"conversation_id": "conv-1", "generation_id": "gen-1", "hook_event_name": event,
			"workspace_roots": []string{p.dir}, "cursor_version": "2.0.77"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	out, _ := p.hook(t, nil, "cursor", "sessionStart", base("sessionStart", "session_id", "conv-1", "is_background_agent", false))
	me := agentOf(t, str(out, "additional_context"))
	p.bb(t, nil, "agent", "register", "--name", "holder-three", "--role", "worker")
	p.bb(t, nil, "agent", "reserve", "--agent", "holder-three", "--scope", "README", "--bead", "bd-3")
	out, _ = p.hook(t, nil, "cursor", "preToolUse", base("preToolUse", "tool_name", "Write",
		"tool_input", map[string]any{"file_path": filepath.Join(p.dir, "README"), "contents": "x"}))
	if str(out, "permission") != "deny" || !strings.Contains(str(out, "agent_message"), "holder-three") {
		t.Fatalf("cursor deny: %v", out)
	}
	p.bb(t, nil, "agent", "send", "--from", "holder-three", "--to", me, "--bead", "bd-3", "--category", "INFO",
		"--subject", "README is mine today", "--body", "ask first")
	out, _ = p.hook(t, nil, "cursor", "postToolUse", base("postToolUse", "tool_name", "Read", "tool_input", map[string]any{"file_path": "x"}))
	if !strings.Contains(str(out, "additional_context"), "README is mine today") {
		t.Fatalf("cursor delivery: %v", out)
	}
	// Cursor's prompt hook cannot add context: bb is silent there.
	if out, _ := p.hook(t, nil, "cursor", "beforeSubmitPrompt", base("beforeSubmitPrompt", "prompt", "hi")); out != nil {
		t.Fatalf("beforeSubmitPrompt: %v", out)
	}
	// loop_count > 0: a stop hook already made the agent continue.
	if out, _ := p.hook(t, nil, "cursor", "stop", base("stop", "status", "completed", "loop_count", 1)); out != nil {
		t.Fatalf("cursor loop: %v", out)
	}
}

// Bad or unknown input, a missing board: no crash, nothing on stdout,
// exit 0, a note on stderr.
func TestFailOpen(t *testing.T) {
	p := newProject(t)
	for _, c := range []struct{ client, event, in string }{
		{"claude", "PreToolUse", "not json"},
		{"claude", "PreToolUse", `{"session_id":5,"tool_name":"Edit","tool_input":{"file_path":7}}`},
		{"claude", "SessionStart", `{}`},
		{"claude", "Notification", `{"session_id":"s","message":"hi"}`},
		{"nosuch", "SessionStart", `{"session_id":"s"}`},
		{"gemini", "BeforeTool", `{"session_id":"s","tool_name":"write_file","tool_input":{"file_path":"a"},"extra":{"future":[1,2]}}`},
		{"claude", "PreToolUse", `{"session_id":"s","tool_name":"Write","tool_input":{"file_path":"/tmp/outside-the-project.txt"}}`},
	} {
		out, errOut := p.hook(t, nil, c.client, c.event, c.in)
		if out != nil {
			t.Errorf("%s %s %q: printed %v", c.client, c.event, c.in, out)
		}
		_ = errOut
	}
	// No board at all.
	empty := &project{dir: t.TempDir(), env: p.env}
	out, errOut := empty.hook(t, nil, "claude", "PreToolUse", map[string]any{"session_id": "s", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(empty.dir, "x")}})
	if out != nil || !strings.Contains(errOut, "bb init") {
		t.Fatalf("no board: %v %q", out, errOut)
	}
	// hooks.mode off: even a held file is not checked.
	p.bb(t, nil, "agent", "register", "--name", "holder-four", "--role", "worker")
	p.bb(t, nil, "agent", "reserve", "--agent", "holder-four", "--scope", "src/a.go", "--bead", "bd-4")
	edit := map[string]any{"session_id": "s-off", "tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(p.dir, "src/a.go")}}
	if out, _ := p.hook(t, []string{"BB_HOOKS_MODE=off"}, "claude", "PreToolUse", edit); out != nil {
		t.Fatalf("mode off: %v", out)
	}
	p.bb(t, nil, "config", "set", "hooks.mode", "warn")
	out, errOut = p.hook(t, nil, "claude", "PreToolUse", edit)
	if out != nil || !strings.Contains(errOut, "holder-four") {
		t.Fatalf("mode warn: %v %q", out, errOut)
	}
}

// 64 writers at once (bb post processes) while 8 sessions' edit hooks run:
// every hook still answers with exit 0 and either nothing or one JSON
// object (a busy board fails open within the hook's own budget), and no
// free file is denied.
func TestHooksUnderContention(t *testing.T) {
	p := newProject(t)
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _, _ = p.run([]string{"BB_AGENT_ID=writer-" + strconv.Itoa(i)}, "", "post", "busy "+strconv.Itoa(i))
		}(i)
	}
	errs := make(chan string, 8)
	for k := 0; k < 8; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			s := &claudeSession{p: p, id: "busy-" + strconv.Itoa(k)}
			in, _ := json.Marshal(s.payload("PreToolUse", "tool_name", "Write",
				"tool_input", map[string]any{"file_path": filepath.Join(p.dir, "src", "f"+strconv.Itoa(k)+".go"), "content": "x"}))
			out, errOut, code := p.run(nil, string(in), "hook", "claude", "PreToolUse", "--dir", p.dir)
			if code != 0 || (out != "" && !json.Valid([]byte(out))) || strings.Contains(out, "deny") {
				errs <- fmt.Sprintf("session %d: exit %d, stdout %q, stderr %q", k, code, out, errOut)
			}
		}(k)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestInvalidUTF8PathIsRefused: an edit whose path is not valid UTF-8 (a raw
// byte, or an unpaired surrogate escape, which a JSON decoder turns into
// U+FFFD: another file's name) is refused by the hook, naming the reason,
// and nothing is reserved.
func TestInvalidUTF8PathIsRefused(t *testing.T) {
	p := newProject(t)
	dir, _ := json.Marshal(p.dir)
	for _, name := range []string{"bad\xff.go", `lone\udc80.go`} {
		path := `"` + strings.Trim(string(dir), `"`) + `/src/` + name + `"`
		payload := `{"session_id":"22222222-bbbb","cwd":` + string(dir) + `,"hook_event_name":"PreToolUse","tool_name":"Write",` +
			`"tool_use_id":"t1","tool_input":{"file_path":` + path + `,"content":"x"}}`
		out, stderr := p.hook(t, nil, "claude", "PreToolUse", payload)
		if str(out, "hookSpecificOutput.permissionDecision") != "deny" || !strings.Contains(str(out, "hookSpecificOutput.permissionDecisionReason"), "UTF-8") {
			t.Errorf("path %s: reply %v, stderr %q", path, out, stderr)
		}
	}
	if h := p.holders(t); len(h) != 0 {
		t.Fatalf("reserved: %v", h)
	}
}
