package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/blackboard-hub/bb/internal/hub"
)

// FuzzDecodeArgs: any arguments either decode into the tool's input type
// or fail with INVALID_INPUT and a one-line message; never a panic.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"content":"x"}`, `{"content":1}`, `{"content":"x","tags":["a"],"reply_to":3}`,
		`{"content":"x","bogus":true}`, `[]`, `"s"`, `{"content":"x","refs":null}`, `{"content":"x","reply_to":1.5}`, `{"content":"\u0000"}`} {
		f.Add([]byte(s))
	}
	schema, err := jsonschema.For[postIn](schemaOpts)
	if err != nil {
		f.Fatal(err)
	}
	shapeInput("bb_post_message", schema, true)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in postIn
		err := decodeArgs("bb_post_message", json.RawMessage(raw), resolved, &in)
		if err == nil {
			return
		}
		if hub.CodeOf(err) != hub.CodeInvalidInput {
			t.Fatalf("code %s for %q", hub.CodeOf(err), raw)
		}
		for _, c := range hub.MessageOf(err) {
			if c == '\n' {
				t.Fatalf("multi-line message for %q", raw)
			}
		}
	})
}
