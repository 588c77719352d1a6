package hub_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Every type the board records has a name in the one scheme (domain.verb,
// lower case), the name maps back to the stored type, and a filter takes
// the name, the stored type and a migrated name alike.
func TestEventNamesOneScheme(t *testing.T) {
	scheme := regexp.MustCompile(`^[a-z]+\.[a-z_]+$`)
	for _, stored := range hub.EventTypes {
		name := hub.EventName(stored)
		if !scheme.MatchString(name) {
			t.Errorf("%s is named %q, not domain.verb", stored, name)
		}
		if got := hub.StoredEventType(name); got != stored {
			t.Errorf("StoredEventType(%q) = %q, want %q", name, got, stored)
		}
		if !slices.Contains(hub.EventNames, name) {
			t.Errorf("EventNames lacks %q", name)
		}
	}
	if got := hub.EventTypesFor([]string{" HANDOFF", "mail.handoff_sent", "", "agent.message_sent", "deploy_note"}); !slices.Equal(got, []string{"HANDOFF", "mail.sent", "deploy_note"}) {
		t.Errorf("EventTypesFor = %v", got)
	}
	if got := hub.FormerEventNames("mail.sent"); !slices.Equal(got, []string{"agent.message_sent"}) {
		t.Errorf("FormerEventNames(mail.sent) = %v", got)
	}
	if got := hub.FormerEventNames("task.created"); !slices.Equal(got, []string{"task_created"}) {
		t.Errorf("FormerEventNames(task.created) = %v", got)
	}
}
