package bb

import (
	"encoding/json"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// JSON shapes of Blackboard commands (seed 003 field names).

type agentJSON struct {
	ID                   string    `json:"id"`
	CurrentTask          string    `json:"current_task"`
	Progress             int       `json:"progress"`
	Status               string    `json:"status"`
	Blockers             *string   `json:"blockers"`
	LastSeen             time.Time `json:"last_seen"`
	UpdatedAt            time.Time `json:"updated_at"`
	Liveness             string    `json:"liveness,omitempty"`
	MinutesSinceLastSeen *int      `json:"minutes_since_last_seen,omitempty"`
}

func agentView(a hub.Agent) agentJSON {
	return agentJSON{ID: a.ID, CurrentTask: a.CurrentTask, Progress: a.Progress, Status: a.Status,
		Blockers: a.Blockers, LastSeen: a.LastSeen, UpdatedAt: a.UpdatedAt}
}

func agentLiveView(a hub.AgentView) agentJSON {
	j := agentView(a.Agent)
	j.Liveness = string(a.Liveness)
	m := a.MinutesSince
	j.MinutesSinceLastSeen = &m
	return j
}

func agentLiveViews(as []hub.AgentView) []agentJSON {
	out := make([]agentJSON, 0, len(as))
	for _, a := range as {
		out = append(out, agentLiveView(a))
	}
	return out
}

type messageJSON struct {
	ID        int64     `json:"id"`
	UUID      string    `json:"uuid"`
	FromAgent string    `json:"from_agent"`
	To        string    `json:"to"`
	Content   string    `json:"content"`
	Subject   string    `json:"subject,omitempty"`
	Tags      []string  `json:"tags"`
	Priority  string    `json:"priority"`
	InReplyTo *int64    `json:"in_reply_to"`
	Refs      []hub.Ref `json:"refs"`
	Category  string    `json:"category,omitempty"`
	ThreadID  string    `json:"thread_id,omitempty"`
	BeadID    string    `json:"bead_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

func messageView(m hub.Message) messageJSON {
	tags, refs := m.Tags, m.Refs
	if tags == nil {
		tags = []string{}
	}
	if refs == nil {
		refs = []hub.Ref{}
	}
	return messageJSON{ID: m.Seq, UUID: m.UUID, FromAgent: m.From, To: m.To, Content: m.Body, Subject: m.Subject,
		Tags: tags, Priority: string(m.Priority), InReplyTo: m.ReplyToSeq, Refs: refs, Category: m.Category,
		ThreadID: m.ThreadID, BeadID: m.BeadID, CreatedAt: m.CreatedAt}
}

func messageViews(ms []hub.Message) []messageJSON {
	out := make([]messageJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, messageView(m))
	}
	return out
}

type artifactJSON struct {
	ID          int64     `json:"id"`
	Path        string    `json:"path"`
	ProducedBy  string    `json:"produced_by"`
	Description string    `json:"description"`
	Version     *string   `json:"version"`
	Refs        []hub.Ref `json:"refs"`
	CreatedAt   time.Time `json:"created_at"`
}

func artifactView(a hub.Artifact) artifactJSON {
	refs := a.Refs
	if refs == nil {
		refs = []hub.Ref{}
	}
	return artifactJSON{ID: a.ID, Path: a.Path, ProducedBy: a.ProducedBy, Description: a.Description,
		Version: a.Version, Refs: refs, CreatedAt: a.CreatedAt}
}

func artifactViews(as []hub.Artifact) []artifactJSON {
	out := make([]artifactJSON, 0, len(as))
	for _, a := range as {
		out = append(out, artifactView(a))
	}
	return out
}

type eventJSON struct {
	Seq       int64           `json:"seq"`
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Agent     string          `json:"agent"`
	ToAgent   string          `json:"to_agent,omitempty"`
	BeadID    string          `json:"bead_id,omitempty"`
	TaskID    string          `json:"task_id,omitempty"`
	Scope     string          `json:"scope,omitempty"`
	Message   string          `json:"message"`
	Payload   json.RawMessage `json:"payload"`
	CreatedAt time.Time       `json:"created_at"`
}

func eventView(e hub.Event) eventJSON {
	p := e.Payload
	if len(p) == 0 {
		p = json.RawMessage("{}")
	}
	return eventJSON{Seq: e.Seq, ID: e.ID, Type: e.Type, Agent: e.Agent, ToAgent: e.ToAgent, BeadID: e.BeadID,
		TaskID: e.TaskID, Scope: e.Scope, Message: e.Message, Payload: p, CreatedAt: e.CreatedAt}
}

func eventViews(es []hub.Event) []eventJSON {
	out := make([]eventJSON, 0, len(es))
	for _, e := range es {
		out = append(out, eventView(e))
	}
	return out
}
