package mcp

import (
	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// File reservations (seed 000 §7, seed 001 §5). Relative scopes are
// relative to the project root.

type reserveIn struct {
	Scope         string `json:"scope" jsonschema:"path from project root; dir/* = all below"`
	Bead          string `json:"bead" jsonschema:"task/bead id"`
	TTLMinutes    *int   `json:"ttl_minutes,omitempty" jsonschema:"default 120"`
	TakeoverStale bool   `json:"takeover_stale,omitempty" jsonschema:"take over stale holders"`
}

type reserveOut struct {
	Reservation ReservationOut `json:"reservation"`
	Renewed     bool           `json:"renewed"`
	// TakenOver lists the stale reservations archived by this one.
	TakenOver []ReservationOut `json:"taken_over"`
}

type scopeIn struct {
	Scope string `json:"scope" jsonschema:"path from project root"`
}

type releaseIn struct {
	Scope  string `json:"scope" jsonschema:"path from project root"`
	Holder string `json:"holder,omitempty" jsonschema:"a person: evicted agent's"`
	Agent  string `json:"agent,omitempty" jsonschema:"with holder: gets it"`
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
	addTool(s, tool{name: "bb_reserve", needsID: true, touchFirst: true, core: true, destructive: true, idempotent: true,
		desc: "Reserve files before editing (renews yours)."},
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

	// With holder, a person steps in on an evicted agent's reservation
	// (hub.StepIn): releases it, or with agent hands it to that agent; the
	// answer is then the reservation now in force (agent's), or the
	// released one.
	addTool(s, tool{name: "bb_release", needsID: true, touchFirst: true, core: true, destructive: true, idempotent: true,
		desc: "Release your reservation of this exact scope."},
		func(ctx context.Context, c *call, in releaseIn) (ReservationOut, error) {
			if in.Agent == "" && (in.Holder == "" || in.Holder == c.agent) {
				r, err := c.svc.Release(ctx, c.agent, "", in.Scope)
				return reservationOut(c.svc, r), err
			}
			res, err := c.svc.StepIn(ctx, oversight.StepInInput{Person: c.agent, Holder: in.Holder, Scope: in.Scope, To: in.Agent})
			if err != nil {
				return ReservationOut{}, err
			}
			if res.Reassigned != nil {
				return reservationOut(c.svc, *res.Reassigned), nil
			}
			return reservationOut(c.svc, res.Released), nil
		})

	addTool(s, tool{name: "bb_check_scope", readOnly: true,
		desc: "Who holds a path (reserves nothing)."},
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
