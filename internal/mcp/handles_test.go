package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// TestHandlesEveryIDParameter runs every MCP parameter that names a task or
// a message with a short handle: each resolves to the full id (stored and
// echoed as such), and an ambiguous handle is refused with the candidates.
func TestHandlesEveryIDParameter(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a, b := connect(t, s), connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent": "bob"})
	ok(t, b, "bb_inbox", nil)

	mk := func(title string) (id, handle string) {
		m := ok(t, a, "bb_task_create", map[string]any{"title": title})
		return m["id"].(string), m["handle"].(string)
	}
	t1, h1 := mk("Write the parser")
	t2, h2 := mk("Write the tests")
	if h1 != hub.TaskHandle(t1) || !strings.Contains(t1, h1) {
		t.Fatalf("handle %q of %q", h1, t1)
	}
	mailID := ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": h2, "category": "HANDOFF", "subject": "s", "body": "b"})["message_id"].(string)
	msgHandle := hub.ShortID(mailID)

	js := func(v any) string { x, _ := json.Marshal(v); return string(x) }
	cases := []struct {
		tool  string
		cs    int // 0 alice, 1 bob
		args  map[string]any
		wants string // the full id the reply must carry
	}{
		{"bb_task_list", 0, map[string]any{"id": h1}, t1},
		{"bb_send_mail", 0, map[string]any{"agent": "bob", "bead": h1, "subject": "s", "body": "b"}, `"bead_id":"` + t1},
		{"bb_reserve", 0, map[string]any{"scope": "src/parser.go", "bead": h1}, `"bead_id":"` + t1},
		{"bb_inbox", 1, map[string]any{"bead": h2}, `"bead_id":"` + t2},
		{"bb_memory_set", 0, map[string]any{"key": "k", "value": "v", "scope": "task", "scope_id": h1}, t1},
		{"bb_memory_get", 0, map[string]any{"key": "k", "scope": "task", "scope_id": h1}, t1},
		{"bb_send_mail", 1, map[string]any{"in_reply_to": msgHandle, "body": "on it"}, `"in_reply_to":"` + mailID},
		{"bb_ack", 1, map[string]any{"message_id": msgHandle}, mailID},
		{"bb_resume", 0, map[string]any{"focus": h2}, t2},
		{"bb_task_begin", 0, map[string]any{"id": h1}, t1},
		{"bb_task_complete", 0, map[string]any{"id": h1, "summary": "done"}, t1},
	}
	for _, c := range cases {
		sess := a
		if c.cs == 1 {
			sess = b
		}
		got := js(ok(t, sess, c.tool, c.args))
		if !strings.Contains(got, c.wants) {
			t.Errorf("%s(%v): reply lacks %s: %s", c.tool, c.args, c.wants, got)
		}
	}

	// An ambiguous handle is refused, listing the candidates.
	for _, tool := range []string{"bb_task_begin", "bb_task_list"} {
		msg := fail(t, a, tool, map[string]any{"id": "task_1"}, hub.CodeInvalidArgs)
		if !strings.Contains(msg, "ambiguous") || !strings.Contains(msg, t1) || !strings.Contains(msg, t2) {
			t.Errorf("%s with an ambiguous handle: %q", tool, msg)
		}
	}
	fail(t, a, "bb_task_begin", map[string]any{"id": "ffffffffffff"}, hub.CodeNotFound)
}
