package hub

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// ProtocolVersion is the version of the operative protocol's event envelope
// (seed 001 §6.1).
const ProtocolVersion = "v1"

// Protocol event types (seed 001 §6): events.type holds the event_type.
const (
	EventHandoff   = "HANDOFF"
	EventBlocked   = "BLOCKED"
	EventIncursion = "INCURSION"
	EventResume    = "RESUME"
)

// ProtocolEventTypes lists the four protocol event types.
var ProtocolEventTypes = []string{EventHandoff, EventBlocked, EventIncursion, EventResume}

// Other timeline events written by bb agent.
const (
	EventAgentRegistered    = "agent.registered"
	EventAgentUpdated       = "agent.updated"
	EventReservationCreated = "reservation.created"
	EventReservationRenewed = "reservation.renewed"
	EventReservationRelease = "reservation.released"
	// EventReservationConflict is an attempt refused because another
	// agent holds an overlapping scope (a reserve, an edit or a commit
	// that did not happen): the timeline shows it, nobody is paged.
	EventReservationConflict = "reservation.conflict"
)

// ProtocolEnvelope is the stable JSON contract of seed 001 §6.1. It is the
// payload column of the protocol event's timeline row.
type ProtocolEnvelope struct {
	ID          string  `json:"id"`
	Version     string  `json:"version"`
	EventType   string  `json:"event_type"`
	ProjectRoot string  `json:"project_root"`
	BeadID      string  `json:"bead_id"`
	FromAgent   *string `json:"from_agent"`
	ToAgent     *string `json:"to_agent"`
	Scope       *string `json:"scope"`
	CreatedAt   string  `json:"created_at"`
	Payload     any     `json:"payload"`
}

// HandoffPayload is seed 001 §6.2 HANDOFF (plus the message it travels with).
type HandoffPayload struct {
	Subject     string `json:"subject"`
	Summary     string `json:"summary"`
	NextAction  string `json:"next_action"`
	RequiresAck bool   `json:"requires_ack"`
	MessageID   string `json:"message_id"`
	ThreadID    string `json:"thread_id"`
}

// BlockedPayload is seed 001 §6.2 BLOCKED.
type BlockedPayload struct {
	Subject         string `json:"subject"`
	Blocker         string `json:"blocker"`
	RequestedAction string `json:"requested_action"`
	Urgency         string `json:"urgency"`
	RequiresAck     bool   `json:"requires_ack"`
	MessageID       string `json:"message_id"`
	ThreadID        string `json:"thread_id"`
}

// IncursionPayload is seed 001 §6.2 INCURSION: an attempt to reserve a
// scope that overlaps another agent's reservation.
type IncursionPayload struct {
	IncursionKind  string `json:"incursion_kind"`
	OwnerAgent     string `json:"owner_agent"`
	IncomingAgent  string `json:"incoming_agent"`
	OwnerLiveness  string `json:"owner_liveness"`
	ResolutionHint string `json:"resolution_hint"`
	// Outcome is what the attempt did: conflict, stale_found or takeover.
	Outcome       string `json:"outcome"`
	ReservationID string `json:"reservation_id"`
	OwnerScope    string `json:"owner_scope"`
	OwnerExpired  bool   `json:"owner_expired"`
}

// ResumePayload is seed 001 §6.2 RESUME: a successful identity adoption.
type ResumePayload struct {
	ResumeReason      string   `json:"resume_reason"`
	PriorSessionAgent string   `json:"prior_session_agent"`
	AdoptedAgent      string   `json:"adopted_agent"`
	Evidence          string   `json:"evidence"`
	BeadIDs           []string `json:"bead_ids"`
}

// Urgencies of a BLOCKED event.
var Urgencies = []string{"low", "medium", "high"}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// SlashRoot is the project root as the envelope shows it ('/' separators).
func (s *Service) SlashRoot() string { return filepath.ToSlash(s.ProjectRoot) }

