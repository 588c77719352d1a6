package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// File reservations (seed 000 §7, seed 001 §5). Relative scopes are
// relative to the project root.

type reserveIn struct {
	Scope         string `json:"scope" jsonschema:"file or directory relative to the project root; dir/* = everything below"`
	Bead          string `json:"bead" jsonschema:"task/bead id the work is for"`
	TTLMinutes    int    `json:"ttl_minutes,omitempty" jsonschema:"5-1440, default 120"`
	TakeoverStale bool   `json:"takeover_stale,omitempty" jsonschema:"take over expired reservations or those of stale agents"`
}

type reserveOut struct {
	Reservation ReservationOut `json:"reservation"`
	Renewed     bool           `json:"renewed"`
	// TakenOver lists the stale reservations archived by this one.
	TakenOver []ReservationOut `json:"taken_over"`
}

type scopeIn struct {
	Scope string `json:"scope" jsonschema:"path relative to the project root"`
}

type holderOut struct {
	ReservationOut
	Overlap  string `json:"overlap"`
	Liveness string `json:"liveness"`
	Blocking bool   `json:"blocking"`
}

type checkOut struct {
	Scope string `json:"scope"`
	// Outcome: clear, conflict (an active agent holds it) or stale.
	Outcome string      `json:"outcome"`
	Held    bool        `json:"held"`
	Holders []holderOut `json:"holders"`
}

func (s *Server) addReservationTools() {
	addTool(s, tool{name: "bb_reserve", needsID: true, touchFirst: true, core: true,
		desc: "Claim files or a directory before editing them so others keep off; conflicts name the holder. Renews your own."},
		func(ctx context.Context, c *call, in reserveIn) (reserveOut, error) {
			r, err := c.svc.Reserve(ctx, hub.ReserveInput{Agent: c.agent, Scope: in.Scope, BeadID: in.Bead, TTLMinutes: in.TTLMinutes, TakeoverStale: in.TakeoverStale})
			if err != nil {
				return reserveOut{}, err
			}
			out := reserveOut{Reservation: reservationOut(c.svc, r.Reservation), Renewed: r.Renewed, TakenOver: []ReservationOut{}}
			for _, t := range r.TakenOver {
				out.TakenOver = append(out.TakenOver, reservationOut(c.svc, t))
			}
			return out, nil
		})

	addTool(s, tool{name: "bb_release", needsID: true, touchFirst: true, core: true,
		desc: "Release your reservation of exactly this scope when you are done editing."},
		func(ctx context.Context, c *call, in scopeIn) (ReservationOut, error) {
			r, err := c.svc.Release(ctx, c.agent, "", in.Scope)
			return reservationOut(c.svc, r), err
		})

	addTool(s, tool{name: "bb_check_scope", readOnly: true,
		desc: "Check, without reserving, whether other agents hold a path you are about to edit."},
		func(ctx context.Context, c *call, in scopeIn) (checkOut, error) {
			chk, err := c.svc.CheckScope(ctx, c.agent, "", in.Scope)
			if err != nil {
				return checkOut{}, err
			}
			out := checkOut{Scope: chk.Scope.Display(c.svc.Root()), Outcome: chk.Outcome, Held: chk.Held, Holders: []holderOut{}}
			for _, h := range chk.Holders {
				out.Holders = append(out.Holders, holderOut{ReservationOut: reservationOut(c.svc, h.Reservation),
					Overlap: string(h.Overlap), Liveness: string(h.Liveness), Blocking: h.Blocking})
			}
			return out, nil
		})
}
