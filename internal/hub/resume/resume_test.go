package resume

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestSelectFocus(t *testing.T) {
	tk := func(id, status, reason, project string) *hub.Task {
		return &hub.Task{ID: id, Status: status, BlockedReason: reason, ProjectID: project}
	}
	next := tk("next", hub.TaskPending, "", "p")
	cases := []struct {
		name string
		st   FocusState
		want string
	}{
		{"keep in progress", FocusState{Current: tk("cur", hub.TaskInProgress, "", ""), Next: next}, "cur"},
		{"keep dependency-blocked", FocusState{Current: tk("cur", hub.TaskBlocked, "dependency", ""), CurrentUnresolved: 1, Next: next}, "cur"},
		{"drop failure-blocked", FocusState{Current: tk("cur", hub.TaskBlocked, "failure:x", ""), CurrentUnresolved: 1, Next: next}, "next"},
		{"drop resolved block", FocusState{Current: tk("cur", hub.TaskBlocked, "dependency", ""), Next: next}, "next"},
		{"assigned wins over pending focus", FocusState{Current: tk("cur", hub.TaskPending, "", ""),
			Assigned: []AssignedTask{{Task: tk("a1", hub.TaskPending, "", "p"), Unresolved: 1}, {Task: tk("a2", hub.TaskPending, "", "p")}}, Next: next}, "a2"},
		{"assigned outside project skipped", FocusState{Scoped: true, ProjectID: "p",
			Assigned: []AssignedTask{{Task: tk("a1", hub.TaskPending, "", "q")}}, Next: next}, "next"},
		{"keep pending focus", FocusState{Current: tk("cur", hub.TaskPending, "", ""), Next: next}, "cur"},
		{"completed focus moves on", FocusState{Current: tk("cur", hub.TaskCompleted, "", ""), Next: next}, "next"},
		{"nothing", FocusState{}, ""},
	}
	for _, c := range cases {
		if got := SelectFocus(c.st); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParsePushInput(t *testing.T) {
	ok := `{"task_id":"t","event":{"kind":"k","message":"m","metadata":{"a":1}},"memories":[{"key":"k","value":"v","scope":"global"}],"artifacts":[{"file_path":"p"}],"task_status":{"status":"completed"},"extra":true}`
	in, err := ParsePushInput([]byte(ok))
	if err != nil || in.TaskID != "t" || in.Event.Kind != "k" || len(in.Memories) != 1 || in.TaskStatus.Status != hub.TaskCompleted {
		t.Fatalf("%+v %v", in, err)
	}
	for doc, msg := range map[string]string{
		``:                                       "JSON input required via json flag or stdin pipe",
		`{}`:                                     "push requires at least one operation (event, memories, artifacts, or task_status)",
		`{"artifacts":[{"file_path":"a"}]}`:      "task_id is required when artifacts are provided",
		`{"task_status":{"status":"completed"}}`: "task_id is required when task_status is provided",
		`{"task_id":"t","task_status":{"status":"nope"}}`:                      "invalid task_status: invalid status 'nope'",
		`{"event":{"kind":"","message":"m"}}`:                                  "failed to insert event: event kind is required",
		`{"event":{"kind":"k","message":""}}`:                                  "failed to insert event: event message is required",
		`{"event":{"kind":"k","message":"` + strings.Repeat("x", 4097) + `"}}`: "failed to insert event: event message exceeds max length (4096)",
		`{"event":{"kind":"k","message":"m"}} {}`:                              "invalid JSON input: unexpected data after the JSON object",
	} {
		_, err := ParsePushInput([]byte(doc))
		if err == nil || err.Error() != msg {
			t.Errorf("%.40q: got %v, want %s", doc, err, msg)
		}
	}
	_, err = ParsePushInput(nil)
	if got := hub.RenderMessage(err, func(f string) string { return "--" + f }); got != "JSON input required via --json flag or stdin pipe" {
		t.Errorf("vybe's rendering: %q", got)
	}
	if _, err := ParsePushInput([]byte(`{"event":`)); err == nil || !strings.HasPrefix(err.Error(), "invalid JSON input: ") {
		t.Errorf("truncated: %v", err)
	}
}

func FuzzParsePushInput(f *testing.F) {
	for _, s := range []string{
		`{"task_id":"t","event":{"kind":"k","message":"m"}}`,
		`{"memories":[{"key":"k","value":{"x":[1,2]},"scope":"task","scope_id":"t","expires_at":"2026-01-01T00:00:00Z"}]}`,
		`{"task_id":"t","artifacts":[{"file_path":"a","content_type":"text/plain"}],"task_status":{"status":"blocked","summary":"s"}}`,
		`{}`, `[]`, `null`, `nol`, `[[[[`, `{"event":{"kind":x}}`, `{"event":null}`, `{"event":{"kind":"k","message":"m","metadata":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParsePushInput(b)
		if err != nil {
			if !hub.IsCode(err, hub.CodeInvalidInput) {
				t.Fatalf("unexpected code %s: %v", hub.CodeOf(err), err)
			}
			if m := err.Error(); strings.Contains(m, "invalid character") || strings.Contains(m, "max depth") || strings.Contains(m, "json: ") {
				t.Fatalf("the decoder's words reached the user: %v", err)
			}
			return
		}
		if in.Event == nil && len(in.Memories) == 0 && len(in.Artifacts) == 0 && in.TaskStatus == nil {
			t.Fatal("accepted a push with no operation")
		}
		if (len(in.Artifacts) > 0 || in.TaskStatus != nil) && in.TaskID == "" {
			t.Fatal("accepted artifacts/status without task_id")
		}
		if in.Event != nil && (in.Event.Kind == "" || in.Event.Message == "" || len(in.Event.Kind) > hub.MaxEventKindLen) {
			t.Fatalf("accepted a bad event %+v", in.Event)
		}
		if in.TaskStatus != nil && hub.ValidateTaskStatus(in.TaskStatus.Status) != nil {
			t.Fatal("accepted a bad status")
		}
		// What was accepted re-encodes and parses to the same thing.
		re, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		in2, err := ParsePushInput(re)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", re, err)
		}
		re2, _ := json.Marshal(in2)
		if string(re) != string(re2) {
			t.Fatalf("round trip differs:\n%s\n%s", re, re2)
		}
	})
}

// bb push answers bad JSON in the board's words (issue 38 item 10), never
// the decoder's ("invalid character 'o' in literal null", "exceeded max
// depth").
func TestPushJSONErrorsInTheBoardsWords(t *testing.T) {
	for doc, want := range map[string]string{
		`nol`:                                `invalid JSON input: this is not valid JSON at line 1, column 2 (near "ol")`,
		"{\n  \"event\": {\"kind\": x}}":     `invalid JSON input: this is not valid JSON at line 2, column 21 (near "x}}")`,
		strings.Repeat("[", 20000):           "invalid JSON input: the document nests arrays and objects too deeply, at line 1, column 10001",
		`{"event":{"kind":"k","message":"m"`: "invalid JSON input: the document ends too early",
	} {
		_, err := ParsePushInput([]byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%.40q: %v, want %q", doc, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), "invalid character") || strings.Contains(err.Error(), "max depth") || strings.Contains(err.Error(), "literal")) {
			t.Errorf("%.40q: the decoder's words reached the user: %v", doc, err)
		}
	}
}
