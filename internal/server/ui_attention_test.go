package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A conversation's "Needs attention" box is the core's list
// (overview.Attention) for that agent or work item, the same rule as the
// board-wide panel: what still waits on someone, newest first. An
// accepted blocker leaves it whatever its priority; a blocker not
// accepted stays whatever its priority (escalated once it waited the
// board's attention.escalate_after); a critical post of the day and an
// agent whose status is blocked are in it; a high post and plain mail are
// not.
func TestDashboardConversationAttention(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, withClock(now))
	at := func(d time.Duration, args ...string) string {
		t.Helper()
		out, errOut, code := runCode(t, e.dir, []string{"BB_NOW=" + now.Add(d).Format(time.RFC3339)}, args...)
		if code != 0 {
			t.Fatalf("bb %v: %d %s %s", args, code, out, errOut)
		}
		return out
	}
	at(-time.Hour, "agent", "register", "--name", "carol", "--role", "worker")
	at(-time.Hour, "agent", "register", "--name", "ada-human", "--role", "human")
	send := func(d time.Duration, bead, category, priority, subject string) string {
		t.Helper()
		var r struct {
			Data struct {
				ID string `json:"message_id"`
			} `json:"data"`
		}
		out := at(d, "--json", "agent", "send", "--from", "carol", "--to", "ada-human", "--bead", bead, "--category", category,
			"--priority", priority, "--subject", subject, "--body", subject+" (body)")
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Data.ID == "" {
			t.Fatalf("send %s: %v %s", subject, err, out)
		}
		return r.Data.ID
	}
	accepted := send(-50*time.Minute, "bb-1", "BLOCKED", "high", "Accepted urgent")
	at(-45*time.Minute, "agent", "ack", "--agent", "ada-human", "--message", accepted)
	send(-40*time.Minute, "bb-1", "BLOCKED", "high", "Open urgent")
	send(-30*time.Minute, "bb-2", "BLOCKED", "normal", "Open normal")
	at(-20*time.Minute, "--as", "carol", "post", "Prod is down", "--priority", "critical")
	at(-10*time.Minute, "--as", "carol", "post", "Lunch at noon", "--priority", "high")
	send(-5*time.Minute, "bb-1", "INFO", "normal", "Plain note")
	at(-time.Minute, "--as", "carol", "status", "set", "Fix the lexer", "--status", "blocked", "--blockers", "waiting for CI")
	cookie := "bb_human=ada-human"

	box := func(session string) string {
		t.Helper()
		code, tl := e.html("GET", "/ui/timeline?session="+session, nil, cookie)
		if code != 200 {
			t.Fatalf("timeline %s: %d %s", session, code, tl)
		}
		i, j := strings.Index(tl, `<div class="attention"`), strings.Index(tl, `class="new-marker"`)
		if i < 0 || j < i {
			return ""
		}
		return tl[i:j]
	}
	inOrder := func(where, got string, want, absent []string) {
		t.Helper()
		last := -1
		for _, w := range want {
			i := strings.Index(got, w)
			if i <= last {
				t.Errorf("%s: %q missing or out of order (want newest first %q):\n%s", where, w, want, got)
			}
			last = i
		}
		for _, a := range absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: %q should not be there:\n%s", where, a, got)
			}
		}
	}
	all := []string{"waiting for CI", "Prod is down", "Open normal", "Open urgent"}
	gone := []string{"Accepted urgent", "Lunch at noon", "Plain note"}
	carol := box("agent%3Acarol")
	inOrder("agent:carol", carol, all, gone)
	if !strings.Contains(carol, `href="#m`) || !strings.Contains(carol, `href="/?session=agent%3Acarol"`) ||
		!strings.Contains(carol, "Needs input") || !strings.Contains(carol, ">critical<") || !strings.Contains(carol, ">Blocked<") {
		t.Errorf("agent:carol: rows must link to the timeline (a blocked agent to its session) and read as the timeline does:\n%s", carol)
	}
	if strings.Count(carol, "escalated</span>") != 2 {
		t.Errorf("agent:carol: both open blockers waited 30 and 40 minutes: escalated twice:\n%s", carol)
	}
	// A work item's box keeps its own items only.
	inOrder("bead:bb-2", box("bead%3Abb-2"), []string{"Open normal"}, append([]string{"Open urgent", "Prod is down", "waiting for CI"}, gone...))
	if got := box("bead%3Abb-3"); got != "" {
		t.Errorf("bead:bb-3 has nothing waiting, yet a box:\n%s", got)
	}
	// The board-wide panel is the same list.
	_, needs := e.html("GET", "/ui/needs", nil, cookie)
	inOrder("needs", needs, nil, gone)
	for _, w := range all {
		if !strings.Contains(needs, w) {
			t.Errorf("needs: %q missing:\n%s", w, needs)
		}
	}
}