// ProtocolEvent builds a timeline row for a protocol event: events.type is
// the event type, events.payload the full v1 envelope, and the indexed
// columns (agent, to_agent, bead_id, scope) mirror the envelope.
func (s *Service) ProtocolEvent(typ, bead, from, to, scope string, payload any, message string) *Event {
	now := s.Now()
	env := ProtocolEnvelope{
		ID: uuid.NewString(), Version: ProtocolVersion, EventType: typ, ProjectRoot: s.SlashRoot(),
		BeadID: bead, FromAgent: strPtr(from), ToAgent: strPtr(to), Scope: strPtr(scope),
		CreatedAt: FormatTime(now), Payload: payload,
	}
	b, _ := json.Marshal(env)
	return &Event{ID: env.ID, Type: typ, Agent: from, ToAgent: to, BeadID: bead, Scope: scope,
		Message: message, Payload: b, CreatedAt: now}
}

// ValidateEnvelope checks that b is a v1 protocol envelope with every
// required field of seed 001 §6.1 and the required payload fields of §6.2.
func ValidateEnvelope(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Errorf(CodeInvalidArgs, "envelope is not a JSON object: %v", err)
	}
	for _, k := range []string{"id", "version", "event_type", "project_root", "bead_id", "from_agent", "to_agent", "scope", "created_at", "payload"} {
		if _, ok := m[k]; !ok {
			return Errorf(CodeInvalidArgs, "envelope lacks %q", k)
		}
	}
	var typ, ver string
	_ = json.Unmarshal(m["event_type"], &typ)
	_ = json.Unmarshal(m["version"], &ver)
	if ver != ProtocolVersion {
		return Errorf(CodeInvalidArgs, "envelope version %q, want %q", ver, ProtocolVersion)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(m["payload"], &p); err != nil {
		return Errorf(CodeInvalidArgs, "payload is not an object")
	}
	req := map[string][]string{
		EventHandoff:   {"subject", "summary", "next_action", "requires_ack"},
		EventBlocked:   {"subject", "blocker", "requested_action", "urgency", "requires_ack"},
		EventIncursion: {"incursion_kind", "owner_agent", "incoming_agent", "owner_liveness", "resolution_hint"},
		EventResume:    {"resume_reason", "prior_session_agent", "adopted_agent", "evidence"},
	}[typ]
	if req == nil {
		return Errorf(CodeInvalidArgs, "unknown event_type %q", typ)
	}
	for _, k := range req {
		v, ok := p[k]
		if !ok || string(v) == "null" || string(v) == `""` {
			return Errorf(CodeInvalidArgs, "%s payload lacks %q", typ, k)
		}
	}
	return nil
}

// StaleMinutes is BB_AGENT_STALE_MINUTES (default 15). An unparsable or
// non-positive value is INVALID_ARGS: a silently ignored setting would make
// takeovers happen at the wrong time.
func (s *Service) StaleMinutes() (int, error) {
	v := strings.TrimSpace(s.Getenv("BB_AGENT_STALE_MINUTES"))
	if v == "" {
		return 15, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 7*24*60 {
		return 0, FieldErr(CodeInvalidArgs, "BB_AGENT_STALE_MINUTES", "BB_AGENT_STALE_MINUTES must be a whole number of minutes between 1 and 10080, got %q", v)
	}
	return n, nil
}

// LatestEventSeq returns the newest timeline sequence number (0 when empty):
// the cheap probe live followers poll.
func (s *Service) LatestEventSeq(ctx context.Context) (int64, error) {
	return Read(ctx, s, func(tx Tx) (int64, error) { return tx.LastEventSeq(ctx) })
}

// ProtocolTimeline returns the newest protocol events (HANDOFF, BLOCKED,
// INCURSION, RESUME) for a bead and/or agent, oldest first.
func (s *Service) ProtocolTimeline(ctx context.Context, bead, agent string, limit int) ([]Event, error) {
	evs, err := Read(ctx, s, func(tx Tx) ([]Event, error) {
		return tx.ListEvents(ctx, EventFilter{Types: ProtocolEventTypes, BeadID: bead, Agent: agent, Limit: limit, Desc: true})
	})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	return evs, nil
}
