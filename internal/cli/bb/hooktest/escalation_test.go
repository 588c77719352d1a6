package hooktest

import (
	"encoding/json"
	"strings"
	"testing"
)

// The sender's next prompt tells it, once, that its HANDOFF was not
// accepted within the board's 15 minutes: who it waits on, for how long,
// and how to ask again; nothing before the time, nothing at the prompt
// after, nothing once accepted.
func TestEscalationReachesTheSender(t *testing.T) {
	p := newProject(t)
	at := func(clock string) []string { return []string{"BB_NOW=2026-11-23T" + clock + "Z"} }
	s := &claudeSession{p: p, id: "carol-session", env: at("08:00:00")}
	carol := s.start(t, "startup")
	p.bb(t, at("08:00:00"), "agent", "register", "--name", "dana", "--role", "worker")
	p.bb(t, at("08:00:00"), "agent", "send", "--from", carol, "--to", "dana", "--bead", "bb-2", "--category", "HANDOFF",
		"--subject", "parser ready", "--body", "please review")

	s.env = at("08:10:00")
	if got := s.prompt(t); strings.Contains(got, "Escalated") {
		t.Fatalf("escalated after 10 minutes:\n%s", got)
	}
	s.env = at("08:16:30")
	got := s.prompt(t)
	for _, want := range []string{"[Blackboard] Escalated (1)", "your HANDOFF to dana on bb-2: \"parser ready\"",
		"you have waited 16 minutes on dana (the board escalates after 15)",
		"bb agent send --from " + carol + " --to dana --bead bb-2 --category INFO --priority high"} {
		if !strings.Contains(got, want) {
			t.Fatalf("prompt at 16 minutes lacks %q:\n%s", want, got)
		}
	}
	t.Logf("the sender's prompt at 16 minutes:\n%s", got)
	s.env = at("08:17:00")
	if got := s.prompt(t); got != "" {
		t.Fatalf("told twice:\n%s", got)
	}

	// A second handoff accepted after its escalation but before the
	// sender's next prompt is never told.
	p.bb(t, at("08:20:00"), "agent", "send", "--from", carol, "--to", "dana", "--bead", "bb-3", "--category", "HANDOFF",
		"--subject", "docs ready", "--body", "see docs/")
	inbox := p.bb(t, at("08:40:00"), "--json", "agent", "inbox", "--agent", "dana", "--bead", "bb-3")
	var env struct {
		Data []struct {
			MessageID string `json:"message_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(inbox), &env); err != nil || len(env.Data) != 1 {
		t.Fatalf("dana's inbox on bb-3: %v %s", err, inbox)
	}
	id := env.Data[0].MessageID
	if id == "" {
		t.Fatalf("no message id in %s", inbox)
	}
	p.bb(t, at("08:40:00"), "agent", "ack", "--agent", "dana", "--message", id)
	s.env = at("08:41:00")
	if got := s.prompt(t); got != "" {
		t.Fatalf("told after it was accepted:\n%s", got)
	}
}
