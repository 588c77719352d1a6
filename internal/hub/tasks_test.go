package hub

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func graphNext(g map[string][]string) func(string) ([]string, error) {
	return func(x string) ([]string, error) { return g[x], nil }
}

func TestDependsOnReachable(t *testing.T) {
	g := map[string][]string{"a": {"b"}, "b": {"c", "d"}, "d": {"e"}}
	for _, c := range []struct {
		from, to string
		want     bool
	}{{"a", "e", true}, {"a", "a", true}, {"e", "a", false}, {"c", "d", false}, {"b", "e", true}} {
		got, err := DependsOnReachable(c.from, c.to, graphNext(g))
		if err != nil || got != c.want {
			t.Errorf("%s->%s = %v, %v; want %v", c.from, c.to, got, err, c.want)
		}
	}
	// A cycle already in the data does not loop forever.
	g = map[string][]string{"a": {"b"}, "b": {"a"}}
	if got, _ := DependsOnReachable("a", "z", graphNext(g)); got {
		t.Error("z is not reachable")
	}
}

// FuzzDependsOnReachable builds a graph from bytes, adds only the edges the
// check allows, and verifies the result is acyclic and that every rejected
// edge would indeed have closed a cycle.
func FuzzDependsOnReachable(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 2, 0})
	f.Add([]byte{3, 3})
	f.Add([]byte{0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 4, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		const n = 8
		g := map[string][]string{}
		name := func(x byte) string { return fmt.Sprintf("t%d", x%n) }
		for i := 0; i+1 < len(b); i += 2 {
			task, dep := name(b[i]), name(b[i+1])
			cyc, err := DependsOnReachable(dep, task, graphNext(g))
			if err != nil {
				t.Fatal(err)
			}
			if cyc != reachableRef(g, dep, task) {
				t.Fatalf("check disagrees with reference for %s -> %s in %v", task, dep, g)
			}
			if !cyc {
				g[task] = append(g[task], dep)
			}
		}
		for i := 0; i < n; i++ {
			for _, d := range g[name(byte(i))] {
				if reachableRef(g, d, name(byte(i))) {
					t.Fatalf("cycle through %s in %v", name(byte(i)), g)
				}
			}
		}
	})
}

// reachableRef is a plain recursive reference implementation.
func reachableRef(g map[string][]string, from, to string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(x string) bool {
		if x == to {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, d := range g[x] {
			if walk(d) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

func TestSelectFocus(t *testing.T) {
	tk := func(id, status, reason, project string) *Task {
		return &Task{ID: id, Status: status, BlockedReason: reason, ProjectID: project}
	}
	next := tk("next", TaskPending, "", "p")
	cases := []struct {
		name string
		st   FocusState
		want string
	}{
		{"keep in progress", FocusState{Current: tk("cur", TaskInProgress, "", ""), Next: next}, "cur"},
		{"keep dependency-blocked", FocusState{Current: tk("cur", TaskBlocked, "dependency", ""), CurrentUnresolved: 1, Next: next}, "cur"},
		{"drop failure-blocked", FocusState{Current: tk("cur", TaskBlocked, "failure:x", ""), CurrentUnresolved: 1, Next: next}, "next"},
		{"drop resolved block", FocusState{Current: tk("cur", TaskBlocked, "dependency", ""), Next: next}, "next"},
		{"assigned wins over pending focus", FocusState{Current: tk("cur", TaskPending, "", ""),
			Assigned: []AssignedTask{{Task: tk("a1", TaskPending, "", "p"), Unresolved: 1}, {Task: tk("a2", TaskPending, "", "p")}}, Next: next}, "a2"},
		{"assigned outside project skipped", FocusState{Scoped: true, ProjectID: "p",
			Assigned: []AssignedTask{{Task: tk("a1", TaskPending, "", "q")}}, Next: next}, "next"},
		{"keep pending focus", FocusState{Current: tk("cur", TaskPending, "", ""), Next: next}, "cur"},
		{"completed focus moves on", FocusState{Current: tk("cur", TaskCompleted, "", ""), Next: next}, "next"},
		{"nothing", FocusState{}, ""},
	}
	for _, c := range cases {
		if got := SelectFocus(c.st); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParseExpiresIn(t *testing.T) {
	for in, want := range map[string]time.Duration{"90m": 90 * time.Minute, "1h30m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, " 10s ": 10 * time.Second} {
		got, err := ParseExpiresIn(in)
		if err != nil || got != want {
			t.Errorf("%q = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1x", "d", "-1h", "0s", "1.5d", "-2d", "99999999999d", "1e3h5"} {
		if _, err := ParseExpiresIn(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	_, err := ParseExpiresIn("1x")
	if err.Error() != `invalid expires-in duration: invalid duration format: unsupported duration: "1x"` {
		t.Errorf("message: %v", err)
	}
}

func FuzzParseExpiresIn(f *testing.F) {
	for _, s := range []string{"90m", "7d", "2w", "1x", "", "-1h", "1h30m", "0d", "9223372036854775807w", "1.5h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseExpiresIn(s)
		if err != nil {
			if !IsCode(err, CodeInvalidInput) || !strings.HasPrefix(err.Error(), "invalid expires-in duration: ") {
				t.Fatalf("%q: bad error %v", s, err)
			}
			return
		}
		if d <= 0 || d > 100*365*24*time.Hour {
			t.Fatalf("%q = %v out of range", s, d)
		}
	})
}

func TestInferValueType(t *testing.T) {
	for in, want := range map[string]string{"true": "boolean", "false": "boolean", "3": "number", "-2.5e3": "number",
		`{"a":1}`: "json", "[1]": "array", "hello": "string", "": "string", "{bad": "string", "[x": "string"} {
		if got := InferValueType(in); got != want {
			t.Errorf("%q = %s, want %s", in, got, want)
		}
	}
}

func TestParsePushInput(t *testing.T) {
	ok := `{"task_id":"t","event":{"kind":"k","message":"m","metadata":{"a":1}},"memories":[{"key":"k","value":"v","scope":"global"}],"artifacts":[{"file_path":"p"}],"task_status":{"status":"completed"},"extra":true}`
	in, err := ParsePushInput([]byte(ok))
	if err != nil || in.TaskID != "t" || in.Event.Kind != "k" || len(in.Memories) != 1 || in.TaskStatus.Status != TaskCompleted {
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
	if got := RenderMessage(err, func(f string) string { return "--" + f }); got != "JSON input required via --json flag or stdin pipe" {
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
		`{}`, `[]`, `null`, `{"event":null}`, `{"event":{"kind":"k","message":"m","metadata":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParsePushInput(b)
		if err != nil {
			if !IsCode(err, CodeInvalidInput) {
				t.Fatalf("unexpected code %s: %v", CodeOf(err), err)
			}
			return
		}
		if in.Event == nil && len(in.Memories) == 0 && len(in.Artifacts) == 0 && in.TaskStatus == nil {
			t.Fatal("accepted a push with no operation")
		}
		if (len(in.Artifacts) > 0 || in.TaskStatus != nil) && in.TaskID == "" {
			t.Fatal("accepted artifacts/status without task_id")
		}
		if in.Event != nil && (in.Event.Kind == "" || in.Event.Message == "" || len(in.Event.Kind) > MaxEventKindLen) {
			t.Fatalf("accepted a bad event %+v", in.Event)
		}
		if in.TaskStatus != nil && ValidateTaskStatus(in.TaskStatus.Status) != nil {
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
