package overview

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// CoordStatus is `bb agent status`.
type CoordStatus struct {
	Reservations   []hub.Reservation // active (expired ones flagged by ExpiresAt)
	Unacked        []hub.MailItem    // messages requiring an ack not given, with their state
	ReservationsBy map[string]int64
	MessagesBy     map[string]int64
	Timeline       []hub.Event // newest protocol events, oldest first
	// Inbox is the agent's inbox counts (the same InboxCounts gives) when
	// the status is for one agent, else nil.
	Inbox *hub.Notices
}

// CoordinationStatus reports active reservations, unacked required-ack
// messages, counts by state and the protocol timeline, optionally for one
// bead and/or agent.
func (s *Service) CoordinationStatus(ctx context.Context, bead, agent string) (CoordStatus, error) {
	if bead != "" {
		if err := hub.ValidateBead(bead); err != nil {
			return CoordStatus{}, err
		}
	}
	if agent != "" {
		if err := hub.ValidateAgentRef("agent", agent); err != nil {
			return CoordStatus{}, err
		}
	}
	st, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (CoordStatus, error) {
		var st CoordStatus
		var err error
		if bead, err = hub.WorkItem(ctx, tx, bead); err != nil {
			return st, err
		}
		if agent != "" {
			a, err := tx.GetAgent(ctx, agent)
			if err != nil {
				return st, err
			}
			if a == nil {
				return st, hub.AgentNotFound("agent", agent)
			}
		}
		rf := hub.ReservationFilter{AgentID: agent, BeadID: bead, States: []string{hub.ResActive}, Limit: hub.StatusLimit}
		if st.Reservations, err = tx.ListReservations(ctx, rf); err != nil {
			return st, err
		}
		if st.ReservationsBy, err = tx.CountReservations(ctx, rf); err != nil {
			return st, err
		}
		mf := hub.MailFilter{BeadID: bead, Agent: agent, Limit: hub.StatusLimit}
		unacked, err := tx.UnackedRequired(ctx, mf)
		if err != nil {
			return st, err
		}
		for _, m := range unacked {
			// The state stored on the row: the recipient's receipt of a
			// direct message (a broadcast's state is per agent).
			it := hub.MailItem{Message: m, State: hub.StateOf(&m, hub.Receipt{ReadAt: m.ReadAt, AckedAt: m.AckedAt}, 0), ReadAt: m.ReadAt, AckedAt: m.AckedAt}
			if !m.IsBroadcast() {
				// When and how it reached its recipient's context.
				at, err := tx.DeliveredVia(ctx, m.To, []string{m.UUID})
				if err != nil {
					return st, err
				}
				if d, ok := at[m.UUID]; ok {
					it.DeliveredAt, it.DeliveredVia = &d.At, d.How()
				}
			}
			st.Unacked = append(st.Unacked, it)
		}
		if st.MessagesBy, err = tx.MailStateCounts(ctx, mf); err != nil || agent == "" {
			return st, err
		}
		n, _, _, err := hub.CountNotices(ctx, tx, agent)
		st.Inbox = &n
		return st, err
	})
	if err != nil {
		return CoordStatus{}, err
	}
	st.Timeline, err = s.kernel.ProtocolTimeline(ctx, bead, agent, 20)
	return st, err
}

// Summary is the one-glance overview of the board.
type Summary struct {
	Agents               []hub.AgentView
	ActiveAgents         []hub.AgentView
	BlockedAgents        []hub.AgentView
	RecentMessages       []hub.Message // last 30 minutes, at most 20
	HighPriorityMessages []hub.Message // high or critical, at most 10
	RecentArtifacts      []hub.Artifact
	LastEventSeq         int64
}

// Summary builds the compact overview (with the liveness side effect).
func (s *Service) Summary(ctx context.Context) (Summary, error) {
	agents, err := s.kernel.Board(ctx)
	if err != nil {
		return Summary{}, err
	}
	now := s.kernel.Now()
	sum, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (Summary, error) {
		var sum Summary
		var err error
		if sum.RecentMessages, err = tx.ListMessages(ctx, hub.MessageFilter{Since: now.Add(-30 * time.Minute), Limit: 20}); err != nil {
			return sum, err
		}
		if sum.HighPriorityMessages, err = tx.ListMessages(ctx, hub.MessageFilter{Priorities: hub.PriorityHigh.AtLeast(), Limit: 10}); err != nil {
			return sum, err
		}
		if sum.RecentArtifacts, err = tx.ListBoardArtifacts(ctx, hub.ArtifactFilter{Since: now.Add(-time.Hour), Limit: 20}); err != nil {
			return sum, err
		}
		sum.LastEventSeq, err = tx.LastEventSeq(ctx)
		return sum, err
	})
	if err != nil {
		return Summary{}, err
	}
	sum.Agents = agents
	sum.ActiveAgents, sum.BlockedAgents = []hub.AgentView{}, []hub.AgentView{}
	for _, a := range agents {
		if a.Liveness == hub.LiveActive {
			sum.ActiveAgents = append(sum.ActiveAgents, a)
		}
		if a.Status == "blocked" {
			sum.BlockedAgents = append(sum.BlockedAgents, a)
		}
	}
	return sum, nil
}
