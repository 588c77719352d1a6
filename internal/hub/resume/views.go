package resume

import (
	"github.com/blackboard-hub/bb/internal/hub"

	"bytes"
	"encoding/json"
)

// The JSON shapes of tasks, task events, memory and task artifacts, shared
// by every surface (vybe's field names, seed 002). They are plain values so
// that a stored idempotent reply decodes back to exactly what was sent.

// TaskView is the JSON form of a Task.
type TaskView struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Description   string   `json:"description"`
	Status        string   `json:"status"`
	Priority      int      `json:"priority"`
	ProjectID     string   `json:"project_id,omitempty"`
	BlockedReason string   `json:"blocked_reason,omitempty"`
	DependsOn     []string `json:"depends_on,omitempty"`
	Owner         string   `json:"owner,omitempty"`
	Version       int      `json:"version"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
}

// EventView is the JSON form of a timeline event (id = sequence number).
type EventView struct {
	ID        int64           `json:"id"`
	Kind      string          `json:"kind"`
	AgentName string          `json:"agent_name"`
	ProjectID string          `json:"project_id,omitempty"`
	TaskID    string          `json:"task_id"`
	Message   string          `json:"message"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt string          `json:"created_at"`
}

// MemoryView is the JSON form of a memory entry.
type MemoryView struct {
	ID        int64  `json:"id"`
	Key       string `json:"key"`
	Value     string `json:"value"`
	ValueType string `json:"value_type"`
	Scope     string `json:"scope"`
	ScopeID   string `json:"scope_id"`
	ExpiresAt string `json:"expires_at,omitempty"`
	UpdatedAt string `json:"updated_at"`
	CreatedAt string `json:"created_at"`
}

// ArtifactView is the JSON form of a file attached to a task.
type ArtifactView struct {
	ID          string `json:"id"`
	TaskID      string `json:"task_id"`
	EventID     int64  `json:"event_id"`
	FilePath    string `json:"file_path"`
	ContentType string `json:"content_type"`
	CreatedAt   string `json:"created_at"`
}

// AgentStateView is an agent's resume state.
type AgentStateView struct {
	AgentName       string `json:"agent_name"`
	LastSeenEventID int64  `json:"last_seen_event_id"`
	FocusTaskID     string `json:"focus_task_id"`
	FocusProjectID  string `json:"focus_project_id,omitempty"`
	Version         int    `json:"version"`
	LastActiveAt    string `json:"last_active_at"`
}

// ViewTask converts a task.
func ViewTask(t hub.Task) TaskView {
	return TaskView{ID: t.ID, Title: t.Title, Description: t.Description, Status: t.Status, Priority: t.Priority,
		ProjectID: t.ProjectID, BlockedReason: t.BlockedReason, DependsOn: t.DependsOn, Owner: t.Owner,
		Version: t.Version, CreatedAt: hub.ViewTime(t.CreatedAt), UpdatedAt: hub.ViewTime(t.UpdatedAt)}
}

// ViewTasks converts tasks; nil stays nil.
func ViewTasks(ts []hub.Task) []TaskView { return viewAll(ts, ViewTask) }

// ViewEvent converts an event; an empty payload ("{}") is shown as null.
func ViewEvent(e hub.Event) EventView {
	meta := json.RawMessage("null")
	if p := bytes.TrimSpace(e.Payload); len(p) > 0 && string(p) != "{}" && json.Valid(p) {
		meta = json.RawMessage(p)
	}
	return EventView{ID: e.Seq, Kind: e.Type, AgentName: e.Agent, ProjectID: e.ProjectID, TaskID: e.TaskID,
		Message: e.Message, Metadata: meta, CreatedAt: hub.ViewTime(e.CreatedAt)}
}

// ViewEvents converts events; nil stays nil.
func ViewEvents(es []hub.Event) []EventView { return viewAll(es, ViewEvent) }

// ViewMemory converts a memory entry.
func ViewMemory(m hub.Memory) MemoryView {
	v := MemoryView{ID: m.ID, Key: m.Key, Value: m.Value, ValueType: m.ValueType, Scope: m.Scope, ScopeID: m.ScopeID,
		UpdatedAt: hub.ViewTime(m.UpdatedAt), CreatedAt: hub.ViewTime(m.CreatedAt)}
	if m.ExpiresAt != nil {
		v.ExpiresAt = hub.ViewTimeNano(*m.ExpiresAt)
	}
	return v
}

// ViewMemories converts memory entries (never nil).
func ViewMemories(ms []hub.Memory) []MemoryView { return viewEach(ms, ViewMemory) }

// ViewArtifact converts a task artifact.
func ViewArtifact(a hub.Artifact) ArtifactView {
	return ArtifactView{ID: a.UID, TaskID: a.TaskID, EventID: a.EventID, FilePath: a.Path, ContentType: a.ContentType,
		CreatedAt: hub.ViewTime(a.CreatedAt)}
}

// ViewArtifacts converts task artifacts (never nil).
func ViewArtifacts(as []hub.Artifact) []ArtifactView { return viewEach(as, ViewArtifact) }

// ViewAgentState converts an agent's resume state.
func ViewAgentState(a hub.Agent) AgentStateView {
	return AgentStateView{AgentName: a.ID, LastSeenEventID: a.EventCursor, FocusTaskID: a.FocusTaskID,
		FocusProjectID: a.FocusProjectID, Version: a.Version, LastActiveAt: hub.ViewTimeNano(a.LastSeen)}
}

// viewAll converts each element with view; nil stays nil.
func viewAll[T, V any](xs []T, view func(T) V) []V {
	if xs == nil {
		return nil
	}
	return viewEach(xs, view)
}

// viewEach converts each element with view (never nil).
func viewEach[T, V any](xs []T, view func(T) V) []V {
	out := make([]V, len(xs))
	for i, x := range xs {
		out[i] = view(x)
	}
	return out
}
