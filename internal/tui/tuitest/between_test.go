package tuitest

import (
	"strings"
	"testing"
)

// A HANDOFF between two agents offers dana the overseer's choices, not an
// accept: the selected item's keys are on its section's title; n nudges
// its recipient, a reassigns no more than the core allows (the holder,
// bob-1, is offline: g hands his reservation to the recipient), and a is
// refused in words.
func TestTopBetweenAgents(t *testing.T) {
	dir := t.TempDir()
	bb(t, dir, then, "init")
	bb(t, dir, then, "agent", "register", "--name", "dana", "--role", "human")
	bb(t, dir, then, "agent", "register", "--name", "bob-1", "--role", "worker")
	bb(t, dir, then, "agent", "register", "--name", "alice", "--role", "worker")
	bb(t, dir, then, "agent", "reserve", "--agent", "bob-1", "--scope", "src/a.go", "--bead", "bb-1")
	bb(t, dir, then, "agent", "send", "--from", "bob-1", "--to", "alice", "--bead", "bb-1", "--category", "HANDOFF",
		"--subject", "parser is yours", "--body", "all yours", "--next-action", "finish the parser")
	bb(t, dir, now, "--as", "alice", "status") // alice is active, bob-1 offline

	tm := start(t, dir)
	tm.waitFor(`Needs attention \(1\) · n nudge, g reassign, s step in`)
	if scr := tm.screen(false); !strings.Contains(scr, "HANDOFF   bob-1 → alice") {
		t.Errorf("the HANDOFF row:\n%s", scr)
	}

	// a is not dana's to give.
	tm.keys("a")
	tm.waitFor(`it waits on alice, not on you: this item offers n nudge, g reassign, s step in`)

	// n reminds alice, by mail from dana on the handoff's thread.
	tm.keys("n")
	tm.waitFor(`nudged alice`)
	if got := inboxBodies(t, dir, "alice"); !strings.Contains(got, "bob-1 has waited 31m for you to accept its HANDOFF") || !strings.Contains(got, "finish the parser") {
		t.Errorf("alice's inbox after n: %q", got)
	}

	// g hands bob-1's reservation to alice (the item's other agent, typed
	// in for the person to change).
	tm.keys("g")
	tm.waitFor(`Reassign src/a.go from bob-1 \(offline\) to: alice`)
	tm.keys("Enter")
	tm.waitFor(`reassigned src/a.go from bob-1 to alice`)
	if got := reservationsOf(t, dir, "alice"); len(got) != 1 || got[0] != "src/a.go" {
		t.Errorf("alice holds %v, want [src/a.go]", got)
	}
	// Nothing is left to reassign: the choices are nudge and step in.
	tm.waitFor(`Needs attention \(1\) · n nudge, s step in`)
	tm.keys("q")
	tm.waitFor(`EXITED 0`)
}
