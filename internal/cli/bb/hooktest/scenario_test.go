package hooktest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeSession is one simulated Claude Code session: it feeds the
// documented payloads (https://code.claude.com/docs/en/hooks) with its own
// session id to the real bb hook.
type claudeSession struct {
	p   *project
	id  string
	env []string
}

func (s *claudeSession) payload(event string, kv ...any) map[string]any {
	m := map[string]any{"session_id": s.id, "transcript_path": "/t/" + s.id + ".jsonl", "cwd": s.p.dir,
		"permission_mode": "default", "hook_event_name": event}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func (s *claudeSession) start(t testing.TB, source string) string {
	t.Helper()
	out, _ := s.p.hook(t, s.env, "claude", "SessionStart", s.payload("SessionStart", "source", source))
	return agentOf(t, str(out, "hookSpecificOutput.additionalContext"))
}

func (s *claudeSession) prompt(t testing.TB) string {
	t.Helper()
	out, _ := s.p.hook(t, s.env, "claude", "UserPromptSubmit", s.payload("UserPromptSubmit", "prompt", "continue"))
	return str(out, "hookSpecificOutput.additionalContext")
}

// edit returns "" when allowed, else the denial reason.
func (s *claudeSession) edit(t testing.TB, rel string) string {
	t.Helper()
	out, _ := s.p.hook(t, s.env, "claude", "PreToolUse", s.payload("PreToolUse", "tool_name", "Edit", "tool_use_id", "toolu_x",
		"tool_input", map[string]any{"file_path": filepath.Join(s.p.dir, rel), "old_string": "package x", "new_string": "package y"}))
	if out == nil {
		return ""
	}
	if str(out, "hookSpecificOutput.permissionDecision") != "deny" {
		t.Fatalf("unexpected PreToolUse reply %v", out)
	}
	return str(out, "hookSpecificOutput.permissionDecisionReason")
}

// The scenario: two Claude Code sessions in one git project.
// Session 1 edits src/a.go (reserved for it); session 2's edit is denied
// naming the holder; session 2 mails; session 1 gets the mail at its next
// prompt exactly once and the sender sees it delivered; session 2's commit
// touching src/a.go is refused by the git guard; after session 1 releases,
// session 2's edit and commit succeed.
func TestTwoClaudeSessions(t *testing.T) {
	p := newProject(t)
	s1 := &claudeSession{p: p, id: "sess-one"}
	s2 := &claudeSession{p: p, id: "sess-two"}
	a1, a2 := s1.start(t, "startup"), s2.start(t, "startup")
	if a1 == a2 {
		t.Fatalf("two sessions share agent %s", a1)
	}
	if s1.prompt(t) != "" || s2.prompt(t) != "" {
		t.Fatal("nothing new, yet something was injected")
	}
	if r := s1.edit(t, "src/a.go"); r != "" {
		t.Fatalf("session 1's edit denied: %s", r)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "src/a.go"), []byte("package y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reason := s2.edit(t, "src/a.go")
	for _, want := range []string{a1, "src/a.go", " more, bead", "bead", "bb agent send --from " + a2 + " --to " + a1} {
		if !strings.Contains(reason, want) {
			t.Fatalf("denial %q lacks %q", reason, want)
		}
	}
	// The refused edit is on the timeline as a conflict, not an INCURSION
	// (nothing was written inside the reservation).
	var ev map[string]any
	_ = json.Unmarshal([]byte(p.bb(t, nil, "events", "--json", "--type", "reservation.conflict")), &ev)
	if b, _ := json.Marshal(ev); !strings.Contains(string(b), a2+" was refused src/a.go: "+a1+" holds src/a.go") {
		t.Fatalf("no conflict %s → %s: %s", a2, a1, b)
	}
	if out := p.bb(t, nil, "events", "--json", "--type", "INCURSION"); strings.Contains(out, `"type": "INCURSION"`) {
		t.Fatalf("a refused edit recorded an INCURSION: %s", out)
	}

	// Session 2 asks (as its shell would, with the id the brief gave it).
	p.bb(t, []string{"BB_AGENT_ID=" + a2}, "agent", "send", "--from", a2, "--to", a1, "--bead", "edit", "--category", "BLOCKED",
		"--subject", "release src/a.go", "--body", "I need src/a.go for the parser fix", "--urgency", "high")
	got := s1.prompt(t)
	if !strings.Contains(got, "BLOCKED from "+a2) || !strings.Contains(got, "release src/a.go") || !strings.Contains(got, "urgency high") {
		t.Fatalf("session 1's next prompt got %q", got)
	}
	if again := s1.prompt(t); again != "" {
		t.Fatalf("delivered twice: %q", again)
	}
	// The sender sees it delivered (before read or ack).
	var st map[string]any
	_ = json.Unmarshal([]byte(p.bb(t, nil, "agent", "status", "--json", "--agent", a2)), &st)
	unacked, _ := jq(st, "data.unacked_messages").([]any)
	if len(unacked) != 1 || str(unacked[0], "delivered_at") == "" || str(unacked[0], "state") != "unread" {
		t.Fatalf("sender's view: %v", unacked)
	}

	// The git guard refuses session 2's commit touching src/a.go (its shell
	// carries the session's id, as CLAUDE_ENV_FILE gives it), naming the
	// holder; session 1's own commit goes through.
	p.bb(t, nil, "guard", "install")
	if out, err := p.git([]string{"BB_AGENT_ID=" + a2}, "commit", "-qam", "session 2 sneaks in"); err == nil || !strings.Contains(out, a1) {
		t.Fatalf("session 2's commit was not refused naming %s: %v\n%s", a1, err, out)
	}
	if out, err := p.git([]string{"BB_AGENT_ID=" + a1}, "commit", "-qam", "parser"); err != nil {
		t.Fatalf("session 1's commit: %v\n%s", err, out)
	}
	// Session 1 releases; session 2's edit now succeeds and reserves the
	// file for it, and its commit goes through.
	p.bb(t, nil, "agent", "release", "--agent", a1, "--scope", "src/a.go")
	if r := s2.edit(t, "src/a.go"); r != "" {
		t.Fatalf("after release: %s", r)
	}
	if h := p.holders(t); h["src/a.go"] != a2 {
		t.Fatalf("holders after release: %v", h)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "src/a.go"), []byte("package w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := p.git([]string{"BB_AGENT_ID=" + a2}, "commit", "-qam", "session 2's fix"); err != nil {
		t.Fatalf("session 2's commit after the release: %v\n%s", err, out)
	}
	if r := s1.edit(t, "src/b.go"); r != "" {
		t.Fatalf("session 1 on another file: %s", r)
	}
}

// A resumed session keeps its agent; /clear inside the same client process
// keeps it too; a new session adopts an inactive session's identity only
// with evidence (uncommitted changes inside a scope it reserved), and that
// is recorded as RESUME.
func TestSessionIdentity(t *testing.T) {
	p := newProject(t)
	t0 := []string{"BB_NOW=2026-11-23T08:00:00Z"}
	s1 := &claudeSession{p: p, id: "first", env: t0}
	a1 := s1.start(t, "startup")
	if again := s1.start(t, "resume"); again != a1 {
		t.Fatalf("resumed session got %s, want %s", again, a1)
	}
	// Explicit identity wins.
	if id := (&claudeSession{p: p, id: "third", env: append(t0, "BB_AGENT_ID=chosen-one")}).start(t, "startup"); id != "chosen-one" {
		t.Fatalf("explicit: %s", id)
	}
	// Session 1 reserves src/a.go by editing it, and leaves it uncommitted.
	if r := s1.edit(t, "src/a.go"); r != "" {
		t.Fatal(r)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "src/a.go"), []byte("package z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// While session 1 is active, a new session is a new agent.
	if a := (&claudeSession{p: p, id: "parallel", env: t0}).start(t, "startup"); a == a1 {
		t.Fatal("a parallel session took an active session's identity")
	}
	// 20 minutes later session 1 is stale; a new session finds its
	// uncommitted work inside its reservation and adopts it.
	later := []string{"BB_NOW=2026-11-23T08:20:00Z"}
	out, _ := p.hook(t, later, "claude", "SessionStart", (&claudeSession{p: p, id: "fourth"}).payload("SessionStart", "source", "startup"))
	brief := str(out, "hookSpecificOutput.additionalContext")
	if agentOf(t, brief) != a1 || !strings.Contains(brief, "resumed") {
		t.Fatalf("adoption: %q", brief)
	}
	ev := p.bb(t, nil, "events", "--json", "--type", "RESUME")
	if !strings.Contains(ev, a1) || !strings.Contains(ev, "uncommitted_scope") {
		t.Fatalf("no RESUME event: %s", ev)
	}
	// Without evidence (work committed) nothing is adopted.
	p.must(t, "git", "commit", "-qam", "done")
	evenLater := []string{"BB_NOW=2026-11-23T09:00:00Z"}
	out, _ = p.hook(t, evenLater, "claude", "SessionStart", (&claudeSession{p: p, id: "fifth"}).payload("SessionStart", "source", "startup"))
	if id := agentOf(t, str(out, "hookSpecificOutput.additionalContext")); id == a1 {
		t.Fatal("adopted without evidence")
	}
}

// The MCP server a client starts works as the agent of that client's hook
// session: both are children of the client process (here, this test), and
// the hook recorded the client's process id with the session.
func TestMCPSharesTheSessionAgent(t *testing.T) {
	p := newProject(t)
	me := (&claudeSession{p: p, id: "mcp-session"}).start(t, "startup")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bb_set_status","arguments":{"status":"coding"}}}`,
	}, "\n") + "\n"
	out, errOut, code := p.run(nil, in, "mcp", "--dir", p.dir)
	if code != 0 || !strings.Contains(out, `"structuredContent":{"id":"`+me+`"`) {
		t.Fatalf("bb mcp did not act as %s: exit %d\n%s\n%s", me, code, out, errOut)
	}
}

// A resumed session's brief is one line of identity plus only what arrived
// since the last delivery: the conversation already holds the earlier
// brief and the mail delivered to it (a client that keeps every injected
// context, as Codex does, would otherwise hold it twice).
func TestResumeBriefBringsOnlyNew(t *testing.T) {
	p := newProject(t)
	s1 := &claudeSession{p: p, id: "resumed"}
	a1 := s1.start(t, "startup")
	other := (&claudeSession{p: p, id: "other"}).start(t, "startup")
	send := func(body string) {
		p.bb(t, nil, "agent", "send", "--from", other, "--to", a1, "--bead", "bb-1", "--category", "INFO", "--subject", "s", "--body", body)
	}
	send("FIRST-MAIL")
	if got := s1.prompt(t); !strings.Contains(got, "FIRST-MAIL") {
		t.Fatalf("first mail not delivered: %q", got)
	}
	resume := func() string {
		out, _ := p.hook(t, nil, "claude", "SessionStart", s1.payload("SessionStart", "source", "resume"))
		return str(out, "hookSpecificOutput.additionalContext")
	}
	brief := resume()
	if agentOf(t, brief) != a1 || strings.Contains(brief, "FIRST-MAIL") || strings.Count(strings.TrimSpace(brief), "\n") != 0 {
		t.Fatalf("resume brief is not one line of identity: %q", brief)
	}
	send("SECOND-MAIL")
	brief = resume()
	if agentOf(t, brief) != a1 || strings.Contains(brief, "FIRST-MAIL") || !strings.Contains(brief, "SECOND-MAIL") {
		t.Fatalf("resume brief: %q", brief)
	}
	if again := resume(); strings.Contains(again, "SECOND-MAIL") {
		t.Fatalf("mail delivered by a resume came again: %q", again)
	}
	// A fresh start (or /clear, /compact) still gets the whole brief.
	if full := s1.start(t, "clear"); full != a1 {
		t.Fatalf("clear: %s", full)
	}
}
