package server_test

import (
	"strings"
	"testing"
	"time"
)

// Remote mode: with BB_SERVER every bb command talks to the server and
// prints exactly what it prints against the local board.
func TestRemoteModeMatchesLocal(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, withToken("tok-123-0123456789ab"), withClock(now))
	local := []string{"BB_NOW=" + now.Format(time.RFC3339)}
	remote := append([]string{"BB_SERVER=" + e.http.URL, "BB_TOKEN=tok-123-0123456789ab"}, local...)
	// The remote client runs somewhere without a board.
	elsewhere := t.TempDir()

	do := func(env []string, dir string, args ...string) (string, string, int) {
		t.Helper()
		return runCode(t, dir, env, args...)
	}
	// Mutations made remotely land on the server's board.
	for _, args := range [][]string{
		{"--as", "alice", "status", "set", "Refactor the parser", "--status", "coding", "--progress", "40"},
		{"--as", "bob", "status", "set", "Waiting", "--status", "blocked", "--blockers", "needs the schema"},
		{"--as", "alice", "post", "Parser landed", "--tag", "parser", "--ref", "gh:issue:42", "--priority", "high"},
		{"--as", "bob", "post", "Thanks!", "--reply-to", "1"},
		{"agent", "register", "--name", "amber-otter", "--role", "worker"},
		{"agent", "register", "--name", "cobalt-harbor", "--role", "reviewer"},
		{"agent", "send", "--from", "amber-otter", "--to", "cobalt-harbor", "--bead", "bb-1", "--category", "HANDOFF", "--subject", "Review", "--body", "Please review"},
		{"agent", "heartbeat", "--agent", "amber-otter"},
		{"--as", "amber-otter", "task", "create", "Ship the parser"},
		{"--as", "amber-otter", "memory", "set", "build", "make test", "--scope", "project", "--scope-id", "web"},
		{"agent", "reserve", "--agent", "amber-otter", "--scope", "src/parser/*", "--bead", "bb-1"},
	} {
		if out, errOut, code := do(remote, elsewhere, args...); code != 0 {
			t.Fatalf("remote bb %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	// Every read prints the same thing, in human and JSON mode.
	reads := [][]string{
		{"status"}, {"status", "get", "alice"}, {"log"}, {"log", "--tag", "parser"}, {"message", "1"},
		{"refs", "gh:issue:42"}, {"summary"}, {"events"}, {"events", "--type", "message.posted"},
		{"artifacts"}, {"agent", "list"}, {"agent", "show", "amber-otter"},
		{"agent", "inbox", "--agent", "cobalt-harbor"}, {"agent", "status"},
		{"task", "list"}, {"memory", "list"}, {"memory", "get", "build", "--scope", "project", "--scope-id", "web"},
		{"--as", "amber-otter", "resume", "--peek"},
		// errors too
		{"message", "99"}, {"status", "get", "nobody"}, {"log", "--limit", "x"},
	}
	for _, args := range reads {
		for _, mode := range [][]string{nil, {"--json"}} {
			a := append(append([]string{}, mode...), args...)
			lo, le, lc := do(local, e.dir, a...)
			ro, re, rc := do(remote, elsewhere, a...)
			// Notices are shown once, when they change: whichever run came
			// first told the agent.
			le, re = withoutNotices(le), withoutNotices(re)
			if lo != ro || le != re || lc != rc {
				t.Errorf("bb %s differs\nlocal  (exit %d):\n%s%s\nremote (exit %d):\n%s%s", strings.Join(a, " "), lc, lo, le, rc, ro, re)
			}
		}
	}
	// A mutation's reply is identical too (same clock, same rules): ack.
	inbox, _, _ := do(local, e.dir, "--json", "agent", "inbox", "--agent", "cobalt-harbor")
	id := between(inbox, `"message_id": "`, `"`)
	if id == "" {
		t.Fatalf("no message id in %s", inbox)
	}
	ro, re, rc := do(remote, elsewhere, "agent", "ack", "--agent", "cobalt-harbor", "--message", id)
	lo, le, lc := do(local, e.dir, "agent", "ack", "--agent", "cobalt-harbor", "--message", id) // acked already: same reply
	le, re = withoutNotices(le), withoutNotices(re)
	if ro != lo || re != le || rc != lc || rc != 0 {
		t.Errorf("ack differs:\nremote %d %s%s\nlocal %d %s%s", rc, ro, re, lc, lo, le)
	}
	// Remote errors keep their codes and exit statuses.
	_, errOut, code := do(remote, elsewhere, "agent", "ack", "--agent", "amber-otter", "--message", id)
	if code != 1 || !strings.Contains(errOut, "ACK_FORBIDDEN") {
		t.Errorf("forbidden ack: %d %s", code, errOut)
	}
	// A wrong token or an unreachable server is a clear error.
	_, errOut, code = do([]string{"BB_SERVER=" + e.http.URL, "BB_TOKEN=wrong"}, elsewhere, "status")
	if code != 1 || !strings.Contains(errOut, "UNAUTHORIZED") {
		t.Errorf("wrong token: %d %s", code, errOut)
	}
	_, errOut, code = do([]string{"BB_SERVER=http://127.0.0.1:1"}, elsewhere, "status")
	if code != 1 || !strings.Contains(errOut, "cannot reach the bb server") {
		t.Errorf("unreachable: %d %s", code, errOut)
	}
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	j := strings.Index(s, b)
	if j < 0 {
		return ""
	}
	return s[:j]
}

// withoutNotices drops the notice footer ("bb: 2 unread board posts …")
// from a human command's stderr.
func withoutNotices(stderr string) string {
	var keep []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "bb: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// A client built before a method gained a trailing argument sends fewer
// arguments: the server takes the missing ones as zero values (Attention
// gained its filter after older clients shipped). More arguments than the
// method takes are refused.
func TestRPCMissingTrailingArgumentsAreZero(t *testing.T) {
	e := newEnv(t)
	if code, env := e.do(req{method: "POST", path: "/api/v1/rpc/Attention", body: `[]`}); code != 200 || !env.OK {
		t.Fatalf("Attention without its filter: %d %+v", code, env.Error)
	}
	if code, env := e.do(req{method: "POST", path: "/api/v1/rpc/Attention", body: `[{}, {}]`}); code != 400 || env.Error == nil || env.Error.Code != "INVALID_INPUT" {
		t.Fatalf("Attention with two arguments: %d %+v", code, env.Error)
	}
}
