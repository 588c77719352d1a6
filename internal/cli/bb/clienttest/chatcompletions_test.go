package clienttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAI Chat Completions, the API of Qwen Code and of GitHub Copilot
// CLI's custom providers (COPILOT_PROVIDER_WIRE_API=completions):
// POST /v1/chat/completions, streamed as "chat.completion.chunk" events
// ending with "data: [DONE]", or one "chat.completion" object.
// https://platform.openai.com/docs/api-reference/chat/create and
// https://platform.openai.com/docs/api-reference/chat-streaming

// isChatCompletions reports whether a request path is a Chat Completions
// call (the model server routes it before its other APIs).
func isChatCompletions(path string) bool { return strings.HasSuffix(path, "/chat/completions") }

// chat answers a Chat Completions request, streamed or not.
func (m *modelServer) chat(w http.ResponseWriter, body []byte, parts []turnPart) {
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &in)
	parts = defaultParts(parts)
	n := len(m.Requests())
	var text strings.Builder
	var calls []map[string]any
	for i, p := range parts {
		if p.Tool == "" {
			text.WriteString(p.Text)
			continue
		}
		if p.Custom {
			// A custom (freeform) tool call: its input is raw text.
			// https://platform.openai.com/docs/guides/function-calling#custom-tools
			calls = append(calls, map[string]any{"index": len(calls), "id": fmt.Sprintf("call_%d_%d", n, i), "type": "custom",
				"custom": map[string]any{"name": p.Tool, "input": p.Raw}})
			continue
		}
		args, _ := json.Marshal(p.Input)
		if p.Input == nil {
			args = []byte("{}")
		}
		calls = append(calls, map[string]any{"index": len(calls), "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": p.Tool, "arguments": string(args)}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	id := fmt.Sprintf("chatcmpl-%d", n)
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !in.Stream {
		msg := map[string]any{"role": "assistant", "content": text.String()}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": in.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": in.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if text.Len() > 0 {
		chunk(map[string]any{"content": text.String()}, nil)
	}
	for _, c := range calls {
		chunk(map[string]any{"tool_calls": []any{c}}, nil)
	}
	chunk(map[string]any{}, finish)
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": in.Model, "choices": []any{}, "usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// chatProgress finds, in a Chat Completions request, the step of the
// latest prompt (a user message holding "[session …]", which clients may
// prefix with their own context) and how many tool results came after it.
func chatProgress(body string) (step string, done int) {
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	// A request without tools is a client's side request (a title, a
	// summary) quoting the prompt: not a step of the conversation.
	if json.Unmarshal([]byte(body), &req) != nil || len(req.Tools) == 0 {
		return "", 0
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			if text := chatText(msg.Content); strings.Contains(text, "[session ") && lastStep(text) != "" {
				step, done = lastStep(text), 0
			}
		case "tool":
			done++
		}
	}
	return step, done
}

// chatText is a message's content as text (a string, or text parts).
func chatText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
