package tuitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bb top lists an idle Gemini CLI session with mail waiting for its agent
// from the first mail on (Gemini CLI cannot be woken), with the count of
// what waits; its next turn delivers it and the row goes.
func TestTopShowsUnheardSession(t *testing.T) {
	requireTmux(t)
	dir := t.TempDir()
	bb(t, dir, now, "init")
	bb(t, dir, now, "agent", "register", "--name", "dana", "--role", "human")
	bb(t, dir, now, "agent", "register", "--name", "carol", "--role", "worker")
	hook := func(event, extra string) string {
		t.Helper()
		c := exec.Command(filepath.Join(binDir, "bb"), "hook", "gemini", event, "--dir", dir)
		c.Dir = dir
		c.Env = append(os.Environ(), "BB_NOW="+now, "BB_AGENT_ID=", "BB_SERVER=", "HOME="+dir)
		c.Stdin = strings.NewReader(`{"session_id":"gem-1","cwd":"` + dir + `","hook_event_name":"` + event + `"` + extra + `}`)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("bb hook gemini %s: %v\n%s", event, err, out)
		}
		return string(out)
	}
	brief := hook("SessionStart", `,"source":"startup"`)
	i := strings.Index(brief, "You are agent ")
	if i < 0 {
		t.Fatalf("no agent in the brief: %s", brief)
	}
	me := strings.Fields(brief[i+len("You are agent "):])[0]
	hook("BeforeAgent", `,"prompt":"go"`)
	hook("AfterAgent", `,"prompt":"go","prompt_response":"ok","stop_hook_active":false`)
	send := func(subject string) {
		t.Helper()
		bb(t, dir, now, "agent", "send", "--from", "carol", "--to", me, "--bead", "bb-1", "--category", "INFO", "--subject", subject, "--body", "b")
	}
	send("schema ready")

	tm := start(t, dir)
	tm.waitFor(`Needs attention \(1\)`)
	tm.waitFor(`UNHEARD +` + me + ` .*idle with 1 unread for ` + me)
	send("and the tests")
	tm.waitFor(`UNHEARD +` + me + ` .*idle with 2 unread for ` + me)
	hook("BeforeAgent", `,"prompt":"read your mail"`)
	tm.waitFor(`nothing waits for a person`)
}
