package overview_test

import (
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// Every event type the board writes, and a few made-up ones, get the
// label the dashboard shows; the first rule that matches wins (a blocked
// task is a protocol row; a mail expiry restates a message).
func TestEventLabel(t *testing.T) {
	for _, c := range []struct {
		typ      string
		label    string
		protocol bool
	}{
		{"HANDOFF", overview.LabelHandoff, true},
		{"BLOCKED", overview.LabelBlocked, true},
		{"task_blocked", overview.LabelBlocked, true},
		{"INCURSION", overview.LabelIncursion, true},
		{"RESUME", overview.LabelResume, true},
		{"agent.adopted", overview.LabelResume, true},
		{"mail.acked", overview.LabelAck, false},
		{"mail.read", overview.LabelRead, false},
		{"mail.sent", "", false},
		{"mail.expired", "", false},
		{"message.posted", "", false},
		{"x.message_sent", "", false},
		{"reservation.released", "Released", false},
		{"reservation.expired", "Released", false},
		{"reservation.reassigned", "Reassigned", false},
		{"reservation.renewed", "Renewed", false},
		{"reservation.created", "Reserved", false},
		{"agent.status_cleared", "Cleared status", false},
		{"task_created", "New task", false},
		{"task_closed", "Task closed", false},
		{"task_assigned", "Task taken", false},
		{"task_status", "Task status", false},
		{"task_priority_changed", "Task priority", false},
		{"task_dependency_added", "Task depends", false},
		{"task_dependency_removed", "Task depends", false},
		{"task_deleted", "Task deleted", false},
		{"task_renamed", "Task", false},
		{"agent.status", "Working on", false},
		{"agent.registered", "Joined", false},
		{"board.registered", "Board registered", false},
		{"agent_focus", "Focus", false},
		{"artifact_added", "Artifact", false},
		{"artifact.registered", "Artifact", false},
		{"memory_upserted", "Memory", false},
		{"memory_gc", "Memory", false},
		{"reasoning", "Reasoning", false},
		{"board.cleared", "Board cleared", false},
		{"credential.created", "Credential created", false},
		{"agent.updated", "Agent updated", false},
		{"", "", false},
	} {
		label, protocol := overview.EventLabel(&hub.Event{Type: c.typ})
		if label != c.label || protocol != c.protocol {
			t.Errorf("EventLabel(%q) = %q, %t; want %q, %t", c.typ, label, protocol, c.label, c.protocol)
		}
	}
}
