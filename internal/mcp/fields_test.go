package mcp

import (
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Core errors name the tool's parameters, never a command-line flag.
func TestErrorsNameTheParameter(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a := connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent_id": "alice"})
	for _, c := range []struct {
		tool string
		args map[string]any
		code hub.Code
		want string
	}{
		{"bb_reserve", map[string]any{"scope": "src/x.go", "bead": "task-1", "ttl_minutes": 2}, hub.CodeInvalidArgs,
			"ttl_minutes must be between 5 and 1440 minutes, got 2"},
		{"bb_reserve", map[string]any{"scope": "src/x.go", "bead": "task-1", "ttl_minutes": 0}, hub.CodeInvalidArgs,
			"ttl_minutes must be between 5 and 1440 minutes, got 0"},
		{"bb_reserve", map[string]any{"scope": "src/x.go", "bead": ""}, hub.CodeMissingBeadID, "bead is required"},
		{"bb_send", map[string]any{"to": "broadcast", "bead": "", "subject": "s", "body": "b"}, hub.CodeMissingBeadID, "bead is required"},
	} {
		msg := fail(t, a, c.tool, c.args, c.code)
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "--") {
			t.Errorf("%s(%v): message %q, want it to contain %q and no flag", c.tool, c.args, msg, c.want)
		}
	}
	// Without ttl_minutes the default applies (not given ≠ 0).
	if r := ok(t, a, "bb_reserve", map[string]any{"scope": "src/x.go", "bead": "task-1"}); r["reservation"] == nil {
		t.Fatalf("reserve with the default ttl: %v", r)
	}
}
