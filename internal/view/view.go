// Package view holds the JSON shapes of the `data` part of the bb --json
// envelope (seed 003 field names). The bb CLI and the HTTP API both render
// through it, so a script sees the same objects from either surface.
package view

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/housekeeping"

	"github.com/blackboard-hub/bb/internal/hub/overview"

	"github.com/blackboard-hub/bb/internal/hub/resume"

	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Agent is an agent on the status board.
type Agent struct {
	ID                   string     `json:"id"`
	CurrentTask          string     `json:"current_task"`
	Progress             int        `json:"progress"`
	Status               string     `json:"status"`
	Blockers             *string    `json:"blockers"`
	LastSeen             *time.Time `json:"last_seen"` // null: never seen acting (known from mail only)
	UpdatedAt            time.Time  `json:"updated_at"`
	Liveness             string     `json:"liveness,omitempty"`
	Presence             string     `json:"presence,omitempty"`
	MinutesSinceLastSeen *int       `json:"minutes_since_last_seen,omitempty"`
	// Where it works (its session's work tree, branch and host), when known.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Host     string `json:"host,omitempty"`
	// Work is what the board shows the agent doing: its task in progress,
	// its reservations, its open handoffs and blockers (absent: nothing).
	Work *hub.Work `json:"work,omitempty"`
}

// Inbox is one agent's unread inbox: items addressed to it and board
// traffic (broadcasts), as every surface counts them.
type Inbox struct {
	Agent     string `json:"agent"`
	Addressed int64  `json:"addressed"`
	Board     int64  `json:"board"`
	AcksOwed  int64  `json:"acks_owed"`
}

// InboxOf renders agent's counts.
func InboxOf(agent string, n hub.Notices) *Inbox {
	return &Inbox{Agent: agent, Addressed: n.Addressed, Board: n.Board, AcksOwed: n.AcksOwed}
}

// AgentInfo is a registered agent (seed 000 field names) with its liveness:
// `liveness` in the agent protocol's words (active, stale, evicted) and
// `presence` in the shared vocabulary (active, quiet, stale, offline).
type AgentInfo struct {
	AgentID     string     `json:"agent_id"`
	DisplayName string     `json:"display_name"`
	Role        string     `json:"role"`
	Status      string     `json:"status"`
	Registered  bool       `json:"registered"`
	CreatedAt   time.Time  `json:"created_at"`
	LastSeenAt  *time.Time `json:"last_seen_at"` // null: never seen acting (known from mail only)
	Version     int        `json:"version"`
	Liveness    string     `json:"liveness"`
	Presence    string     `json:"presence"`
	Worktree    string     `json:"worktree,omitempty"`
	Branch      string     `json:"branch,omitempty"`
	Host        string     `json:"host,omitempty"`
	// Work is what the board shows the agent doing (absent: nothing).
	Work *hub.Work `json:"work,omitempty"`
}

// AgentInfoOf renders a registered agent.
func AgentInfoOf(i hub.AgentInfo) AgentInfo {
	return AgentInfo{AgentID: i.ID, DisplayName: i.DisplayName, Role: i.Role, Status: i.Status, Registered: i.Registered,
		CreatedAt: i.CreatedAt, LastSeenAt: seen(i.LastSeen), Version: i.Version, Liveness: string(i.Liveness), Presence: string(i.Presence),
		Worktree: i.Where.Worktree, Branch: i.Where.Branch, Host: i.Where.Host,
		Work: i.Work}
}

// AgentOf renders an agent without liveness.
func AgentOf(a hub.Agent) Agent {
	return Agent{ID: a.ID, CurrentTask: a.CurrentTask, Progress: a.Progress, Status: a.Status,
		Blockers: a.Blockers, LastSeen: seen(a.LastSeen), UpdatedAt: a.UpdatedAt,
		Worktree: a.Where.Worktree, Branch: a.Where.Branch, Host: a.Where.Host}
}

