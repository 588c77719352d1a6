package bb

import (
	"fmt"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/voice"
)

// deliveryText is what a hook injects for a delivery: the new mail, then
// the escalations of what the agent sent, in bb's words.
func deliveryText(d hooks.Delivery) hub.Text {
	if len(d.Escalations) == 0 {
		return d.Text
	}
	return hub.TextOf(d.Text, escalationText(d.AgentID, d.Escalations))
}

// escalationText tells an agent that a HANDOFF or BLOCKED it sent was
// not accepted in time: who it waits on, for how long, and what it can do.
func escalationText(agent string, es []hooks.Escalation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Blackboard] Escalated (%d): nobody accepted in time what you sent; the people watching the board now see it as needing them.\n", len(es))
	for _, e := range es {
		on, to := e.To, e.To
		if on == "" {
			on, to = "everyone", "broadcast"
		}
		about := ""
		if e.BeadID != "" {
			about = " on " + e.BeadID
		}
		fmt.Fprintf(&b, "- your %s to %s%s: %s — you have waited %d minutes on %s (the board escalates after %d).\n",
			e.Category, on, about, voice.Inline(e.Subject, 120), e.WaitingMinutes, on, e.EscalateAfter)
		fmt.Fprintf(&b, "  To ask again: bb agent send --from %s --to %s --bead %s --category INFO --priority high --subject \"...\" --body \"...\"\n",
			agent, to, e.BeadID)
	}
	b.WriteString("  It stays open until it is accepted; meanwhile go on with other work.\n")
	return b.String()
}
