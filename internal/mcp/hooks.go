package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/termtext"
)

// HookTool is the tool through which a coding-agent client's hooks reach
// this server instead of starting a `bb hook` process per event: Claude
// Code's "mcp_tool" hooks (2.1.118 and later) call a tool of an MCP server
// the session already runs, with an input object whose string values are
// filled from the hook's own input (`${session_id}`, `${tool_input}`: an
// object is inserted as its JSON text), and read the tool's text as they
// read a command hook's stdout (https://code.claude.com/docs/en/hooks).
//
// It is not offered to the model: tools/list leaves it out (a hook's call
// names the tool itself; Claude Code 2.1.328 calls a tool its list does not
// show), so it costs no context and no model can pick it.
const HookTool = "bb_hook"

// The arguments that say what the hook is; every other argument is a field
// of the client's hook input.
const (
	hookArgClient = "bb_client"
	hookArgEvent  = "bb_event"
	hookArgAgent  = "bb_agent"
)

// HookFunc answers one hook event of a client, given the hook input the
// client would have written on a command hook's stdin: the reply exactly as
// `bb hook <client> <event>` prints it (nil for none) and a note for the
// log. It never fails: a hook fails open.
type HookFunc func(ctx context.Context, client, event, agent string, payload []byte) (out []byte, note string)

// jsonFields are the hook input fields whose values are objects: a client
// that fills the tool's input by text (Claude Code) inserts them as JSON
// text, which is decoded back here.
var jsonFields = map[string]bool{"tool_input": true, "tool_response": true}

// boolFields are the hook input fields whose values are booleans
// (inserted as "true" or "false" by text).
var boolFields = map[string]bool{"stop_hook_active": true}

// HookPayload rebuilds a client's hook input from the tool's arguments:
// bb_client, bb_event and bb_agent say what the hook is, every other
// argument is a field of the input. A string that holds an object field's
// JSON text becomes that object again, "true"/"false" of a boolean field a
// boolean, and an empty string (what a client inserts for a field its
// event does not have) is left out. The error says what is wrong with the
// arguments in a user's words.
func HookPayload(raw json.RawMessage) (client, event, agent string, payload []byte, err error) {
	var args map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil || args == nil {
		return "", "", "", nil, fmt.Errorf("the arguments are not a JSON object")
	}
	str := func(key string) (string, error) {
		v, ok := args[key]
		if !ok {
			return "", nil
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", fmt.Errorf("%s is not a string", key)
		}
		return strings.TrimSpace(s), nil
	}
	if client, err = str(hookArgClient); err != nil {
		return "", "", "", nil, err
	}
	if event, err = str(hookArgEvent); err != nil {
		return "", "", "", nil, err
	}
	if agent, err = str(hookArgAgent); err != nil {
		return "", "", "", nil, err
	}
	if client == "" || event == "" {
		return "", "", "", nil, fmt.Errorf("%s and %s name the client and its hook event (bb install writes them)", hookArgClient, hookArgEvent)
	}
	in := make(map[string]json.RawMessage, len(args))
	for k, v := range args {
		if k == hookArgClient || k == hookArgEvent || k == hookArgAgent {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			in[k] = v // already typed (a client that passes values as they are)
			continue
		}
		switch {
		case s == "":
			continue
		case jsonFields[k] && json.Valid([]byte(s)):
			in[k] = json.RawMessage(s)
		case boolFields[k] && (s == "true" || s == "false"):
			in[k] = json.RawMessage(s)
		default:
			in[k] = v
		}
	}
	payload, err = json.Marshal(in)
	if err != nil {
		return "", "", "", nil, fmt.Errorf("the arguments cannot be read as a hook input")
	}
	return strings.ToLower(client), event, agent, payload, nil
}

// addHookTool serves HookTool when the server was given a HookFunc.
func (s *Server) addHookTool() {
	if s.opts.Hook == nil {
		return
	}
	def := &sdk.Tool{Name: HookTool, Description: "Answers the client's hooks (wired by bb install; not for the model).",
		InputSchema: map[string]any{"type": "object"}}
	s.sdk.AddTool(def, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		client, event, agent, payload, err := HookPayload(raw)
		if err != nil {
			s.hookNote("bb hook: " + err.Error() + "; nothing done")
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: ""}}}, nil
		}
		out, note := s.opts.Hook(ctx, client, event, agent, payload)
		if note != "" {
			s.hookNote(note)
		}
		// The client reads the text as a command hook's stdout: the reply,
		// or nothing.
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}}, nil
	})
}

// hookNote writes a hook's note where the client keeps the server's log
// (bb mcp's stderr), as a command hook writes it on its own stderr.
func (s *Server) hookNote(note string) {
	if s.opts.HookLog == nil {
		return
	}
	s.hookLogMu.Lock()
	defer s.hookLogMu.Unlock()
	_, _ = io.WriteString(s.opts.HookLog, termtext.Text(strings.TrimRight(note, "\n"))+"\n")
}

// hideHookTool leaves HookTool out of tools/list: hooks name it, the model
// never sees it.
func hideHookTool(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*sdk.ListToolsResult); ok && err == nil && method == "tools/list" {
			kept := r.Tools[:0:0]
			for _, t := range r.Tools {
				if t.Name != HookTool {
					kept = append(kept, t)
				}
			}
			r.Tools = kept
		}
		return res, err
	}
}
