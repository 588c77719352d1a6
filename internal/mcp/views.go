package mcp

import (
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// Output shapes. Field names are those of `bb --json` (seed 003 names), so
// a script reads the same objects from the CLI and from MCP. Lists are
// never null.

// The board shapes are the ones `bb --json` and the HTTP API print
// (internal/view), so a script reads the same objects from every surface.
type (
	// AgentOut is an agent on the board.
	AgentOut = view.Agent
	// MessageOut is a message (id is its small number, uuid its UUID).
	MessageOut = view.Message
	// ArtifactOut is a board artifact.
	ArtifactOut = view.Artifact
	// EventOut is one timeline event.
	EventOut = view.Event
)

func agentLiveOut(a hub.AgentView) AgentOut        { return view.AgentLive(a) }
func agentLiveOuts(as []hub.AgentView) []AgentOut  { return view.AgentsLive(as) }
func agentOut(a hub.Agent) AgentOut                { return view.AgentOf(a) }
func messageOut(m hub.Message) MessageOut          { return view.MessageOf(m) }
func messageOuts(ms []hub.Message) []MessageOut    { return view.Messages(ms) }
func artifactOut(a hub.Artifact) ArtifactOut       { return view.ArtifactOf(a) }
func artifactOuts(as []hub.Artifact) []ArtifactOut { return view.Artifacts(as) }
func eventOuts(es []hub.Event) []EventOut          { return view.Events(es) }

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
