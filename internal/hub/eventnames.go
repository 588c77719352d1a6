package hub

import (
	"slices"
	"strings"
)

// The timeline's one naming scheme is domain.verb, lower case, past tense
// (docs/events.md). Some stored types predate it or are fixed by a
// contract for its own surface: seed 001's protocol events (HANDOFF,
// BLOCKED, INCURSION, RESUME: the envelope's event_type, and the timeline
// of bb agent status) and the vybe contract's task kinds (task_created…,
// as vybe events list prints them). Those rows keep their stored type;
// every other surface (bb events, the HTTP API and its stream, MCP
// bb_events, bb top, the dashboard) prints EventName of it, and every
// filter takes either name (EventTypesFor).

// eventNames maps a stored type to its name in the scheme (read only).
var eventNames = map[string]string{
	EventHandoff:            "mail.handoff_sent",
	EventBlocked:            "mail.blocker_sent",
	EventIncursion:          "reservation.intruded",
	EventResume:             "agent.resumed",
	KindTaskCreated:         "task.created",
	KindTaskStatus:          "task.status_changed",
	KindTaskPriorityChanged: "task.priority_changed",
	KindTaskClosed:          "task.closed",
	KindTaskDepAdded:        "task.dependency_added",
	KindTaskDepRemoved:      "task.dependency_removed",
	KindTaskDeleted:         "task.deleted",
	KindTaskAssigned:        "task.assigned",
	KindTaskTakeover:        "task.taken_over",
	KindAgentFocus:          "agent.focused",
	KindMemoryUpserted:      "memory.upserted",
	KindMemoryDelete:        "memory.deleted",
	KindMemoryGC:            "memory.collected",
	KindArtifactAdded:       "artifact.added",
	KindReasoning:           "reasoning.pushed",
	KindLoopRun:             "loop.finished",
}

// formerNames are names no row is stored under any more (a migration
// renamed them) that filters still take (read only).
var formerNames = map[string]string{
	"agent.message_sent":  EventMailSent,
	"agent.message_read":  EventMailRead,
	"agent.message_acked": EventMailAcked,
}

// storedTypes maps a name of the scheme back to its stored type (read
// only).
var storedTypes = func() map[string]string {
	m := make(map[string]string, len(eventNames))
	for stored, name := range eventNames {
		m[name] = stored
	}
	return m
}()

// EventName is the name of a stored event type in the timeline's one
// scheme: the stored type itself when it already follows it (and for a
// tracker's own kinds, which are shown as pushed).
func EventName(stored string) string {
	if n, ok := eventNames[stored]; ok {
		return n
	}
	return stored
}

// StoredEventType is the type an event of this name is stored under: the
// stored type of a name of the scheme or of a former name, else name.
func StoredEventType(name string) string {
	if s, ok := storedTypes[name]; ok {
		return s
	}
	if s, ok := formerNames[name]; ok {
		return s
	}
	return name
}

// EventTypesFor turns a filter's types, each a name of the scheme or an
// older name (the stored one, or one a migration renamed), into the stored
// types to match, trimmed, without empties or repeats, in order.
func EventTypesFor(types []string) []string {
	var out []string
	for _, t := range types {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if s := StoredEventType(t); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// EventNames lists the names (in the scheme) of the types the board
// records, sorted: what a person may filter on.
var EventNames = func() []string {
	out := make([]string, 0, len(EventTypes))
	for _, t := range EventTypes {
		out = append(out, EventName(t))
	}
	return sortedTypes(out...)
}()

// FormerEventNames lists, for each name of the scheme that was renamed,
// the older names filters still take (the stored type, a migrated name).
func FormerEventNames(name string) []string {
	var out []string
	if s, ok := storedTypes[name]; ok {
		out = append(out, s)
	}
	for old, s := range formerNames {
		if s == name {
			out = append(out, old)
		}
	}
	slices.Sort(out)
	return out
}
