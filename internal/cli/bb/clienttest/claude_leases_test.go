package clienttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClaudeCodeSessionLeases: a board that declares the leases every
// session gets (leases.session "port:web name:db") hands them to two real
// Claude Code sessions at their start: the brief names them, and the
// model's shell tool sees BB_PORT_WEB and BB_LEASE_DB (Claude Code
// sources the $CLAUDE_ENV_FILE bb's SessionStart hook wrote before each
// Bash command: https://code.claude.com/docs/en/hooks#sessionstart). The
// two sessions get different ports and names, the ones the board records,
// and each session's end (claude -p runs SessionEnd as it exits: bb hook
// claude SessionEnd) releases them.
func TestClaudeCodeSessionLeases(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "claude")
	p := newProject(t)
	p.run("bb", "install", "claude")
	trustClaude(p, p.dir)
	p.run("bb", "config", "set", "leases.session", "port:web name:db")

	pl := newPlans()
	srv := newModelServer(t, pl.script)
	pl.set("env", turnPart{Tool: "Bash", Input: map[string]any{"command": `echo "LEASES web=$BB_PORT_WEB db=$BB_LEASE_DB END"`, "description": "Show the leases"}})
	seen := map[string]string{}
	for _, session := range []string{"A", "B"} {
		out, errOut, err := p.exec(claudeEnv(srv), bin, "-p", "[session "+session+"] [step env] go on", "--output-format", "json",
			"--permission-mode", "acceptEdits", "--allowedTools", "mcp__blackboard,Read,Bash")
		if err != nil || !strings.Contains(out, `"is_error":false`) {
			t.Fatalf("claude %s: %v\n%s\n%s", session, err, out, errOut)
		}
		id := identityOf(t, srv, session)
		port, db := leaseOf(t, p, "lease.acquired", id, "port:web"), leaseOf(t, p, "lease.acquired", id, "name:db")
		if port == "" || db != "db-"+id {
			t.Fatalf("session %s (%s): board granted port %q, name %q", session, id, port, db)
		}
		if leaseOf(t, p, "lease.released", id, "port:web") != port || leaseOf(t, p, "lease.released", id, "name:db") != db {
			t.Errorf("session %s (%s): its end did not release its leases", session, id)
		}
		reqs := stepRequests(srv, session, "env")
		if len(reqs) < 2 {
			t.Fatalf("session %s: %d requests", session, len(reqs))
		}
		if !strings.Contains(reqs[0].Body, "BB_PORT_WEB="+port) {
			t.Errorf("session %s: the brief does not name BB_PORT_WEB=%s", session, port)
			dump(t, "claude-leases-brief-"+session, reqs[0].Body)
		}
		want := "LEASES web=" + port + " db=" + db + " END"
		if !strings.Contains(reqs[1].Body, want) {
			t.Errorf("session %s: the shell tool did not see %q", session, want)
			dump(t, "claude-leases-shell-"+session, reqs[1].Body)
		}
		seen[session] = port + " " + db
	}
	if seen["A"] == seen["B"] {
		t.Fatalf("two sessions got the same port and name: %s", seen["A"])
	}
}

// leaseOf is the value of lease name that the board's timeline says agent
// was granted (typ lease.acquired) or released (lease.released).
func leaseOf(t *testing.T, p *project, typ, agent, name string) string {
	t.Helper()
	out := p.run("bb", "--json", "events", "--type", typ)
	var env struct {
		Data []struct {
			Payload struct {
				Name   string `json:"name"`
				Holder string `json:"holder"`
				Value  string `json:"value"`
			} `json:"payload"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("bb events --type %s: %v\n%s", typ, err, out)
	}
	for _, e := range env.Data {
		if e.Payload.Holder == agent && e.Payload.Name == name {
			return e.Payload.Value
		}
	}
	return ""
}
