package server

import (
	"context"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// markRead and ack are the dashboard's "Seen" and "Accepted" actions: the
// person's identity checks in (so it exists as an agent, like any caller
// that acts), then the mail use cases of the core apply their rules (only
// a recipient may ack…).
func (s *Server) markRead(ctx context.Context, agent, id string) error {
	if _, err := s.svc.CheckIn(ctx, agent); err != nil {
		return err
	}
	_, err := s.svc.ReadMail(ctx, agent, id)
	return err
}

func (s *Server) ack(ctx context.Context, agent, id string) error {
	if _, err := s.svc.CheckIn(ctx, agent); err != nil {
		return err
	}
	_, err := s.svc.AckMail(ctx, agent, id)
	return err
}

// reservations lists active reservations with their owner's liveness and,
// for each, the other agents whose active reservations overlap it (exact
// or partial, seed 001 §5.2), as the core decides it (ActiveOverlaps).
func (s *Server) reservations(ctx context.Context, agents []hub.AgentView) ([]reservationRow, error) {
	st, err := s.svc.ActiveOverlaps(ctx)
	if err != nil {
		return nil, err
	}
	live := map[string]hub.Presence{}
	for _, a := range agents {
		live[a.ID] = a.Presence
	}
	now := s.svc.Now()
	rows := make([]reservationRow, 0, len(st))
	for _, ro := range st {
		r := ro.Reservation
		row := reservationRow{Agent: r.AgentID, Scope: s.svc.DisplayScope(r), BeadID: r.BeadID, Handle: r.BeadID, Expires: r.ExpiresAt,
			Expired: r.Expired(now), Presence: live[r.AgentID]}
		if row.Presence == "" {
			row.Presence = hub.PresOffline
		}
		if strings.HasPrefix(r.BeadID, "task_") {
			row.Handle = hub.TaskHandle(r.BeadID)
		}
		row.StepIn = hub.TakeoverAllowed(row.Presence, row.Expired)
		for _, o := range ro.Others {
			row.Overlaps = append(row.Overlaps, o.Reservation.AgentID+" ("+s.svc.DisplayScope(o.Reservation)+")")
		}
		rows = append(rows, row)
	}
	return rows, nil
}
