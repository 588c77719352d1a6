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

// MailOut is a direct or broadcast message as its recipient sees it
// (seed 000 names, as `bb agent inbox --json`).
type MailOut struct {
	MessageID   string     `json:"message_id"`
	ThreadID    string     `json:"thread_id"`
	BeadID      string     `json:"bead_id"`
	FromAgent   string     `json:"from_agent"`
	ToAgent     string     `json:"to_agent"`
	Category    string     `json:"category"`
	Subject     string     `json:"subject"`
	Body        string     `json:"body"`
	State       string     `json:"state"`
	RequiresAck bool       `json:"requires_ack"`
	CreatedAt   time.Time  `json:"created_at"`
	ReadAt      *time.Time `json:"read_at"`
	AckedAt     *time.Time `json:"acked_at"`
}

func mailOut(m hub.MailItem) MailOut {
	to := m.To
	if to == hub.Broadcast {
		to = hub.BroadcastName
	}
	return MailOut{MessageID: m.UUID, ThreadID: m.ThreadID, BeadID: m.BeadID, FromAgent: m.From, ToAgent: to,
		Category: m.Category, Subject: m.Subject, Body: m.Body, State: m.State, RequiresAck: m.RequiresAck,
		CreatedAt: m.CreatedAt, ReadAt: m.ReadAt, AckedAt: m.AckedAt}
}

// ReservationOut is a reservation (as `bb agent reserve --json`).
type ReservationOut struct {
	ReservationID  string     `json:"reservation_id"`
	Scope          string     `json:"scope"`
	CanonicalScope string     `json:"canonical_scope"`
	AgentID        string     `json:"agent_id"`
	BeadID         string     `json:"bead_id"`
	State          string     `json:"state"`
	CreatedAt      time.Time  `json:"created_at"`
	ExpiresAt      time.Time  `json:"expires_at"`
	ReleasedAt     *time.Time `json:"released_at"`
	Expired        bool       `json:"expired"`
}

func reservationOut(svc hub.API, r hub.Reservation) ReservationOut {
	return ReservationOut{ReservationID: r.ID, Scope: svc.DisplayScope(r), CanonicalScope: r.Scope, AgentID: r.AgentID,
		BeadID: r.BeadID, State: r.State, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, ReleasedAt: r.ReleasedAt,
		Expired: r.State == hub.ResActive && !svc.Now().Before(r.ExpiresAt)}
}

// AgentInfoOut is an agent with its protocol liveness (seed 000 names).
type AgentInfoOut struct {
	AgentID     string    `json:"agent_id"`
	DisplayName string    `json:"display_name"`
	Role        string    `json:"role"`
	Status      string    `json:"status"`
	Registered  bool      `json:"registered"`
	CreatedAt   time.Time `json:"created_at"`
	LastSeenAt  time.Time `json:"last_seen_at"`
	Liveness    string    `json:"liveness"`
}

func agentInfoOut(i hub.AgentInfo) AgentInfoOut {
	return AgentInfoOut{AgentID: i.ID, DisplayName: i.DisplayName, Role: i.Role, Status: i.Status, Registered: i.Registered,
		CreatedAt: i.CreatedAt, LastSeenAt: i.LastSeen, Liveness: string(i.Liveness)}
}
