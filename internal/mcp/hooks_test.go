package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What Claude Code sends (every value a string, objects as JSON text, a
// missing field as "") and what Codex CLI sends (values as they are) both
// become the hook input a command hook reads on stdin.
func TestHookPayload(t *testing.T) {
	for _, tc := range []struct {
		name, args                   string
		client, event, agent, wantIn string
		err                          string
	}{
		{name: "claude edit", args: `{"bb_client":"Claude","bb_event":"PreToolUse","session_id":"s1","cwd":"/p","tool_name":"Write","tool_input":{"file_path":"/p/a.go","notebook_path":""}}`,
			client: "claude", event: "PreToolUse", wantIn: `{"cwd":"/p","session_id":"s1","tool_input":{"file_path":"/p/a.go","notebook_path":""},"tool_name":"Write"}`},
		{name: "object as JSON text", args: `{"bb_client":"claude","bb_event":"PreToolUse","tool_input":"{\"file_path\":\"/p/a.go\"}"}`,
			client: "claude", event: "PreToolUse", wantIn: `{"tool_input":{"file_path":"/p/a.go"}}`},
		{name: "not JSON stays text", args: `{"bb_client":"claude","bb_event":"PreToolUse","tool_input":"{not json"}`,
			client: "claude", event: "PreToolUse", wantIn: `{"tool_input":"{not json"}`},
		{name: "boolean as text, empty left out", args: `{"bb_client":"claude","bb_event":"Stop","stop_hook_active":"true","source":"","bb_agent":"a-1"}`,
			client: "claude", event: "Stop", agent: "a-1", wantIn: `{"stop_hook_active":true}`},
		{name: "a boolean field with other text", args: `{"bb_client":"claude","bb_event":"Stop","stop_hook_active":"yes"}`,
			client: "claude", event: "Stop", wantIn: `{"stop_hook_active":"yes"}`},
		{name: "typed values (codex)", args: `{"bb_client":"codex","bb_event":"Stop","stop_hook_active":false,"tool_input":{"command":"ls"},"n":12345678901234567890}`,
			client: "codex", event: "Stop", wantIn: `{"n":12345678901234567890,"stop_hook_active":false,"tool_input":{"command":"ls"}}`},
		{name: "not an object", args: `["x"]`, err: "not a JSON object"},
		{name: "null", args: `null`, err: "not a JSON object"},
		{name: "empty", args: ``, err: "not a JSON object"},
		{name: "no event", args: `{"bb_client":"claude"}`, err: "name the client and its hook event"},
		{name: "client not a string", args: `{"bb_client":1,"bb_event":"Stop"}`, err: "bb_client is not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, event, agent, payload, err := HookPayload(json.RawMessage(tc.args))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if client != tc.client || event != tc.event || agent != tc.agent {
				t.Errorf("client, event, agent = %q %q %q, want %q %q %q", client, event, agent, tc.client, tc.event, tc.agent)
			}
			if string(payload) != tc.wantIn {
				t.Errorf("payload\n%s\nwant\n%s", payload, tc.wantIn)
			}
		})
	}
}

func FuzzHookPayload(f *testing.F) {
	for _, s := range []string{`{"bb_client":"claude","bb_event":"PreToolUse","tool_input":"{\"file_path\":\"a\"}"}`,
		`{"bb_client":"codex","bb_event":"Stop","stop_hook_active":"true"}`, `{}`, `[]`, `{"bb_client":"claude","bb_event":"x","tool_input":"[1,2"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		client, event, _, payload, err := HookPayload(data)
		if err != nil {
			return
		}
		if client == "" || event == "" {
			t.Fatalf("no client or event without an error: %q %q", client, event)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(payload, &m) != nil || m == nil {
			t.Fatalf("payload is not a JSON object: %s", payload)
		}
		for _, k := range []string{hookArgClient, hookArgEvent, hookArgAgent} {
			if _, ok := m[k]; ok {
				t.Fatalf("payload keeps %s: %s", k, payload)
			}
		}
	})
}

// The hook tool answers with what the hook function says, as text (the
// client reads it as a command hook's stdout), writes notes to the log,
// and is not in tools/list: no model sees it.
func TestHookToolIsHiddenAndAnswers(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var log bytes.Buffer
	s := newServer(t, newService(t), Options{
		Hook: func(_ context.Context, client, event, agent string, payload []byte) ([]byte, string) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, client+" "+event+" "+agent+" "+string(payload))
			return []byte(`{"decision":"block","reason":"R"}`), "note \x1b[31mred"
		},
		HookLog: &log,
	})
	cs := connect(t, s)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		if tl.Name == HookTool {
			t.Fatalf("tools/list offers %s to the model", HookTool)
		}
	}
	r := callTool(t, cs, HookTool, map[string]any{"bb_client": "claude", "bb_event": "Stop", "session_id": "s1", "stop_hook_active": "false"})
	if r.IsError || text(r) != `{"decision":"block","reason":"R"}` {
		t.Fatalf("bb_hook answered %v %q", r.IsError, text(r))
	}
	if len(got) != 1 || got[0] != `claude Stop  {"session_id":"s1","stop_hook_active":false}` {
		t.Fatalf("hook function got %q", got)
	}
	if log.String() != "note \\x1b[31mred\n" {
		t.Fatalf("log = %q (the note, its control characters escaped)", log.String())
	}
	// Arguments that are no hook: nothing for the client, a note, and the
	// hook function is not called.
	log.Reset()
	r = callTool(t, cs, HookTool, map[string]any{"session_id": "s1"})
	if r.IsError || text(r) != "" {
		t.Fatalf("bb_hook without client and event answered %v %q", r.IsError, text(r))
	}
	if len(got) != 1 || !strings.Contains(log.String(), "name the client and its hook event") {
		t.Fatalf("calls %d, log %q", len(got), log.String())
	}
	// The model's own tools still work on the same session.
	if r := callTool(t, cs, "bb_summary", map[string]any{}); r.IsError {
		t.Fatalf("bb_summary failed: %s", text(r))
	}
}

// Without a hook function (bb serve's /mcp) there is no such tool.
func TestNoHookToolWithoutHookFunc(t *testing.T) {
	cs := connect(t, newServer(t, newService(t), Options{}))
	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: HookTool, Arguments: map[string]any{}})
	if err == nil && !r.IsError {
		t.Fatalf("bb_hook answered without a hook function: %q", text(r))
	}
}