// seen is nil for an agent never seen acting: one known only from the mail
// traffic, which every surface can still address.
func seen(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// AgentLive renders an agent with its liveness.
func AgentLive(a hub.AgentView) Agent {
	j := AgentOf(a.Agent)
	j.Liveness = string(a.Liveness)
	j.Presence = string(a.Presence)
	j.Work = a.Work
	if j.LastSeen != nil {
		m := a.MinutesSince
		j.MinutesSinceLastSeen = &m
	}
	return j
}

// AgentsLive renders a list (never nil).
func AgentsLive(as []hub.AgentView) []Agent {
	return list(as, AgentLive)
}

// WorkLine says in one line what the board shows an agent doing ("" when
// nothing): its task in progress (title and handle), the scopes it
// reserves, its open handoffs and blockers.
func WorkLine(w *hub.Work) string {
	if !w.Busy() {
		return ""
	}
	var parts []string
	if w.Task != nil {
		t := "task " + w.Task.Title + " (" + w.Task.Handle + ")"
		if w.Tasks > 1 {
			t += fmt.Sprintf(" +%d more", w.Tasks-1)
		}
		parts = append(parts, t)
	}
	if len(w.Reservations) > 0 {
		parts = append(parts, "reserves "+strings.Join(w.Reservations, ", "))
	}
	if w.HandoffsOpen > 0 {
		parts = append(parts, plural(w.HandoffsOpen, "handoff")+" to acknowledge")
	}
	if w.BlockersOpen > 0 {
		parts = append(parts, plural(w.BlockersOpen, "blocker")+" raised, unanswered")
	}
	return strings.Join(parts, " · ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Message is a board message.
type Message struct {
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

// MessageOf renders one message.
func MessageOf(m hub.Message) Message {
	tags, refs := m.Tags, m.Refs
	if tags == nil {
		tags = []string{}
	}
	if refs == nil {
		refs = []hub.Ref{}
	}
	return Message{ID: m.Seq, UUID: m.UUID, FromAgent: m.From, To: m.To, Content: m.Body, Subject: m.Subject,
		Tags: tags, Priority: string(m.Priority), InReplyTo: m.ReplyToSeq, Refs: refs, Category: m.Category,
		ThreadID: m.ThreadID, BeadID: m.BeadID, CreatedAt: m.CreatedAt}
}

// Messages renders a list (never nil).
func Messages(ms []hub.Message) []Message {
	return list(ms, MessageOf)
}

// Artifact is a board artifact.
type Artifact struct {
	ID          int64     `json:"id"`
	Path        string    `json:"path"`
	ProducedBy  string    `json:"produced_by"`
	Description string    `json:"description"`
	Version     *string   `json:"version"`
	Refs        []hub.Ref `json:"refs"`
	CreatedAt   time.Time `json:"created_at"`
}

// ArtifactOf renders one artifact.
func ArtifactOf(a hub.Artifact) Artifact {
	refs := a.Refs
	if refs == nil {
		refs = []hub.Ref{}
	}
	return Artifact{ID: a.ID, Path: a.Path, ProducedBy: a.ProducedBy, Description: a.Description,
		Version: a.Version, Refs: refs, CreatedAt: a.CreatedAt}
}

// Artifacts renders a list (never nil).
func Artifacts(as []hub.Artifact) []Artifact {
	return list(as, ArtifactOf)
}

// Event is one timeline event.
type Event struct {
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
	// Credential names the credential of the request that caused the
	// event (bb token); absent on the local board.
	Credential string `json:"credential,omitempty"`
	// Task names the task the event is about (id, handle, title); absent
	// when it is about none.
	Task *hub.TaskRef `json:"task,omitempty"`
}

// EventOf renders one event, its type named in the timeline's one scheme
// (hub.EventName: mail.handoff_sent, task.created…).
func EventOf(e hub.Event) Event {
	j := StoredEventOf(e)
	j.Type = hub.EventName(e.Type)
	return j
}

// StoredEventOf renders one event with its type as stored: for the
// surfaces whose contract fixes the names (seed 001's protocol timeline
// in bb agent status: HANDOFF, BLOCKED, INCURSION, RESUME).
func StoredEventOf(e hub.Event) Event {
	p := e.Payload
	if len(p) == 0 {
		p = json.RawMessage("{}")
	}
	return Event{Seq: e.Seq, ID: e.ID, Type: e.Type, Agent: e.Agent, ToAgent: e.ToAgent, BeadID: e.BeadID,
		TaskID: e.TaskID, Scope: e.Scope, Message: e.Message, Payload: p, CreatedAt: e.CreatedAt, Credential: e.Credential, Task: e.Task}
}

// Events renders a list (never nil), in the one scheme.
func Events(es []hub.Event) []Event {
	return list(es, EventOf)
}

// StoredEvents renders a list (never nil) with the stored types.
func StoredEvents(es []hub.Event) []Event {
	return list(es, StoredEventOf)
}

// Summary renders `bb summary`.
func Summary(s overview.Summary) map[string]any {
	return map[string]any{
		"agents": AgentsLive(s.Agents), "active_agents": AgentsLive(s.ActiveAgents),
		"blocked_agents": AgentsLive(s.BlockedAgents), "recent_messages": Messages(s.RecentMessages),
		"high_priority_messages": Messages(s.HighPriorityMessages), "recent_artifacts": Artifacts(s.RecentArtifacts),
		"last_event_seq": s.LastEventSeq,
	}
}

// Refs renders `bb refs`.
func Refs(r hub.Ref, m artifacts.RefMatches) map[string]any {
	return map[string]any{"ref": r, "messages": Messages(m.Messages), "artifacts": Artifacts(m.Artifacts)}
}

// Export renders `bb export` (a file format: no envelope).
func Export(x housekeeping.Export, projectDir string) map[string]any {
	agents := list(x.Agents, AgentOf)
	return map[string]any{
		"exported_at": x.ExportedAt.Format(time.RFC3339Nano), "project_dir": projectDir,
		"agents": agents, "messages": Messages(x.Messages), "artifacts": Artifacts(x.Artifacts),
		"events":   Events(x.Events),
		"left_out": housekeeping.ExportLeftOut(), "complete_copy": "bb backup <file>",
	}
}

// Envelope is the --json reply of every bb command and of every HTTP API
// call (DESIGN.md "Surfaces and their envelopes").
type Envelope struct {
	OK      bool         `json:"ok"`
	Command string       `json:"command"`
	Data    any          `json:"data"`
	Error   *ErrorBody   `json:"error"`
	Notices *hub.Notices `json:"notices,omitempty"`
}

// ErrorBody is the error part of the envelope.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	// Template is the message with its fields marked (hub.Error.Template),
	// sent only to remote bb clients (the RPC surface) so that they name
	// the fields as flags.
	Template string `json:"template,omitempty"`
	// Actions are the ways past the error its template points at
	// (hub.Error.Actions), so that a remote client words them as a local
	// error.
	Actions []hub.Action `json:"actions,omitempty"`
}

// RecipientName renders a message's recipient as bb agent and MCP show it
// ("broadcast" for everyone).
func RecipientName(to string) string {
	if to == hub.Broadcast {
		return hub.BroadcastName
	}
	return to
}

// Mail is a direct or broadcast message as its recipient sees it (seed 000
// names, as `bb agent inbox --json` and the MCP inbox print it).
type Mail struct {
	MessageID string `json:"message_id"`
	// InReplyTo is the id of the message this one answers ("" = none).
	InReplyTo string `json:"in_reply_to,omitempty"`
	ThreadID  string `json:"thread_id"`
	BeadID    string `json:"bead_id"`
	FromAgent string `json:"from_agent"`
	ToAgent   string `json:"to_agent"`
	Category  string `json:"category"`
	// Priority is low, normal, high or critical.
	Priority    string     `json:"priority"`
	Subject     string     `json:"subject"`
	Body        string     `json:"body"`
	State       string     `json:"state"`
	RequiresAck bool       `json:"requires_ack"`
	CreatedAt   time.Time  `json:"created_at"`
	ReadAt      *time.Time `json:"read_at"`
	AckedAt     *time.Time `json:"acked_at"`
	// DeliveredAt is when a hook put the message into the recipient's
	// context (null: not delivered that way yet).
	DeliveredAt *time.Time `json:"delivered_at"`
	// DeliveredVia is how it reached the recipient's context: wake (an
	// idle session woken), prompt, tool, wait, session_start, or hook
	// (unrecorded); omitted when not delivered.
	DeliveredVia string `json:"delivered_via,omitempty"`
	// Intent: a HANDOFF's next action and who it was passed to, a BLOCKED
	// message's requested action and urgency (omitted for other messages).
	NextAction      string `json:"next_action,omitempty"`
	PassedTo        string `json:"passed_to,omitempty"`
	RequestedAction string `json:"requested_action,omitempty"`
	Urgency         string `json:"urgency,omitempty"`
	// Wait is, in the reply to a BLOCKED just sent, the wait its sender
	// makes instead of polling, in the surface's words (hub.MailItem.Wait).
	Wait string `json:"wait,omitempty"`
}

// MailOf renders one mail item.
func MailOf(m hub.MailItem) Mail {
	v := Mail{MessageID: m.UUID, InReplyTo: m.ReplyTo, ThreadID: m.ThreadID, BeadID: m.BeadID, FromAgent: m.From, ToAgent: RecipientName(m.To),
		Category: m.Category, Priority: string(m.Priority), Subject: m.Subject, Body: m.Body, State: m.State, RequiresAck: m.RequiresAck,
		CreatedAt: m.CreatedAt, ReadAt: m.ReadAt, AckedAt: m.AckedAt, DeliveredAt: m.DeliveredAt, DeliveredVia: m.DeliveredVia}
	if in := m.Intent; in != nil {
		v.NextAction, v.RequestedAction, v.Urgency = in.NextAction, in.RequestedAction, in.Urgency
	}
	if m.Category == hub.CategoryHandoff {
		v.PassedTo = v.ToAgent
	}
	return v
}

// Reservation is a file reservation (seed 000 names).
type Reservation struct {
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

// ReservationOf renders r with its scope shown as display (relative to the
// project root) and its expiry judged at now.
func ReservationOf(r hub.Reservation, display string, now time.Time) Reservation {
	return Reservation{ReservationID: r.ID, Scope: display, CanonicalScope: r.Scope, AgentID: r.AgentID,
		BeadID: r.BeadID, State: r.State, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, ReleasedAt: r.ReleasedAt,
		Expired: r.State == hub.ResActive && r.Expired(now)}
}

// Part is a piece of a search snippet or title: matched words or the text
// between them.
type Part struct {
	Text  string
	Match bool
}

// Parts splits s at the byte ranges marks (sorted, not overlapping, as
// hub.Search returns them); ranges outside s are ignored.
func Parts(s string, marks [][2]int) []Part {
	var out []Part
	at := 0
	for _, m := range marks {
		if m[0] < at || m[1] > len(s) || m[0] >= m[1] {
			continue
		}
		if m[0] > at {
			out = append(out, Part{Text: s[at:m[0]]})
		}
		out = append(out, Part{Text: s[m[0]:m[1]], Match: true})
		at = m[1]
	}
	if at < len(s) {
		out = append(out, Part{Text: s[at:]})
	}
	return out
}

// Task is a task as bb, MCP and the HTTP API show it: vybe's task shape
// (resume.TaskView, which the vybe drop-in prints alone) and the short handle
// bb prints for it.
type Task struct {
	resume.TaskView
	Handle string `json:"handle"`
}

// TaskOf converts a task.
func TaskOf(t hub.Task) Task { return Task{TaskView: resume.ViewTask(t), Handle: hub.TaskHandle(t.ID)} }

// Tasks converts tasks (never nil).
func Tasks(ts []hub.Task) []Task {
	return list(ts, TaskOf)
}

// list renders each element of xs with one (never nil: an empty list is
// [] in JSON, not null).
func list[T, V any](xs []T, one func(T) V) []V {
	out := make([]V, 0, len(xs))
	for _, x := range xs {
		out = append(out, one(x))
	}
	return out
}
