package mcp

import (
	"encoding/json"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Output shapes. Field names are those of `bb --json` (seed 003 names), so
// a script reads the same objects from the CLI and from MCP. Lists are
// never null.

// AgentOut is an agent on the board.
type AgentOut struct {
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

func agentOut(a hub.Agent) AgentOut {
	return AgentOut{ID: a.ID, CurrentTask: a.CurrentTask, Progress: a.Progress, Status: a.Status,
		Blockers: a.Blockers, LastSeen: a.LastSeen, UpdatedAt: a.UpdatedAt}
}

func agentLiveOut(a hub.AgentView) AgentOut {
	o := agentOut(a.Agent)
	o.Liveness = string(a.Liveness)
	m := a.MinutesSince
	o.MinutesSinceLastSeen = &m
	return o
}

func agentLiveOuts(as []hub.AgentView) []AgentOut {
	out := make([]AgentOut, 0, len(as))
	for _, a := range as {
		out = append(out, agentLiveOut(a))
	}
	return out
}

// MessageOut is a message (id is its small number, uuid its UUID).
type MessageOut struct {
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

func messageOut(m hub.Message) MessageOut {
	tags, refs := m.Tags, m.Refs
	if tags == nil {
		tags = []string{}
	}
	if refs == nil {
		refs = []hub.Ref{}
	}
	return MessageOut{ID: m.Seq, UUID: m.UUID, FromAgent: m.From, To: m.To, Content: m.Body, Subject: m.Subject,
		Tags: tags, Priority: string(m.Priority), InReplyTo: m.ReplyToSeq, Refs: refs, Category: m.Category,
		ThreadID: m.ThreadID, BeadID: m.BeadID, CreatedAt: m.CreatedAt}
}

func messageOuts(ms []hub.Message) []MessageOut {
	out := make([]MessageOut, 0, len(ms))
	for _, m := range ms {
		out = append(out, messageOut(m))
	}
	return out
}

// ArtifactOut is a board artifact.
type ArtifactOut struct {
	ID          int64     `json:"id"`
	Path        string    `json:"path"`
	ProducedBy  string    `json:"produced_by"`
	Description string    `json:"description"`
	Version     *string   `json:"version"`
	Refs        []hub.Ref `json:"refs"`
	CreatedAt   time.Time `json:"created_at"`
}

func artifactOut(a hub.Artifact) ArtifactOut {
	refs := a.Refs
	if refs == nil {
		refs = []hub.Ref{}
	}
	return ArtifactOut{ID: a.ID, Path: a.Path, ProducedBy: a.ProducedBy, Description: a.Description,
		Version: a.Version, Refs: refs, CreatedAt: a.CreatedAt}
}

func artifactOuts(as []hub.Artifact) []ArtifactOut {
	out := make([]ArtifactOut, 0, len(as))
	for _, a := range as {
		out = append(out, artifactOut(a))
	}
	return out
}

// EventOut is one timeline event.
type EventOut struct {
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

func eventOuts(es []hub.Event) []EventOut {
	out := make([]EventOut, 0, len(es))
	for _, e := range es {
		p := e.Payload
		if len(p) == 0 {
			p = json.RawMessage("{}")
		}
		out = append(out, EventOut{Seq: e.Seq, ID: e.ID, Type: e.Type, Agent: e.Agent, ToAgent: e.ToAgent, BeadID: e.BeadID,
			TaskID: e.TaskID, Scope: e.Scope, Message: e.Message, Payload: p, CreatedAt: e.CreatedAt})
	}
	return out
}
