package clienttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// modelServer is a scripted model on loopback that speaks just enough of
// three vendors' streaming APIs for a real client to run a turn:
//   - Anthropic Messages: POST /v1/messages (SSE when "stream": true),
//     POST /v1/messages/count_tokens
//     (https://docs.anthropic.com/en/api/messages-streaming);
//   - OpenAI Responses: POST /v1/responses (SSE)
//     (https://platform.openai.com/docs/api-reference/responses-streaming);
//   - Gemini: POST /v1beta/models/<m>:streamGenerateContent (SSE with
//     alt=sse), :generateContent, :countTokens
//     (https://ai.google.dev/api/generate-content);
//   - OpenAI Chat Completions: POST /v1/chat/completions (SSE), in
//     chatcompletions_test.go.
//
// It records every request body: what it saw is the evidence of what
// reached the model's context. Each answer comes from the script, called
// with the request; a request the script does not claim (a title, a
// summary, a classifier the client runs on the side) gets a short text.
type modelServer struct {
	t   testing.TB
	url string
	srv *http.Server

	mu       sync.Mutex
	requests []modelRequest
	script   func(req modelRequest) []turnPart
}

// modelRequest is one recorded request.
type modelRequest struct {
	API  string // anthropic, openai, gemini, chat
	Path string
	Body string
	// Session is the client session the request belongs to, as the test
	// named it (from a marker in the prompt; "" when none).
	Session string
	// At is when the request arrived.
	At time.Time
}

// turnPart is one item of a scripted answer: text, or a tool call.
type turnPart struct {
	Text string
	// Tool is the tool's name; Input its arguments (a JSON object), or,
	// for a Responses custom tool (Codex's apply_patch), Raw its input.
	Tool  string
	Input map[string]any
	Raw   string
	// Custom marks an OpenAI Responses custom tool call.
	Custom bool
	// Item is a whole OpenAI Responses output item, sent as is (its
	// call_id filled in when empty).
	Item map[string]any
}

func newModelServer(t testing.TB, script func(req modelRequest) []turnPart) *modelServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &modelServer{t: t, url: "http://" + ln.Addr().String(), script: script}
	m.srv = &http.Server{Handler: m}
	go func() { _ = m.srv.Serve(ln) }()
	t.Cleanup(func() { _ = m.srv.Close() })
	return m
}

// Requests returns the recorded requests so far.
func (m *modelServer) Requests() []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]modelRequest(nil), m.requests...)
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	api := ""
	switch {
	case isChatCompletions(r.URL.Path):
		api = "chat"
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		api = "anthropic"
	case strings.HasSuffix(r.URL.Path, "/responses"):
		api = "openai"
	case strings.Contains(r.URL.Path, ":"):
		api = "gemini"
	}
	req := modelRequest{API: api, Path: r.URL.Path, Body: string(body), At: time.Now()}
	req.Session = sessionMarker(req.Body)
	m.mu.Lock()
	m.requests = append(m.requests, req)
	script := m.script
	m.mu.Unlock()
	switch {
	case api == "anthropic" && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
	case api == "anthropic":
		m.anthropic(w, body, script(req))
	case api == "openai":
		m.openai(w, script(req))
	case api == "chat":
		m.chat(w, body, script(req))
	case api == "gemini" && strings.HasSuffix(r.URL.Path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
	case api == "gemini":
		m.gemini(w, strings.HasSuffix(r.URL.Path, ":streamGenerateContent"), script(req))
	default:
		http.NotFound(w, r)
	}
}

// sessionMarker finds "[session X]" that the tests put in every prompt.
func sessionMarker(body string) string {
	i := strings.Index(body, "[session ")
	if i < 0 {
		return ""
	}
	rest := body[i+len("[session "):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func defaultParts(parts []turnPart) []turnPart {
	if len(parts) == 0 {
		return []turnPart{{Text: "ok"}}
	}
	return parts
}

// anthropic answers a Messages request, streamed or not.
func (m *modelServer) anthropic(w http.ResponseWriter, body []byte, parts []turnPart) {
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &in)
	parts = defaultParts(parts)
	var blocks []map[string]any
	stop := "end_turn"
	for i, p := range parts {
		if p.Tool != "" {
			input := p.Input
			if input == nil {
				input = map[string]any{}
			}
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", len(m.Requests()), i), "name": p.Tool, "input": input})
			stop = "tool_use"
		} else {
			blocks = append(blocks, map[string]any{"type": "text", "text": p.Text})
		}
	}
	msg := map[string]any{"id": fmt.Sprintf("msg_%d", len(m.Requests())), "type": "message", "role": "assistant", "model": in.Model,
		"stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 10}}
	if !in.Stream {
		msg["content"], msg["stop_reason"] = blocks, stop
		writeJSON(w, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	msg["content"], msg["stop_reason"] = []any{}, nil
	sse(w, "message_start", map[string]any{"type": "message_start", "message": msg})
	for i, b := range blocks {
		if b["type"] == "tool_use" {
			input, _ := json.Marshal(b["input"])
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		} else {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// openai answers a Responses request as a stream of output items.
func (m *modelServer) openai(w http.ResponseWriter, parts []turnPart) {
	parts = defaultParts(parts)
	n := len(m.Requests())
	id := fmt.Sprintf("resp_%d", n)
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	for i, p := range parts {
		var item map[string]any
		callID := fmt.Sprintf("call_%d_%d", n, i)
		switch {
		case p.Item != nil:
			item = map[string]any{}
			for k, v := range p.Item {
				item[k] = v
			}
			if item["call_id"] == nil {
				item["call_id"] = callID
			}
			if item["id"] == nil {
				item["id"] = "it_" + callID
			}
		case p.Custom:
			item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID, "name": p.Tool, "input": p.Raw, "status": "completed"}
		case p.Tool != "":
			args, _ := json.Marshal(p.Input)
			item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": p.Tool, "arguments": string(args), "status": "completed"}
			if p.Input == nil {
				item["arguments"] = "{}"
			}
		default:
			item = map[string]any{"type": "message", "id": "msg_" + callID, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": p.Text, "annotations": []any{}}}}
		}
		if ns, name, ok := strings.Cut(p.Tool, "."); ok && !p.Custom && p.Tool != "" {
			item["namespace"], item["name"] = ns, name
		}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": item})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}}})
}

// gemini answers generateContent, streamed (SSE) or not.
func (m *modelServer) gemini(w http.ResponseWriter, stream bool, parts []turnPart) {
	parts = defaultParts(parts)
	var gp []any
	for _, p := range parts {
		if p.Tool != "" {
			args := p.Input
			if args == nil {
				args = map[string]any{}
			}
			gp = append(gp, map[string]any{"functionCall": map[string]any{"name": p.Tool, "args": args}})
		} else {
			gp = append(gp, map[string]any{"text": p.Text})
		}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": gp}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  "gemini-2.5-flash",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "", resp)
}
