package bb

import (
	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
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
Mail:     send (HANDOFF, BLOCKED, DECISION, INFO), inbox, read, ack, wait.
Files:    reserve, release, status.

The acting agent is the command's --agent (--from for send), else --as,
else $BB_AGENT_ID. Every command it makes refreshes its last_seen; being
looked at (list, show, status) never does. Liveness ("liveness" in --json):
active until $BB_AGENT_STALE_MINUTES (S, default 15) after last_seen, stale
until 2S, then evicted; views show the shared presence (active within 5
minutes, quiet until S, stale, offline). Protocol events (HANDOFF, BLOCKED, INCURSION, RESUME)
go to the timeline: bb events --type INCURSION.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(
		a.agentRegisterCmd(), a.agentListCmd(), a.agentShowCmd(), a.agentHeartbeatCmd(),
		a.agentSendCmd(), a.agentReplyCmd(), a.agentInboxCmd(), a.agentReadCmd(), a.agentAckCmd(),
		a.agentReserveCmd(), a.agentReleaseCmd(), a.agentReassignCmd(), a.agentStatusCmd(),
		a.agentInitCmd(), a.agentWaitCmd(),
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

type agentInfoJSON = view.AgentInfo

func agentInfoView(i hub.AgentInfo) agentInfoJSON { return view.AgentInfoOf(i) }

type mailJSON = view.Mail

func toName(to string) string { return view.RecipientName(to) }

func mailView(m hub.MailItem) mailJSON { return view.MailOf(m) }

type reservationJSON = view.Reservation

func reservationView(svc core.API, r hub.Reservation) reservationJSON {
	return view.ReservationOf(r, svc.DisplayScope(r), svc.Now())
}
