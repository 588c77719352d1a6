package hub

import (
	"context"
	"slices"
	"strings"
)

// EventTypes lists the event types the board itself records, sorted. The
// timeline may hold others too: a task tracker may push events of its own
// kind, and those are valid filters once one is stored.
var EventTypes = sortedTypes(
	EventAgentStatus, EventAgentCleared, EventMessagePosted, EventArtifactRegistered,
	EventBoardCleared, EventBoardInitialized,
	EventHandoff, EventBlocked, EventIncursion, EventResume,
	EventAgentRegistered, EventAgentUpdated, EventMailSent, EventMailRead,
	EventMailAcked, EventReservationCreated, EventReservationRenewed, EventReservationRelease, EventReservationReassigned, EventReservationConflict,
	EventMailSent, EventMailRead, EventMailAcked, EventMailExpired,
	KindTaskCreated, KindTaskStatus, KindTaskPriorityChanged, KindTaskClosed, KindAgentFocus,
	KindTaskDepAdded, KindTaskDepRemoved, KindTaskDeleted, KindTaskAssigned, KindTaskTakeover,
	KindMemoryUpserted, KindMemoryDelete, KindMemoryGC, KindArtifactAdded, KindReasoning, KindLoopRun,
	EventAuthorityOverride, EventRepositoryClaimed, EventRepositoryReset,
	EventLeaseAcquired, EventLeaseReleased, EventLeaseExpired, EventLeaseTakenOver, EventLeaseQueued, EventLeaseUnqueued,
	EventMailDelivered, EventSessionWaiting, EventSessionUnheard,
)

// Event types of delivery between turns (internal/hub/hooks records them):
// what reached an agent's context and how, an idle session's waiter
// armed, and a session that cannot be woken gone idle with mail unheard.
const (
	EventMailDelivered  = "mail.delivered"
	EventSessionWaiting = "session.waiting"
	EventSessionUnheard = "session.unheard"
)

// Event types of the leases (internal/hub/leases records them; listed
// here so that the timeline's filters know them).
const (
	EventLeaseAcquired  = "lease.acquired"
	EventLeaseReleased  = "lease.released"
	EventLeaseExpired   = "lease.expired"
	EventLeaseTakenOver = "lease.taken_over"
	EventLeaseQueued    = "lease.queued"
	EventLeaseUnqueued  = "lease.unqueued"
)

func sortedTypes(ts ...string) []string {
	slices.Sort(ts)
	return slices.Compact(ts)
}

// checkEventTypes refuses a type filter naming a type that is neither one
// the board records nor one stored on this timeline: such a filter can only
// ever match nothing, which is almost always a typo. Each type is a name
// of the timeline's scheme or an older one (EventTypesFor); the stored
// types are returned, trimmed, without empties or repeats.
func checkEventTypes(ctx context.Context, tx Tx, types []string) ([]string, error) {
	var out []string
	for _, name := range types {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		t := StoredEventType(name)
		if slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if _, known := slices.BinarySearch(EventTypes, t); known {
			continue
		}
		evs, err := tx.ListEvents(ctx, EventFilter{Types: []string{t}, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(evs) == 0 {
			return nil, FieldErr(CodeInvalidInput, "type", "{field} %q is not an event type on this board; valid types: %s (older names such as HANDOFF or task_created are accepted too)", name, strings.Join(EventNames, ", "))
		}
	}
	return out, nil
}
