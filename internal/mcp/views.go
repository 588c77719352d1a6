package mcp

import (
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

func agentLiveOuts(as []hub.AgentView) []AgentOut  { return view.AgentsLive(as) }
func agentOut(a hub.Agent) AgentOut                { return view.AgentOf(a) }
func messageOut(m hub.Message) MessageOut          { return view.MessageOf(m) }
func messageOuts(ms []hub.Message) []MessageOut    { return view.Messages(ms) }
func artifactOut(a hub.Artifact) ArtifactOut       { return view.ArtifactOf(a) }
func artifactOuts(as []hub.Artifact) []ArtifactOut { return view.Artifacts(as) }
func eventOuts(es []hub.Event) []EventOut          { return view.Events(es) }

type (
	// MailOut is a direct or broadcast message as its recipient sees it.
	MailOut = view.Mail
	// ReservationOut is a reservation (as `bb agent reserve --json`).
	ReservationOut = view.Reservation
)

func mailOut(m hub.MailItem) MailOut { return view.MailOf(m) }

func reservationOut(svc Roles, r hub.Reservation) ReservationOut {
	return view.ReservationOf(r, svc.DisplayScope(r), svc.Now())
}
