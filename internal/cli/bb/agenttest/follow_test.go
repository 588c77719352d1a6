package agenttest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bb events --follow streams events written by other processes, in order,
// as JSON lines, and exits 0 when interrupted.
func TestEventsFollow(t *testing.T) {
	b := newBoard(t)
	b.ok("agent", "register", "--name", "early-bird", "--role", "r")
	cmd := exec.Command(bbPath(), "events", "--follow", "--json", "--type", "agent.registered,HANDOFF")
	cmd.Dir, cmd.Env = b.dir, b.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("follower ended")
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("not a JSON line: %q", l)
			}
			return m
		case <-time.After(60 * time.Second):
			t.Fatal("no event within 60s")
		}
		return nil
	}
	if e := next(); e["type"] != "agent.registered" || !strings.Contains(e["message"].(string), "early-bird") {
		t.Fatalf("backlog: %v", e)
	}
	b.ok("agent", "register", "--name", "late-comer", "--role", "r")
	b.ok("--as", "late-comer", "post", "not followed: other type")
	b.ok("agent", "send", "--from", "late-comer", "--to", "early-bird", "--bead", "bb-1", "--category", "HANDOFF", "--subject", "s", "--body", "b")
	e1, e2 := next(), next()
	if e1["type"] != "agent.registered" || e2["type"] != "mail.handoff_sent" || e1["seq"].(float64) >= e2["seq"].(float64) {
		t.Fatalf("streamed %v then %v", e1, e2)
	}
	if p := e2["payload"].(map[string]any); p["version"] != "v1" || p["event_type"] != "HANDOFF" {
		t.Fatalf("HANDOFF envelope: %v", p)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("follower exit after interrupt: %v", err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		t.Fatal("follower did not stop on interrupt")
	}
}

// Adoption on in-progress ownership (seed 001 §3.2 condition 2): a task in
// the shared tasks table, status in_progress, owned by the identity.
func TestAdoptInProgressTask(t *testing.T) {
	b := newBoard(t, "BB_NOW=2026-11-21T10:00:00Z")
	b.ok("agent", "register", "--name", "quiet-wren", "--role", "worker")
	r := b.run("--json", "agent", "init", "--adopt", "quiet-wren", "--non-interactive")
	if e := decode(t, r.stdout); r.code != 1 || e.Error.Code != "ADOPTION_REJECTED" || !strings.Contains(e.Error.Message, "not a git repository") {
		t.Fatalf("without evidence: %d %s", r.code, r.stdout)
	}
	b.exec(`INSERT INTO tasks (id, title, status, owner, created_at, updated_at) VALUES
		('task-7', 'Parser', 'in_progress', 'quiet-wren', '2026-11-21T09:00:00.000000+00:00', '2026-11-21T09:00:00.000000+00:00'),
		('task-8', 'Done one', 'completed', 'quiet-wren', '2026-11-21T09:00:00.000000+00:00', '2026-11-21T09:00:00.000000+00:00')`)
	// Evidence, but a live session: neither recommended nor adoptable.
	r = b.run("--json", "agent", "init", "--non-interactive")
	if e := decode(t, r.stdout); r.code != 1 || e.Error.Code != "AMBIGUOUS_SESSION" || strings.Contains(e.Error.Message, "--adopt quiet-wren") {
		t.Fatalf("a live session recommended: %s", r.stdout)
	}
	r = b.run("--json", "agent", "init", "--adopt", "quiet-wren", "--non-interactive")
	if e := decode(t, r.stdout); r.code != 1 || e.Error.Code != "AGENT_ACTIVE" || !strings.Contains(e.Error.Message, "last seen 2026-11-21T10:00:00Z") {
		t.Fatalf("adopting a live session: %d %s", r.code, r.stdout)
	}
	b.env = append(b.env, "BB_NOW=2026-11-21T11:00:00Z") // the session has gone stale
	r = b.run("--json", "agent", "init", "--non-interactive")
	if e := decode(t, r.stdout); r.code != 1 || e.Error.Code != "AMBIGUOUS_SESSION" || !strings.Contains(e.Error.Message, "bb agent init --adopt quiet-wren") {
		t.Fatalf("recommendation: %s", r.stdout)
	}
	r = b.ok("--json", "agent", "init", "--adopt", "quiet-wren", "--non-interactive")
	var d struct {
		Action      string `json:"action"`
		Reason      string `json:"reason"`
		ResumeEvent struct {
			EventType string `json:"event_type"`
			BeadID    string `json:"bead_id"`
			Payload   struct {
				ResumeReason string   `json:"resume_reason"`
				Evidence     string   `json:"evidence"`
				BeadIDs      []string `json:"bead_ids"`
			} `json:"payload"`
		} `json:"resume_event"`
	}
	if err := json.Unmarshal(decode(t, r.stdout).Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Action != "adopt" || d.ResumeEvent.EventType != "RESUME" || d.ResumeEvent.Payload.ResumeReason != "in_progress_ownership" ||
		d.ResumeEvent.BeadID != "task-7" || d.ResumeEvent.Payload.Evidence != "quiet-wren owns in-progress task task-7" {
		t.Fatalf("adoption: %s", decode(t, r.stdout).Data)
	}
	if n := b.count(`SELECT COUNT(*) FROM events WHERE type = 'RESUME' AND bead_id = 'task-7'`); n != 1 {
		t.Fatalf("%d RESUME rows", n)
	}
}
