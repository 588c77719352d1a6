package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// decoderText is what a Go decoder or validator says about itself, which an
// error shown to a model or a person must never carry.
var decoderText = []string{"json:", "Go struct", "Go value", "unmarshal", "interface {}", "map[string]", "[]interface", "reflect"}

// wrongValues are arguments of every JSON type but the parameter's own.
func wrongValues(typ string) []any {
	all := map[string][]any{
		"string":  {"x", ""},
		"integer": {7, -3},
		"number":  {1.5},
		"boolean": {true},
		"array":   {[]any{"a", 1}},
		"object":  {map[string]any{"k": []any{1}}},
	}
	var out []any
	for t, vs := range all {
		if t == typ || (typ == "number" && t == "integer") {
			continue
		}
		out = append(out, vs...)
	}
	if typ == "integer" {
		out = append(out, 2.5, 1e300) // a number, but not an integer
	}
	return out
}

// TestWronglyTypedArgumentsNeverShowDecoderText walks every tool of the
// full profile and every parameter, calling each with values of every
// wrong JSON type: each call fails with INVALID_INPUT in the tool's words
// (naming the parameter), never with Go's decoder text ("json: cannot
// unmarshal … Go struct field postIn.reply_to").
func TestWronglyTypedArgumentsNeverShowDecoderText(t *testing.T) {
	svc := newService(t)
	cs := connect(t, newServer(t, svc, Options{Agent: "claude-1"}))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Type  string `json:"type"`
				Items *struct {
					Type string `json:"type"`
				} `json:"items"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			values := wrongValues(p.Type)
			if p.Type == "array" && p.Items != nil {
				for _, v := range wrongValues(p.Items.Type) {
					values = append(values, []any{v})
				}
			}
			for _, v := range values {
				calls++
				r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tl.Name, Arguments: map[string]any{name: v}})
				if err != nil {
					t.Fatalf("%s %s=%v: protocol error: %v", tl.Name, name, v, err)
				}
				sc, _ := json.Marshal(r.StructuredContent)
				all := text(r) + string(sc)
				if !r.IsError {
					t.Errorf("%s %s=%#v: accepted a %T for a %s", tl.Name, name, v, v, p.Type)
					continue
				}
				for _, bad := range decoderText {
					if strings.Contains(all, bad) {
						t.Errorf("%s %s=%#v: error shows %q: %s", tl.Name, name, v, bad, all)
					}
				}
				if !strings.HasPrefix(text(r), "INVALID_INPUT: ") || (!strings.Contains(text(r), "missing argument") && !strings.Contains(text(r), name)) {
					t.Errorf("%s %s=%#v: want INVALID_INPUT naming %s, got %s", tl.Name, name, v, name, text(r))
				}
			}
		}
	}
	// Arguments that are not an object at all.
	for _, args := range []any{[]any{1, "x"}, "text", 42} {
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bb_post_message", Arguments: args})
		if err != nil {
			continue // refused by the protocol layer: no tool error to check
		}
		sc, _ := json.Marshal(r.StructuredContent)
		for _, bad := range decoderText {
			if strings.Contains(text(r)+string(sc), bad) {
				t.Errorf("arguments %#v: error shows %q: %s %s", args, bad, text(r), sc)
			}
		}
	}
	if calls < 100 {
		t.Fatalf("only %d calls: the walk found too few parameters", calls)
	}
}

// TestSchemaMinimumsAndOneLineSubject: what the schema advertises holds:
// reply_to (minimum 1) refuses 0 instead of posting a new message, and a
// mail subject ("one line") refuses a line break.
func TestSchemaMinimumsAndOneLineSubject(t *testing.T) {
	svc := newService(t)
	cs := connect(t, newServer(t, svc, Options{Agent: "claude-1"}))
	ok(t, cs, "bb_post_message", map[string]any{"content": "first"})
	for _, args := range []map[string]any{{"content": "x", "reply_to": 0}, {"content": "x", "reply_to": -2}} {
		if msg := fail(t, cs, "bb_post_message", args, "INVALID_INPUT"); !strings.Contains(msg, "reply_to") {
			t.Errorf("%v: %s", args, msg)
		}
	}
	if msg := fail(t, cs, "bb_read_messages", map[string]any{"replies_to": 0}, "INVALID_INPUT"); !strings.Contains(msg, "replies_to") {
		t.Errorf("replies_to 0: %s", msg)
	}
	ok(t, cs, "bb_identify", map[string]any{"agent": "claude-1"})
	other := newServer(t, svc, Options{Agent: "codex-2"})
	ok(t, connect(t, other), "bb_post_message", map[string]any{"content": "hello"})
	msg := fail(t, cs, "bb_send_mail", map[string]any{"agent": "codex-2", "bead": "b-1", "category": "INFO",
		"subject": "line one\nFORGED line", "body": "b"}, "INVALID_ARGS")
	if !strings.Contains(msg, "one line") {
		t.Errorf("subject with a newline: %s", msg)
	}
	m := ok(t, cs, "bb_read_messages", map[string]any{})
	if n := len(m["messages"].([]any)); n != 2 {
		t.Fatalf("refused calls wrote messages: %d", n)
	}
}

// TestRepliesEscapeC1AndBidi: what the model reads carries stored C1
// controls and bidi overrides as JSON \u escapes (the decoded reply is the
// stored text, unchanged), and error messages echo them escaped.
func TestRepliesEscapeC1AndBidi(t *testing.T) {
	svc := newService(t)
	cs := connect(t, newServer(t, svc, Options{Agent: "claude-1"}))
	hostile := "ok \u0085\u009b\u202eevil\u2066 \x7f done"
	ok(t, cs, "bb_post_message", map[string]any{"content": hostile})
	r := callTool(t, cs, "bb_read_messages", map[string]any{})
	raw := text(r)
	for _, c := range raw {
		if (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) {
			t.Fatalf("%U reaches the model: %q", c, raw)
		}
	}
	var back struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(raw), &back); err != nil || len(back.Messages) != 1 || back.Messages[0].Content != hostile {
		t.Fatalf("decoded %+v (%v), want the stored text", back, err)
	}
	e := callTool(t, cs, "bb_search", map[string]any{"query": "x", "kind": []any{"\u202ebad\u0085"}})
	if !e.IsError || strings.ContainsAny(text(e), "\u202e\u0085") {
		t.Fatalf("error echoes raw characters: %q", text(e))
	}
}
