package hookio

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Claude Code's PreToolUse input for Edit carries the file in
// tool_input.file_path (https://code.claude.com/docs/en/hooks, PreToolUse).
func TestParseClaudeEdit(t *testing.T) {
	in, ok := Parse("claude", []byte(`{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default",
		"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/src/a.go","old_string":"a","new_string":"b"},"tool_use_id":"toolu_1"}`))
	if !ok || in.SessionID != "abc123" || in.Cwd != "/p" || !reflect.DeepEqual(in.Paths, []string{"/p/src/a.go"}) {
		t.Fatalf("got %+v %v", in, ok)
	}
	// NotebookEdit names notebook_path.
	in, _ = Parse("claude", []byte(`{"session_id":"s","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/p/n.ipynb"}}`))
	if !reflect.DeepEqual(in.Paths, []string{"/p/n.ipynb"}) {
		t.Fatalf("notebook: %+v", in)
	}
	// Bash is not an edit tool: no paths.
	in, _ = Parse("claude", []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf x","file_path":"/p/x"}}`))
	if len(in.Paths) != 0 {
		t.Fatalf("bash: %+v", in)
	}
}

// Codex exposes the raw apply_patch body as tool_input.command
// (https://developers.openai.com/codex/hooks).
func TestParseCodexApplyPatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: src/a.go\n@@\n-a\n+b\n*** Add File: src/new.go\n+x\n*** Delete File: old.go\n*** Update File: src/m.go\n*** Move to: src/n.go\n*** End Patch\n"
	b, _ := json.Marshal(map[string]any{"session_id": "t1", "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
		"tool_input": map[string]any{"command": patch}})
	in, ok := Parse("codex", b)
	want := []string{"src/a.go", "src/new.go", "old.go", "src/m.go", "src/n.go"}
	if !ok || !reflect.DeepEqual(in.Paths, want) {
		t.Fatalf("got %+v, want %v", in.Paths, want)
	}
}

func TestParseCursorAndGemini(t *testing.T) {
	// Cursor names the session conversation_id and the project workspace_roots
	// (https://cursor.com/docs/hooks); stop's loop_count > 0 means a stop
	// hook already made the agent continue.
	in, _ := Parse("cursor", []byte(`{"conversation_id":"c1","generation_id":"g","workspace_roots":["/w"],"hook_event_name":"stop","status":"completed","loop_count":1}`))
	if in.SessionID != "c1" || in.Cwd != "/w" || !in.StopActive {
		t.Fatalf("cursor: %+v", in)
	}
	// Gemini's BeforeTool for write_file (https://geminicli.com/docs/hooks/reference).
	in, _ = Parse("gemini", []byte(`{"session_id":"g1","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z","tool_name":"write_file","tool_input":{"file_path":"a.txt","content":"x"}}`))
	if !reflect.DeepEqual(in.Paths, []string{"a.txt"}) {
		t.Fatalf("gemini: %+v", in)
	}
	in, _ = Parse("gemini", []byte(`{"session_id":"g1","hook_event_name":"AfterAgent","stop_hook_active":true}`))
	if !in.StopActive {
		t.Fatalf("gemini stop: %+v", in)
	}
}

func TestParseBadInput(t *testing.T) {
	for _, s := range []string{"", "null", "[]", "42", `"x"`, "{", `{"session_id":5,"tool_name":["Edit"],"tool_input":"nope"}`} {
		in, ok := Parse("claude", []byte(s))
		if ok && (in.SessionID != "" || in.ToolName != "" || len(in.Paths) != 0) {
			t.Errorf("%q: %+v", s, in)
		}
	}
}

