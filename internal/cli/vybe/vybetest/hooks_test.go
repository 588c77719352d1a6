package vybetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const existingSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "other-tool start", "timeout": 10}]}
    ],
    "Notification": [
      {"matcher": "", "hooks": [{"type": "command", "command": "notify-send hi"}]}
    ]
  }
}
`

func readJSONFile(t *testing.T, p string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v\n%s", p, err, b)
	}
	return m
}

func TestHookInstallPreservesSettings(t *testing.T) {
	s := newSandbox(t)
	settings := filepath.Join(s.Home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(existingSettings), 0o600); err != nil {
		t.Fatal(err)
	}

	d := s.ok("hook", "install")
	if !strings.HasPrefix(str(d["message"]), "Claude Code hooks installed (SessionStart, UserPromptSubmit,") {
		t.Fatalf("message: %v", d["message"])
	}
	if got := path(d, "claude.installed"); len(got.([]any)) != 10 {
		t.Fatalf("installed: %v", got)
	}
	if path(d, "claude.skipped") != nil {
		t.Fatalf("skipped should be null, got %v", path(d, "claude.skipped"))
	}
	m := readJSONFile(t, settings)
	if m["model"] != "opus" || str(path(m, "permissions.allow")) != `["Bash(ls:*)"]` {
		t.Fatalf("other keys lost: %v", m)
	}
	if path(m, "hooks.Notification.0.hooks.0.command") != "notify-send hi" {
		t.Fatalf("other hook lost: %v", m["hooks"])
	}
	ss := path(m, "hooks.SessionStart").([]any)
	if len(ss) != 2 || path(ss[0], "hooks.0.command") != "other-tool start" {
		t.Fatalf("SessionStart: %v", ss)
	}
	if path(ss[1], "matcher") != "startup|resume|clear|compact" || path(ss[1], "hooks.0.timeout") != float64(3000) {
		t.Fatalf("vybe SessionStart entry: %v", ss[1])
	}
	wantCmd := `"` + vybePath() + `" hook session-start`
	if path(ss[1], "hooks.0.command") != wantCmd || path(ss[1], "hooks.0.type") != "command" {
		t.Fatalf("command = %v, want %s", path(ss[1], "hooks.0.command"), wantCmd)
	}
	if path(m, "hooks.PostToolUse.0.matcher") != "Write|Edit|MultiEdit|Bash|NotebookEdit" || path(m, "hooks.Stop.0.hooks.0.timeout") != float64(1000) {
		t.Fatalf("PostToolUse/Stop: %v", m["hooks"])
	}
	b1, _ := os.ReadFile(settings)
	if !strings.HasPrefix(string(b1), "{\n  \"") || !strings.HasSuffix(string(b1), "}\n") {
		t.Fatalf("settings not 2-space JSON + newline:\n%s", b1)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode changed to %v", fi.Mode().Perm())
	}

	// Idempotent: a second install changes nothing.
	d = s.ok("hook", "install")
	if !strings.HasPrefix(str(d["message"]), "Claude Code hooks already installed.") || path(d, "claude.installed") != nil {
		t.Fatalf("second install: %v", d)
	}
	b2, _ := os.ReadFile(settings)
	if string(b1) != string(b2) {
		t.Fatal("second install rewrote the file")
	}

	// status sees them.
	st := s.ok("status")
	if path(st, "hooks.claude") != true || path(st, "hooks.claude_events.SessionStart") != true {
		t.Fatalf("status hooks: %v", st["hooks"])
	}

	// An outdated vybe entry is replaced, not duplicated.
	m = readJSONFile(t, settings)
	path(m, "hooks.Stop.0.hooks.0").(map[string]any)["timeout"] = 5
	b, _ := json.Marshal(m)
	os.WriteFile(settings, b, 0o600)
	d = s.ok("hook", "install")
	if str(path(d, "claude.updated")) != `["Stop"]` {
		t.Fatalf("updated: %v", d)
	}
	m = readJSONFile(t, settings)
	if len(path(m, "hooks.Stop").([]any)) != 1 {
		t.Fatalf("Stop duplicated: %v", path(m, "hooks.Stop"))
	}

	// uninstall removes only vybe's entries.
	d = s.ok("hook", "uninstall")
	if len(path(d, "claude.removed").([]any)) != 10 {
		t.Fatalf("removed: %v", d)
	}
	m = readJSONFile(t, settings)
	if m["model"] != "opus" || len(path(m, "hooks.SessionStart").([]any)) != 1 || path(m, "hooks.Notification") == nil || path(m, "hooks.Stop") != nil {
		t.Fatalf("after uninstall: %v", m)
	}
	d = s.ok("hook", "uninstall")
	if path(d, "claude.removed") != nil {
		t.Fatalf("nothing matched: removed should be null: %v", d)
	}
}

func TestHookInstallProjectAndOpenCode(t *testing.T) {
	s := newSandbox(t)
	if e := s.fails("hook", "install", "--claude=false"); e != "nothing selected: use --claude and/or --opencode" {
		t.Fatalf("error: %q", e)
	}
	d := s.ok("hook", "install", "--project")
	want := filepath.Join(s.Dir, ".claude", "settings.json")
	if path(d, "claude.path") != want {
		t.Fatalf("path %v, want %s", path(d, "claude.path"), want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Home, ".claude", "settings.json")); err == nil {
		t.Fatal("--project wrote the user settings")
	}
	// A project without a hooks object: removed is [].
	os.WriteFile(want, []byte(`{"x":1}`), 0o644)
	d = s.ok("hook", "uninstall", "--project")
	if str(path(d, "claude.removed")) != "[]" {
		t.Fatalf("removed: %v", d)
	}

	d = s.ok("hook", "install", "--opencode")
	plugin := filepath.Join(s.Home, ".config", "opencode", "plugins", "vybe-bridge.js")
	if path(d, "opencode.status") != "installed" || path(d, "opencode.path") != plugin || d["claude"] != nil {
		t.Fatalf("opencode install: %v", d)
	}
	if st := s.ok("status"); path(st, "hooks.opencode.status") != "current" {
		t.Fatalf("status: %v", st["hooks"])
	}
	if d = s.ok("hook", "install", "--opencode"); path(d, "opencode.status") != "skipped" {
		t.Fatalf("second: %v", d)
	}
	os.WriteFile(plugin, []byte("// edited\n"), 0o644)
	if st := s.ok("status"); path(st, "hooks.opencode.status") != "modified" {
		t.Fatalf("status: %v", st["hooks"])
	}
	if d = s.ok("hook", "install", "--opencode"); path(d, "opencode.status") != "updated" {
		t.Fatalf("update: %v", d)
	}
	if d = s.ok("hook", "uninstall", "--opencode"); path(d, "opencode.removed") != true {
		t.Fatalf("uninstall: %v", d)
	}
	if _, err := os.Stat(plugin); err == nil {
		t.Fatal("plugin still there")
	}
}

// The hidden handlers read the hook JSON on stdin and always exit 0; the
// session-start one injects the resume prompt.
func TestHookHandlers(t *testing.T) {
	s := newSandbox(t)
	ws := filepath.Join(s.Dir, "ws")
	task := s.ok("task", "create", "--agent", "planner", "--request-id", "c1", "--title", "Refactor the parser", "--project-id", ws)
	id := str(path(task, "task.id"))
	s.ok("memory", "set", "--agent", "planner", "--request-id", "m1", "-k", "style", "-v", "keep functions small", "-s", "project", "--scope-id", ws)

	r := s.run(`{"session_id":"s1","cwd":"`+ws+`","hook_event_name":"SessionStart","source":"startup"}`, vybePath(), "hook", "session-start")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	ctx := out.HookSpecificOutput.AdditionalContext
	if out.HookSpecificOutput.HookEventName != "SessionStart" || !strings.HasPrefix(ctx, "== VYBE (task tracker) ==") ||
		!strings.Contains(ctx, "Refactor the parser") || !strings.Contains(ctx, id) || !strings.Contains(ctx, "keep functions small") {
		t.Fatalf("additionalContext:\n%s", ctx)
	}
	if got := s.query(`SELECT focus_task_id FROM agents WHERE id = 'claude'`); got != id {
		t.Fatalf("claude focus = %s", got)
	}

	for _, c := range []struct{ sub, in, kind string }{
		{"prompt", `{"prompt":"please fix the bug"}`, "user_prompt"},
		{"tool-failure", `{"tool_name":"Bash","error":"exit 1"}`, "tool_failure"},
		{"tool-success", `{"tool_name":"Edit"}`, "tool_success"},
		{"checkpoint", `{}`, "checkpoint"},
		{"session-end", `{"reason":"logout"}`, "session_end"},
		{"stop", ``, "agent_stop"},
		{"subagent-start", `not json`, "subagent_start"},
	} {
		r := s.run(c.in, vybePath(), "hook", c.sub)
		if r.Code != 0 || r.Stdout != "" {
			t.Fatalf("%s: exit %d stdout %q stderr %s", c.sub, r.Code, r.Stdout, r.Stderr)
		}
		if n := s.query(`SELECT COUNT(*) FROM events WHERE type = ? AND agent = 'claude'`, c.kind); n != "1" {
			t.Fatalf("%s: %s events of kind %s", c.sub, n, c.kind)
		}
	}
	// A handler never fails the assistant, even with a broken database path.
	s.Env = append(s.Env, "VYBE_DB_PATH=/proc/nonexistent/x.db")
	if r := s.run(`{}`, vybePath(), "hook", "session-start"); r.Code != 0 || !strings.Contains(r.Stderr, "hook handler failed") {
		t.Fatalf("broken db: exit %d stderr %s", r.Code, r.Stderr)
	}
}
