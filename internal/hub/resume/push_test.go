package resume

import (
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// TestParsePushInputErrorText walks every field of the push document with
// values of the wrong JSON type (and broken syntax): each is refused as
// INVALID_INPUT naming the field, never with the decoder's text.
func TestParsePushInputErrorText(t *testing.T) {
	wrong := []string{`7`, `"x"`, `true`, `[1]`, `{"a":1}`, `1e400`, `null`}
	var docs []string
	for _, v := range wrong {
		docs = append(docs, v,
			`{"task_id":`+v+`,"event":{"kind":"k","message":"m"}}`,
			`{"event":`+v+`}`,
			`{"event":{"kind":`+v+`,"message":"m"}}`,
			`{"event":{"kind":"k","message":`+v+`}}`,
			`{"memories":`+v+`}`,
			`{"memories":[`+v+`]}`,
			`{"memories":[{"key":`+v+`,"value":"v","scope":"global"}]}`,
			`{"memories":[{"key":"k","value":"v","value_type":`+v+`,"scope":"global"}]}`,
			`{"memories":[{"key":"k","value":"v","scope":`+v+`}]}`,
			`{"memories":[{"key":"k","value":"v","scope":"global","expires_at":`+v+`}]}`,
			`{"task_id":"t","artifacts":`+v+`}`,
			`{"task_id":"t","artifacts":[{"file_path":`+v+`}]}`,
			`{"task_id":"t","artifacts":[{"file_path":"a","content_type":`+v+`}]}`,
			`{"task_id":"t","task_status":`+v+`}`,
			`{"task_id":"t","task_status":{"status":`+v+`}}`,
			`{"task_id":"t","task_status":{"status":"completed","summary":`+v+`}}`)
	}
	docs = append(docs, `{"task_id":`, `{"event":{"kind":"k","message":"\u00zz"}}`, `{"event":{} }}`, `{,}`, ``)
	refused := 0
	for _, d := range docs {
		_, err := ParsePushInput([]byte(d))
		if err == nil {
			continue
		}
		refused++
		msg := hub.MessageOf(err)
		for _, bad := range []string{"json:", "Go struct", "Go value", "unmarshal", "hub.", "int64", "interface {}", "reflect"} {
			if strings.Contains(msg, bad) {
				t.Errorf("%s: message shows %q: %s", d, bad, msg)
			}
		}
		if hub.CodeOf(err) != hub.CodeInvalidInput {
			t.Errorf("%s: code %s", d, hub.CodeOf(err))
		}
	}
	if refused < len(docs)*2/3 {
		t.Fatalf("only %d of %d documents refused", refused, len(docs))
	}
}
