package hub

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Agent statuses of seed 003 (the board's status field).
var AgentStatuses = []string{"idle", "planning", "coding", "testing", "reviewing", "blocked", "offline"}

// Agent is one row of the shared agents table. Every surface reads and writes
// the same record: seed 003's status board fields, seed 000's identity
// fields and the vybe resume cursor.
type Agent struct {
	ID          string
	DisplayName string
	Role        string
	// Registered is true once the agent was registered explicitly
	// (bb agent register) rather than created by acting.
	Registered  bool
	CurrentTask string
	Progress    int
	Status      string
	Blockers    *string
	CreatedAt   time.Time
	LastSeen    time.Time
	UpdatedAt   time.Time
	// StatusSince is when Status took its current value: setting the
	// same status again keeps it (SetStatus). Zero when unknown.
	StatusSince time.Time
	Version     int
	// Vybe agent state.
	EventCursor    int64
	FocusTaskID    string
	FocusProjectID string
	// Where is the checkout its session last said it works in.
	Where Where
}

// Where is where an agent works: its work tree, branch and host, as its
// session reported them (hooks, MCP, bb agent register/init).
type Where struct {
	// Worktree is the top of its work tree relative to the repository's
	// main work tree ("." for the main one, ".claude/worktrees/auth"), or
	// absolute when it lies elsewhere (git worktree add ../wt1).
	Worktree string `json:"worktree"`
	// Branch is the branch checked out there (a short commit hash when
	// detached).
	Branch string `json:"branch"`
	// Host is the machine's name.
	Host string `json:"host"`
}

// IsZero reports whether nothing is known.
func (w Where) IsZero() bool { return w == Where{} }

// Describe renders it for people: "on branch worktree-auth in
// .claude/worktrees/auth (host a1)"; "" when nothing is known.
func (w Where) Describe() string {
	var parts []string
	if w.Branch != "" {
		parts = append(parts, "on branch "+w.Branch)
	}
	if w.Worktree != "" {
		if w.Worktree == "." {
			parts = append(parts, "in the main work tree")
		} else {
			parts = append(parts, "in "+w.Worktree)
		}
	}
	if w.Host != "" {
		parts = append(parts, "on host "+w.Host)
	}
	return strings.Join(parts, " ")
}

// MaxWhereLen bounds each field of Where.
const MaxWhereLen = 1024

// CleanWhere validates what a session reports; bad fields are dropped
// (where an agent works is informative: it never fails a call).
func CleanWhere(w Where) Where {
	ok := func(s string) string {
		if len(s) > MaxWhereLen || !utf8.ValidString(s) || HasControl(s) {
			return ""
		}
		return s
	}
	return Where{Worktree: ok(w.Worktree), Branch: ok(w.Branch), Host: ok(w.Host)}
}

// Priority of a Blackboard message.
type Priority string

// Priorities in ascending order.
const (
	PriorityLow      Priority = "low"
	PriorityNormal   Priority = "normal"
	PriorityHigh     Priority = "high"
	PriorityCritical Priority = "critical"
)

// Priorities lists every priority, lowest first.
var Priorities = []Priority{PriorityLow, PriorityNormal, PriorityHigh, PriorityCritical}

// Level is the rank of p: low 0, normal 1, high 2, critical 3; -1 if unknown.
func (p Priority) Level() int {
	for i, q := range Priorities {
		if q == p {
			return i
		}
	}
	return -1
}

// ParsePriority validates a priority name ("" means normal).
func ParsePriority(s string) (Priority, error) {
	if s == "" {
		return PriorityNormal, nil
	}
	p := Priority(s)
	if p.Level() < 0 {
		return "", FieldErr(CodeInvalidInput, "priority", "invalid priority %q: expected one of low, normal, high, critical", s)
	}
	return p, nil
}

// AtLeast returns the priorities whose level is >= p's.
func (p Priority) AtLeast() []Priority {
	l := p.Level()
	if l < 0 {
		return nil
	}
	return append([]Priority(nil), Priorities[l:]...)
}

// One word per idea for messages addressed to everyone: Broadcast is their
// stored recipient; BroadcastName is what every surface calls that
// recipient and is also the type of such a message (TypeDirect otherwise).
const (
	Broadcast     = "*"
	BroadcastName = "broadcast"
	TypeDirect    = "direct"
)

// Message is one row of the shared messages table (seed 004 TC9 columns plus
// the extra columns other surfaces need). A broadcast is stored once with
// To == "*"; per-agent read/ack state lives in broadcast receipts.
type Message struct {
	// Seq is the small integer id Blackboard commands show (bb message 42).
	Seq int64
	// UUID is the message id of bb agent and agent-mail.
	UUID    string
	From    string
	To      string
	Subject string
	Body    string
	// MailRefs is Agent Mail's refs column: a JSON-encoded array of strings,
	// stored verbatim (nil when absent).
	MailRefs *string
	// ReplyTo is the UUID of the parent message ("" when none).
	ReplyTo string
	// ReplyToSeq is the parent's Seq, filled on reads when known.
	ReplyToSeq *int64
	// Type is "direct" or "broadcast".
	Type string
	// TTLHours is nil for messages that never expire (Blackboard posts),
	// 24 for Agent Mail messages.
	TTLHours *int
	// Direct-message receipt (nil for broadcasts; see Receipt).
	ReadAt  *time.Time
	AckedAt *time.Time
	// Extra columns.
	Tags        []string
	Priority    Priority
	Refs        []Ref
	Category    string
	ThreadID    string
	BeadID      string
	RequiresAck bool
	// Intent is what the sender wants from the recipient (HANDOFF,
	// BLOCKED); nil for other messages.
	Intent *Intent
	// SpokenBy is whose words the message is (SpeakerOf its sender when
	// it was stored).
	SpokenBy  Speaker
	CreatedAt time.Time
}

// Intent is what a HANDOFF or BLOCKED message asks of its recipient.
type Intent struct {
	NextAction      string `json:"next_action,omitempty"`      // HANDOFF
	RequestedAction string `json:"requested_action,omitempty"` // BLOCKED
	Urgency         string `json:"urgency,omitempty"`          // BLOCKED: low, medium, high
}

// IsBroadcast reports whether m was addressed to everyone.
func (m *Message) IsBroadcast() bool { return m.To == Broadcast }

// Receipt is one agent's read/ack state of one message.
type Receipt struct {
	MessageUUID string
	Agent       string
	ReadAt      *time.Time
	AckedAt     *time.Time
}

// Artifact is a file registered on the board (keyed by path), or, when
// TaskID is set, a file attached to a task by vybe.
type Artifact struct {
	ID          int64
	UID         string
	Path        string
	ProducedBy  string
	Description string
	Version     *string
	Refs        []Ref
	TaskID      string
	EventID     int64
	ContentType string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Event is one entry of the timeline. Seq is the cursor every reader
// follows; it only grows.
type Event struct {
	Seq       int64
	ID        string
	Type      string
	Agent     string
	ToAgent   string
	BeadID    string
	TaskID    string
	ProjectID string
	Scope     string
	Message   string
	Payload   json.RawMessage
	CreatedAt time.Time
	Archived  bool
	// Credential names the credential of the request that caused the
	// event ("" on the local board); set from the request's context when
	// the event is stored.
	Credential string
	// Task names the task the event is about (its task id, or a bead id
	// naming a task) as people know it: id, handle, title. Filled when
	// the timeline is read (Events); never stored.
	Task *TaskRef
}

// Event types written by the Blackboard surface.
const (
	EventAgentStatus        = "agent.status"
	EventAgentCleared       = "agent.status_cleared"
	EventMessagePosted      = "message.posted"
	EventArtifactRegistered = "artifact.registered"
	EventBoardCleared       = "board.cleared"
	EventBoardInitialized   = "board.initialized"
)

// Expired reports whether r's time is up at now (at or after ExpiresAt):
// the one definition of an expired reservation for every surface.
func (r Reservation) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }
