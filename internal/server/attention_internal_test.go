package server

import (
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// Needs attention keeps what still waits on someone: an urgent blocker
// until it is accepted, an urgent post of the day, a blocker not accepted
// whatever its priority; an accepted urgent blocker leaves it (the counts
// say "0 need input" then, and so must the box).
func TestAttentionDropsAcceptedUrgentMail(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	acked := now.Add(-time.Minute)
	item := func(id string, m hub.Message, label string) overview.TimelineItem {
		m.UUID, m.CreatedAt = id, now.Add(-time.Hour)
		return overview.TimelineItem{Message: &m, Label: label, At: m.CreatedAt}
	}
	items := []overview.TimelineItem{
		item("accepted-urgent", hub.Message{To: "alice", RequiresAck: true, AckedAt: &acked, Priority: hub.PriorityHigh}, overview.LabelBlocked),
		item("open-urgent", hub.Message{To: "alice", RequiresAck: true, Priority: hub.PriorityHigh}, overview.LabelBlocked),
		item("open-normal", hub.Message{To: "alice", RequiresAck: true, Priority: hub.PriorityNormal}, overview.LabelBlocked),
		item("urgent-post", hub.Message{To: hub.Broadcast, Priority: hub.PriorityCritical}, ""),
		item("plain", hub.Message{To: "alice", Priority: hub.PriorityNormal}, ""),
	}
	var got []string
	for _, it := range attention(items, "human", now) {
		got = append(got, it.Message.UUID)
	}
	want := []string{"open-urgent", "open-normal", "urgent-post"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("attention: %v, want %v", got, want)
	}
}
