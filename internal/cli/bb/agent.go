package bb

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

// agentCmd is `bb agent`: the coordination contract of seed 000 (identity,
// mail, reservations) and the operative protocol of seed 001 (heartbeat,
// liveness, protocol events, session bootstrap).
func (a *app) agentCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "agent",
		Short: "Coordinate agents: identity, mail with acks, file reservations, heartbeat",
		Long: `Coordination between agents working on the same code.

Identity: register, list, show, heartbeat, init (session bootstrap).
Mail:     send (HANDOFF, BLOCKED, DECISION, INFO), inbox, read, ack.
Files:    reserve, release, status.

The acting agent is the command's --agent (--from for send), else --as,
else $BB_AGENT_ID. Every command it makes refreshes its last_seen; being
looked at (list, show, status) never does. Liveness: active until
$BB_AGENT_STALE_MINUTES (default 15) after last_seen, stale until twice
that, then evicted. Protocol events (HANDOFF, BLOCKED, INCURSION, RESUME)
go to the timeline: bb events --type INCURSION.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(
		a.agentRegisterCmd(), a.agentListCmd(), a.agentShowCmd(), a.agentHeartbeatCmd(),
		a.agentSendCmd(), a.agentInboxCmd(), a.agentReadCmd(), a.agentAckCmd(),
		a.agentReserveCmd(), a.agentReleaseCmd(), a.agentStatusCmd(),
		a.agentInitCmd(),
	)
	return c
}

// agentActor resolves the agent a bb agent command acts as: its own flag,
// else --as / BB_AGENT_ID. Missing altogether is a usage error (exit 2).
//
// With --request-id, the idempotency key is re-bound to that agent, so two
// agents retrying with the same request id never see each other's reply.
func (a *app) agentActor(cmd *cobra.Command, value, flag string) (string, error) {
	id := value
	if id == "" {
		if v, explicit := a.identity(); explicit {
			id = v
		}
	}
	if id == "" {
		return "", usageErr{errorString("required flag \"" + flag + "\" not set (or use --as / BB_AGENT_ID)")}
	}
	a.acting = id
	if a.g.requestID != "" {
		cmd.SetContext(hub.WithIdempotency(cmd.Context(), hub.IdemKey{Agent: id, RequestID: a.g.requestID, Command: commandName(cmd)}))
	}
	return id, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

func required(c *cobra.Command, names ...string) {
	for _, n := range names {
		_ = c.MarkFlagRequired(n)
	}
}

// JSON shapes of bb agent (seed 000 field names).

type agentInfoJSON struct {
	AgentID     string    `json:"agent_id"`
	DisplayName string    `json:"display_name"`
	Role        string    `json:"role"`
	Status      string    `json:"status"`
	Registered  bool      `json:"registered"`
	CreatedAt   time.Time `json:"created_at"`
	LastSeenAt  time.Time `json:"last_seen_at"`
	Version     int       `json:"version"`
	Liveness    string    `json:"liveness"`
}

func agentInfoView(i hub.AgentInfo) agentInfoJSON {
	return agentInfoJSON{AgentID: i.ID, DisplayName: i.DisplayName, Role: i.Role, Status: i.Status, Registered: i.Registered,
		CreatedAt: i.CreatedAt, LastSeenAt: i.LastSeen, Version: i.Version, Liveness: string(i.Liveness)}
}

type mailJSON struct {
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

func toName(to string) string {
	if to == hub.Broadcast {
		return hub.BroadcastName
	}
	return to
}

func mailView(m hub.MailItem) mailJSON {
	return mailJSON{MessageID: m.UUID, ThreadID: m.ThreadID, BeadID: m.BeadID, FromAgent: m.From, ToAgent: toName(m.To),
		Category: m.Category, Subject: m.Subject, Body: m.Body, State: m.State, RequiresAck: m.RequiresAck,
		CreatedAt: m.CreatedAt, ReadAt: m.ReadAt, AckedAt: m.AckedAt}
}

type reservationJSON struct {
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

func reservationView(svc hub.API, r hub.Reservation) reservationJSON {
	return reservationJSON{ReservationID: r.ID, Scope: svc.DisplayScope(r), CanonicalScope: r.Scope, AgentID: r.AgentID,
		BeadID: r.BeadID, State: r.State, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, ReleasedAt: r.ReleasedAt,
		Expired: r.State == hub.ResActive && !svc.Now().Before(r.ExpiresAt)}
}