func TestRender(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{string(Context("claude", "SessionStart", "hi")), `{"hookSpecificOutput":{"additionalContext":"hi","hookEventName":"SessionStart"}}` + "\n"},
		{string(Context("claude", "userpromptsubmit", "hi")), `{"hookSpecificOutput":{"additionalContext":"hi","hookEventName":"UserPromptSubmit"}}` + "\n"},
		{string(Context("gemini", "BeforeAgent", "hi")), `{"hookSpecificOutput":{"additionalContext":"hi","hookEventName":"BeforeAgent"}}` + "\n"},
		{string(Context("cursor", "postToolUse", "hi")), `{"additional_context":"hi"}` + "\n"},
		{string(Context("claude", "SessionStart", "")), ""},
		{string(Context("claude", "Stop", "hi")), ""},
		{string(Context("nope", "SessionStart", "hi")), ""},
		{string(Deny("claude", "PreToolUse", "no")), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}` + "\n"},
		{string(Deny("gemini", "BeforeTool", "no")), `{"decision":"deny","reason":"no"}` + "\n"},
		{string(Deny("cursor", "preToolUse", "no")), `{"agent_message":"no","permission":"deny","user_message":"no"}` + "\n"},
		{string(Deny("claude", "Stop", "no")), ""},
		{string(Continue("codex", "Stop", "go")), `{"decision":"block","reason":"go"}` + "\n"},
		{string(Continue("gemini", "AfterAgent", "go")), `{"decision":"deny","reason":"go"}` + "\n"},
		{string(Continue("cursor", "stop", "go")), `{"followup_message":"go"}` + "\n"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("%d: got %q, want %q", i, c.got, c.want)
		}
	}
}

// FuzzParse: any payload is answered without a panic, and what a payload
// yields is well formed (paths without NUL, kinds of known events only).
func FuzzParse(f *testing.F) {
	f.Add("claude", `{"session_id":"s","tool_name":"Edit","tool_input":{"file_path":"/p/a"}}`)
	f.Add("codex", `{"session_id":"s","tool_name":"apply_patch","tool_input":{"command":"*** Update File: a\n"}}`)
	f.Add("cursor", `{"conversation_id":"c","tool_name":"Write","tool_input":"{\"file_path\":\"x\"}"}`)
	f.Add("gemini", `{"session_id":1,"tool_name":"replace","tool_input":[]}`)
	f.Add("claude", `{"tool_name":"Edit","tool_input":{"file_path":"a\u0000b"}}`)
	f.Add("claude", `not json`)
	f.Fuzz(func(t *testing.T, client, payload string) {
		in, ok := Parse(client, []byte(payload))
		if !ok && (in.SessionID != "" || len(in.Paths) != 0) {
			t.Fatalf("rejected payload yielded %+v", in)
		}
		for _, p := range in.Paths {
			if p == "" {
				t.Fatalf("empty path from %q", payload)
			}
			for _, r := range p {
				if r == 0 {
					t.Fatalf("NUL in path from %q", payload)
				}
			}
		}
		for _, out := range [][]byte{Context(client, "SessionStart", in.SessionID), Deny(client, "PreToolUse", in.Cwd), Continue(client, "Stop", in.ToolName)} {
			if len(out) > 0 && !json.Valid(out) {
				t.Fatalf("invalid JSON reply %q", out)
			}
		}
	})
}

// TestRepliesEscapeControlCharacters: every text the model reads arrives
// with control characters (C0 but newline and tab, DEL, C1) and bidi
// overrides as visible escapes, whichever reply carries it.
func TestRepliesEscapeControlCharacters(t *testing.T) {
	hostile := "line one\n\tkept\x1b[2J\r\x7f\u0085\u009b\u202eevil\u2066"
	for name, out := range map[string][]byte{
		"context":  Context("claude", "UserPromptSubmit", hostile),
		"cursor":   Context("cursor", "sessionStart", hostile),
		"deny":     Deny("claude", "PreToolUse", hostile),
		"gemini":   Deny("gemini", "BeforeTool", hostile),
		"continue": Continue("claude", "Stop", hostile),
	} {
		if out == nil {
			t.Fatalf("%s: no reply", name)
		}
		var doc any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var texts []string
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			case string:
				texts = append(texts, x)
			}
		}
		walk(doc)
		found := false
		for _, s := range texts {
			for _, r := range s {
				if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
					t.Errorf("%s: %U reaches the model: %q", name, r, s)
				}
			}
			if strings.Contains(s, `line one`+"\n\t"+`kept\x1b[2J\r\x7f\u0085\u009b\u202eevil\u2066`) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the text is not there, escaped and readable: %q", name, texts)
		}
	}
}

// TestPathsKeepInvalidUTF8: a path with invalid UTF-8 (a raw byte, or an
// unpaired surrogate escape) is read as sent, not as another name with
// U+FFFD in it; valid escapes decode as usual.
func TestPathsKeepInvalidUTF8(t *testing.T) {
	for payload, want := range map[string]string{
		"{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"src/a\xff.go\"}}":     "src/a\xff.go",
		`{"tool_name":"Write","tool_input":{"file_path":"src/b\udc80.go"}}`:             "src/b\xed\xb2\x80.go",
		`{"tool_name":"Write","tool_input":{"file_path":"src/c\ud83d\ude00\u00e9.go"}}`: "src/c😀é.go",
		`{"tool_name":"Write","tool_input":{"file_path":"src/d\ufffd.go"}}`:             "src/d\ufffd.go",
	} {
		in, ok := Parse("claude", []byte(payload))
		if !ok || len(in.Paths) != 1 || in.Paths[0] != want {
			t.Errorf("%s: paths %q, want %q", payload, in.Paths, want)
		}
	}
}

// GitHub Copilot CLI's camelCase payloads (sessionId, toolName, toolArgs)
// and replies (https://docs.github.com/en/copilot/reference/hooks-reference);
// Qwen Code's and bb's OpenCode plugin's are Claude Code's.
func TestCopilotQwenOpenCode(t *testing.T) {
	in, ok := Parse("copilot", []byte(`{"sessionId":"c1","timestamp":1,"cwd":"/p","toolName":"edit","toolArgs":{"path":"/p/src/a.go","old_str":"a","new_str":"b"}}`))
	if !ok || in.SessionID != "c1" || in.ToolName != "edit" || !reflect.DeepEqual(in.Paths, []string{"/p/src/a.go"}) {
		t.Fatalf("copilot: %+v", in)
	}
	in, _ = Parse("copilot", []byte(`{"sessionId":"c1","toolName":"bash","toolArgs":{"path":"/p/x"}}`))
	if len(in.Paths) != 0 {
		t.Fatalf("copilot bash: %+v", in)
	}
	in, _ = Parse("copilot", []byte(`{"sessionId":"c1","stop_hook_active":true}`))
	if !in.StopActive {
		t.Fatalf("copilot stop: %+v", in)
	}
	if got := string(Deny("copilot", "preToolUse", "held")); got != `{"permissionDecision":"deny","permissionDecisionReason":"held"}`+"\n" {
		t.Fatalf("copilot deny: %s", got)
	}
	if got := string(Context("copilot", "postToolUse", "mail")); got != `{"additionalContext":"mail"}`+"\n" {
		t.Fatalf("copilot context: %s", got)
	}
	if got := string(Continue("copilot", "agentStop", "go")); got != `{"decision":"block","reason":"go"}`+"\n" {
		t.Fatalf("copilot stop: %s", got)
	}
	in, _ = Parse("qwen", []byte(`{"session_id":"q1","tool_name":"write_file","tool_input":{"file_path":"/p/b.go","content":"x"}}`))
	if !reflect.DeepEqual(in.Paths, []string{"/p/b.go"}) {
		t.Fatalf("qwen: %+v", in)
	}
	if got := string(Deny("qwen", "PreToolUse", "held")); !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Fatalf("qwen deny: %s", got)
	}
	in, _ = Parse("opencode", []byte(`{"session_id":"o1","tool_name":"edit","tool_input":{"filePath":"/p/c.go","oldString":"a","newString":"b"}}`))
	if !reflect.DeepEqual(in.Paths, []string{"/p/c.go"}) {
		t.Fatalf("opencode edit: %+v", in)
	}
	in, _ = Parse("opencode", []byte(`{"session_id":"o1","tool_name":"apply_patch","tool_input":{"patchText":"*** Begin Patch\n*** Update File: src/d.go\n*** End Patch"}}`))
	if !reflect.DeepEqual(in.Paths, []string{"src/d.go"}) {
		t.Fatalf("opencode patch: %+v", in)
	}
	if got := string(Context("opencode", "chat.message", "mail")); !strings.Contains(got, `"additionalContext":"mail"`) {
		t.Fatalf("opencode context: %s", got)
	}
	// bb's plugin sends the reason as the session's next prompt.
	if got := string(Continue("opencode", "session.idle", "go")); got != `{"decision":"block","reason":"go"}`+"\n" {
		t.Fatalf("opencode stop: %s", got)
	}
	if Context("opencode", "session.idle", "go") != nil || KindOf("opencode", "session.idle") != KindStop {
		t.Fatal("opencode's session.idle is its end of turn, with no context of its own")
	}
	in, _ = Parse("opencode", []byte(`{"session_id":"o1","stop_hook_active":true}`))
	if !in.StopActive {
		t.Fatalf("opencode stop active: %+v", in)
	}
}

// AllBut's matcher, read by Go's RE2 (the same syntax subset as Rust's
// regex crate and JavaScript), takes every name but the listed ones.
func TestAllBut(t *testing.T) {
	list := "apply_patch|Edit|Write"
	re := regexp.MustCompile(AllBut(list))
	for _, name := range strings.Split(list, "|") {
		if re.MatchString(name) {
			t.Errorf("%s matches %s", re, name)
		}
	}
	for _, name := range []string{"Bash", "apply_patc", "apply_patch2", "apply", "a", "E", "Edi", "Edits", "Wr", "WriteFile", "mcp__blackboard__bb_reserve", "update_plan", "edit", "x.y"} {
		if !re.MatchString(name) {
			t.Errorf("%s does not match %s", re, name)
		}
	}
	if strings.Contains(AllBut(list), "(?!") || strings.Contains(AllBut(list), "(?=") {
		t.Errorf("look-around in %s", AllBut(list))
	}
	// Every string over the names' letters: matched exactly when unlisted.
	alphabet := []byte("apEWdit_lchrx")
	rng := rand.New(rand.NewPCG(1, 2))
	listed := map[string]bool{"apply_patch": true, "Edit": true, "Write": true}
	for range 20000 {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if re.MatchString(string(b)) == listed[string(b)] {
			t.Fatalf("%q: matched=%v", b, re.MatchString(string(b)))
		}
	}
	dot := regexp.MustCompile(AllBut("a.b"))
	if dot.MatchString("a.b") || !dot.MatchString("axb") {
		t.Errorf("%s: a '.' in a name is a literal", dot)
	}
}
