package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// A server started for a client session its client named (Claude Code's
// $CLAUDE_CODE_SESSION_ID) works as that session's hook agent even when
// the process walk of the hooks found another process (a hook run through
// a wrapper), and cannot take another id through bb_identify.
func TestClientSessionIdentity(t *testing.T) {
	svc := newService(t)
	res, err := svc.ResolveSession(context.Background(), hooks.SessionInput{Client: "claude", SessionID: "s-9", ClientPID: 9001})
	if err != nil {
		t.Fatal(err)
	}
	me := res.AgentID
	cs := connect(t, newServer(t, svc, Options{ClientPID: 4242, Client: "claude", ClientSessionID: "s-9"}))
	if !strings.Contains(cs.InitializeResult().Instructions, "Your agent id is "+me) {
		t.Fatalf("instructions do not name %s: %q", me, cs.InitializeResult().Instructions)
	}
	if msg := fail(t, cs, "bb_identify", map[string]any{"agent": "someone-else"}, hub.CodeForbidden); !strings.Contains(msg, me) {
		t.Fatalf("refusal must name the session's id %s: %q", me, msg)
	}
	if m := ok(t, cs, "bb_post_message", map[string]any{"content": "x"}); m["from_agent"] != me {
		t.Fatalf("post: %v", m)
	}
}
