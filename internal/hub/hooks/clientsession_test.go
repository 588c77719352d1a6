package hooks_test

import (
	"context"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// An MCP server finds its session's agent by the session id its client
// handed it, by the client's process otherwise; a session id inherited
// from an outer client's environment loses to the process's own sessions.
func TestSessionOf(t *testing.T) {
	svc, _ := hookBoard(t, nil)
	ctx := context.Background()
	resolve := func(client, id string, pid int64) string {
		t.Helper()
		r, err := svc.ResolveSession(ctx, hooks.SessionInput{Client: client, SessionID: id, ClientPID: pid})
		if err != nil {
			t.Fatal(err)
		}
		return r.AgentID
	}
	// Claude session s-1: its hooks ran through a wrapper, so the process
	// walk stopped at the wrapper (pid 900), not Claude (pid 100).
	wrapped := resolve("claude", "s-1", 900)
	// Gemini session g-1 of process 200.
	gem := resolve("gemini", "g-1", 200)
	// Claude session s-2 of process 300, walked right.
	plain := resolve("claude", "s-2", 300)

	cases := []struct {
		name string
		ref  hooks.ClientRef
		want string
		code hub.Code
	}{
		{"named session, process unknown to the board", hooks.ClientRef{Client: "claude", SessionID: "s-1", PID: 100}, wrapped, ""},
		{"named session seen from this process", hooks.ClientRef{Client: "claude", SessionID: "s-2", PID: 300}, plain, ""},
		{"named id inherited by another client's server", hooks.ClientRef{Client: "claude", SessionID: "s-1", PID: 200}, gem, ""},
		{"process only", hooks.ClientRef{PID: 200}, gem, ""},
		{"unknown named session falls back to the process", hooks.ClientRef{Client: "claude", SessionID: "nope", PID: 300}, plain, ""},
		{"named session only", hooks.ClientRef{Client: "claude", SessionID: "s-2"}, plain, ""},
		{"nothing known", hooks.ClientRef{Client: "claude", SessionID: "nope", PID: 555}, "", hub.CodeNotFound},
		{"nothing named", hooks.ClientRef{}, "", hub.CodeInvalidArgs},
		{"control characters", hooks.ClientRef{Client: "claude", SessionID: "a\nb"}, "", hub.CodeInvalidArgs},
	}
	for _, c := range cases {
		hs, err := svc.SessionOf(ctx, c.ref)
		if c.code != "" {
			if he, ok := err.(*hub.Error); !ok || he.Code != c.code {
				t.Errorf("%s: got %v, want %s", c.name, err, c.code)
			}
			continue
		}
		if err != nil || hs.AgentID != c.want {
			t.Errorf("%s: got %q (%v), want %q", c.name, hs.AgentID, err, c.want)
		}
	}
}
