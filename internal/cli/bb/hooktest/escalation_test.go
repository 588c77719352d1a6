package hooktest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The sender's next prompt tells it, once, that its HANDOFF was not
// accepted within the board's 15 minutes: who it waits on, for how long,
// and how to ask again; nothing before the time, nothing at the prompt
// after, nothing once accepted.
func TestEscalationReachesTheSender(t *testing.T) {
	p := newProject(t)
	at := func(clock string) []string { return []string{"BB_NOW=2026-11-23T" + clock + "Z"} }
	s := &claudeSession{p: p, id: "carol-session", env: at("08:00:00")}
	carol := s.start(t, "startup")
	p.bb(t, at("08:00:00"), "agent", "register", "--name", "dana", "--role", "worker")
	p.bb(t, at("08:00:00"), "agent", "send", "--from", carol, "--to", "dana", "--bead", "bb-2", "--category", "HANDOFF",
		"--subject", "parser ready", "--body", "please review")

	s.env = at("08:10:00")
	if got := s.prompt(t); strings.Contains(got, "Escalated") {
		t.Fatalf("escalated after 10 minutes:\n%s", got)
	}
	s.env = at("08:16:30")
	got := s.prompt(t)
	for _, want := range []string{"[Blackboard] Escalated (1)", "your HANDOFF to dana on bb-2: \"parser ready\"",
		"you have waited 16 minutes on dana (the board escalates after 15)",
		"bb agent send --from " + carol + " --to dana --bead bb-2 --category INFO --priority high"} {
		if !strings.Contains(got, want) {
			t.Fatalf("prompt at 16 minutes lacks %q:\n%s", want, got)
		}
	}
	t.Logf("the sender's prompt at 16 minutes:\n%s", got)
	s.env = at("08:17:00")
	if got := s.prompt(t); got != "" {
		t.Fatalf("told twice:\n%s", got)
	}

	// A second handoff accepted after its escalation but before the
	// sender's next prompt is never told.
	p.bb(t, at("08:20:00"), "agent", "send", "--from", carol, "--to", "dana", "--bead", "bb-3", "--category", "HANDOFF",
		"--subject", "docs ready", "--body", "see docs/")
	inbox := p.bb(t, at("08:40:00"), "--json", "agent", "inbox", "--agent", "dana", "--bead", "bb-3")
	var env struct {
		Data []struct {
			MessageID string `json:"message_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(inbox), &env); err != nil || len(env.Data) != 1 {
		t.Fatalf("dana's inbox on bb-3: %v %s", err, inbox)
	}
	id := env.Data[0].MessageID
	if id == "" {
		t.Fatalf("no message id in %s", inbox)
	}
	p.bb(t, at("08:40:00"), "agent", "ack", "--agent", "dana", "--message", id)
	s.env = at("08:41:00")
	if got := s.prompt(t); got != "" {
		t.Fatalf("told after it was accepted:\n%s", got)
	}
}

// An escalation that falls due is told at the first hook event that can
// add to the model's context — whatever that event is and whichever the
// client — and only once; an event that cannot (a Stop, a pre-tool event
// of a client that has no context there) leaves it for the next one
// rather than marking it told and losing it. (A Claude Code PreToolUse
// edit once marked it told and sent only the mail.)
func TestEscalationToldAtEveryHookPath(t *testing.T) {
	type event struct {
		name string
		kv   []any
	}
	edit := func(p *project, tool string, key string) []any {
		return []any{"tool_name", tool, "tool_input", map[string]any{key: filepath.Join(p.dir, "src/a.go"), "old_string": "x", "new_string": "y"}}
	}
	cases := []struct {
		name, client, start string
		at                  func(p *project) event // the event at 16 minutes
		tells               bool
		then                func(p *project) event // when !tells: the next event, which tells
		text                string                 // where a reply carries context
	}{
		{name: "claude prompt", client: "claude", start: "SessionStart",
			at:    func(*project) event { return event{"UserPromptSubmit", []any{"prompt", "go on"}} },
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "claude PreToolUse edit", client: "claude", start: "SessionStart",
			at:    func(p *project) event { return event{"PreToolUse", edit(p, "Edit", "file_path")} },
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "claude PreToolUse edit outside the project", client: "claude", start: "SessionStart",
			at: func(*project) event {
				return event{"PreToolUse", []any{"tool_name", "Write", "tool_input", map[string]any{"file_path": "/tmp/elsewhere/notes.md", "content": "x"}}}
			},
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "claude PostToolUse", client: "claude", start: "SessionStart",
			at: func(*project) event {
				return event{"PostToolUse", []any{"tool_name", "Read", "tool_input", map[string]any{"file_path": "x"}}}
			},
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "claude Stop", client: "claude", start: "SessionStart",
			at:   func(*project) event { return event{"Stop", []any{"stop_hook_active", false}} },
			then: func(*project) event { return event{"UserPromptSubmit", []any{"prompt", "go on"}} },
			text: "hookSpecificOutput.additionalContext"},
		{name: "codex PreToolUse apply_patch", client: "codex", start: "SessionStart",
			at: func(*project) event {
				return event{"PreToolUse", []any{"tool_name", "apply_patch", "tool_input", map[string]any{"command": "*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch\n"}}}
			},
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "codex prompt", client: "codex", start: "SessionStart",
			at:    func(*project) event { return event{"UserPromptSubmit", []any{"prompt", "go on"}} },
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "copilot preToolUse edit", client: "copilot", start: "sessionStart",
			at: func(p *project) event {
				return event{"preToolUse", []any{"toolName", "edit", "toolArgs", map[string]any{"path": filepath.Join(p.dir, "src/a.go")}}}
			},
			tells: true, text: "additionalContext"},
		{name: "gemini BeforeTool, then AfterTool", client: "gemini", start: "SessionStart",
			at:   func(p *project) event { return event{"BeforeTool", edit(p, "replace", "file_path")} },
			then: func(*project) event { return event{"AfterTool", []any{"tool_name", "read_file"}} },
			text: "hookSpecificOutput.additionalContext"},
		{name: "gemini BeforeAgent", client: "gemini", start: "SessionStart",
			at:    func(*project) event { return event{"BeforeAgent", []any{"prompt", "go on"}} },
			tells: true, text: "hookSpecificOutput.additionalContext"},
		{name: "qwen PreToolUse, then PostToolUse", client: "qwen", start: "SessionStart",
			at:   func(p *project) event { return event{"PreToolUse", edit(p, "edit", "file_path")} },
			then: func(*project) event { return event{"PostToolUse", []any{"tool_name", "read_file"}} },
			text: "hookSpecificOutput.additionalContext"},
		{name: "opencode tool.execute.before, then after", client: "opencode", start: "session.created",
			at:   func(p *project) event { return event{"tool.execute.before", edit(p, "edit", "filePath")} },
			then: func(*project) event { return event{"tool.execute.after", []any{"tool_name", "read"}} },
			text: "hookSpecificOutput.additionalContext"},
		{name: "cursor preToolUse, then postToolUse", client: "cursor", start: "sessionStart",
			at: func(p *project) event { return event{"preToolUse", edit(p, "Write", "file_path")} },
			then: func(*project) event {
				return event{"postToolUse", []any{"tool_name", "Read", "tool_input", map[string]any{"file_path": "x"}}}
			},
			text: "additional_context"},
	}
	const told = "[Blackboard] Escalated (1)"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t)
			at := func(clock string) []string { return []string{"BB_NOW=2026-11-23T" + clock + "Z"} }
			fire := func(clock string, e event) map[string]any {
				t.Helper()
				m := map[string]any{"session_id": "s-" + c.client, "sessionId": "s-" + c.client, "conversation_id": "s-" + c.client,
					"cwd": p.dir, "workspace_roots": []string{p.dir}, "hook_event_name": e.name}
				for i := 0; i+1 < len(e.kv); i += 2 {
					m[e.kv[i].(string)] = e.kv[i+1]
				}
				out, _ := p.hook(t, at(clock), c.client, e.name, m)
				return out
			}
			me := agentOf(t, str(fire("08:00:00", event{c.start, []any{"source", "startup"}}), c.text))
			p.bb(t, at("08:00:00"), "agent", "register", "--name", "dana", "--role", "worker")
			p.bb(t, at("08:00:00"), "agent", "send", "--from", me, "--to", "dana", "--bead", "bb-2", "--category", "HANDOFF",
				"--subject", "parser ready", "--body", "please review")

			e := c.at(p)
			out := fire("08:16:30", e)
			got := str(out, c.text)
			if c.tells {
				if !strings.Contains(got, told) || !strings.Contains(got, "your HANDOFF to dana on bb-2: \"parser ready\"") {
					t.Fatalf("%s at 16 minutes does not tell the escalation: %v", e.name, out)
				}
				if again := str(fire("08:17:00", e), c.text); strings.Contains(again, "Escalated") {
					t.Fatalf("told twice, the second time at %s:\n%s", e.name, again)
				}
				return
			}
			if strings.Contains(fmt.Sprint(out), "Escalated") {
				t.Fatalf("%s cannot carry context, yet: %v", e.name, out)
			}
			next := c.then(p)
			if got := str(fire("08:17:00", next), c.text); !strings.Contains(got, told) {
				t.Fatalf("after %s, %s does not tell the escalation (lost?): %q", e.name, next.name, got)
			}
		})
	}
}
