package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"

	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"github.com/blackboard-hub/bb/internal/hub/overview"

	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

func (a *app) agentReserveCmd() *cobra.Command {
	var in hub.ReserveInput
	var ttl int
	c := &cobra.Command{
		Use:   "reserve",
		Short: "Reserve a file or directory scope for an agent",
		Long: `Reserve a scope so other agents know not to edit it. A scope is a path,
relative to the working directory or absolute, inside the project; a
trailing /* means "this directory and everything below it". Reserving
conflicts with another agent's reservation that overlaps exactly or
partially (an ancestor or a descendant):

  unexpired, owner active           RESERVATION_CONFLICT
  expired, or owner stale/evicted   RESERVATION_STALE_FOUND
                                    (--takeover-stale takes it over)

Every overlapping attempt is recorded as an INCURSION event, even when it
fails. Reserving your own scope again renews it.`,
		Example: `  bb agent reserve --agent agent-ui-1 --scope 'src/components/*' --bead bb-12
  bb agent reserve --agent agent-ui-1 --scope src/lib/parser.ts --bead bb-12 --ttl 30
  bb agent reserve --agent agent-ui-2 --scope 'src/*' --bead bb-13 --takeover-stale`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.agentActor(cmd, in.Agent, "agent")
			if err != nil {
				return err
			}
			in.Agent = id
			if in.Wd, in.Scope, err = a.scopeArg(in.Scope); err != nil {
				return err
			}
			if cmd.Flags().Changed("ttl") {
				in.TTLMinutes = &ttl
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Reserve(cmd.Context(), in)
			if err != nil {
				return err
			}
			taken := make([]reservationJSON, 0, len(res.TakenOver))
			for _, r := range res.TakenOver {
				taken = append(taken, reservationView(svc, r))
			}
			data := struct {
				reservationJSON
				Renewed    bool              `json:"renewed"`
				TakenOver  []reservationJSON `json:"taken_over"`
				Incursions []json.RawMessage `json:"incursions"`
			}{reservationView(svc, res.Reservation), res.Renewed, taken, envelopes(res.Incursions)}
			return a.reply(cmd, data, func(w io.Writer) {
				verb := "Reserved"
				if res.Renewed {
					verb = "Renewed"
				}
				fmt.Fprintf(w, "%s %s for %s (bead %s) until %s\n", verb, svc.DisplayScope(res.Reservation), id, hub.HandleText(res.Reservation.BeadID), a.when().at(res.Reservation.ExpiresAt))
				for _, r := range res.TakenOver {
					fmt.Fprintf(w, "Took over %s from %s (archived as expired)\n", svc.DisplayScope(r), r.AgentID)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.Agent, "agent", "", "agent id (default --as / $BB_AGENT_ID)")
	f.StringVar(&in.Scope, "scope", "", "file or directory; a trailing /* covers everything below (required)")
	f.StringVar(&in.BeadID, "bead", "", "bead (task) id the work is for (required)")
	f.IntVar(&ttl, "ttl", hub.DefaultReserveTTL, "minutes until the reservation expires (5..1440)")
	flagerr.SetRange(f, "ttl", hub.MinReserveTTL, hub.MaxReserveTTL)
	f.BoolVar(&in.TakeoverStale, "takeover-stale", false, "take over expired reservations or those of stale/evicted owners")
	required(c, "scope")
	return c
}

// envelopes returns the v1 protocol envelopes (the payload) of events.
func envelopes(evs []hub.Event) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(evs))
	for _, e := range evs {
		out = append(out, json.RawMessage(e.Payload))
	}
	return out
}

func (a *app) agentReleaseCmd() *cobra.Command {
	var agent, scope, holder string
	c := &cobra.Command{
		Use:   "release",
		Short: "Release a reservation: your own, or (a person) an evicted agent's",
		Long: `Release a reservation of a scope. Without --holder, the agent releases its
own reservation; only its owner may.

With --holder, a person (an agent registered with role ` + hub.RolePerson + `) releases
another agent's reservation, once that holder is stale or offline or the
reservation expired; before that it is the holder's alone
(RELEASE_FORBIDDEN). The release is recorded under the person's name and
addressed to the holder. To hand the scope to another agent instead, use
bb agent reassign.`,
		Example: `  bb agent release --agent agent-ui-1 --scope 'src/components/*'
  bb agent register --name dana --role ` + hub.RolePerson + `
  bb agent release --as dana --holder agent-ui-1 --scope src/lib/parser.ts`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.agentActor(cmd, agent, "agent")
			if err != nil {
				return err
			}
			if holder != "" && holder != id {
				return a.stepIn(cmd, oversight.StepInInput{Person: id, Holder: holder, Scope: scope})
			}
			wd, scope, err := a.scopeArg(scope)
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.Release(cmd.Context(), id, wd, scope)
			if err != nil {
				return err
			}
			return a.reply(cmd, reservationView(svc, r), func(w io.Writer) {
				fmt.Fprintf(w, "Released %s (held by %s since %s)\n", svc.DisplayScope(r), r.AgentID, a.when().at(r.CreatedAt))
			})
		},
	}
	c.Flags().StringVar(&agent, "agent", "", "agent id (default --as / $BB_AGENT_ID); with --holder, the person")
	c.Flags().StringVar(&scope, "scope", "", "the scope as reserved (required)")
	c.Flags().StringVar(&holder, "holder", "", "another agent whose reservation a person releases")
	required(c, "scope")
	return c
}

func (a *app) agentReassignCmd() *cobra.Command {
	var in oversight.StepInInput
	c := &cobra.Command{
		Use:   "reassign",
		Short: "A person hands an evicted agent's reservation to another agent",
		Long: `Hand another agent's reservation of a scope to a third agent. Only a person
(an agent registered with role ` + hub.RolePerson + `) may, and only once the holder is
stale or offline or the reservation expired (RELEASE_FORBIDDEN before).

The holder's reservation is released; the new holder gets the same scope
and bead for the default time (renewing its own reservation of the scope
if it has one), unless another active agent holds an overlapping scope
(RESERVATION_CONFLICT). The reassignment is recorded under the person's
name, and the new holder is mailed about it (its hooks deliver it).`,
		Example: `  bb agent register --name dana --role ` + hub.RolePerson + `
  bb agent reassign --as dana --holder agent-ui-1 --scope 'src/components/*' --to agent-ui-2
  bb --json agent reassign --agent dana --holder agent-ui-1 --scope src/lib/parser.ts --to agent-api-1`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.agentActor(cmd, in.Person, "agent")
			if err != nil {
				return err
			}
			in.Person = id
			return a.stepIn(cmd, in)
		},
	}
	f := c.Flags()
	f.StringVar(&in.Person, "agent", "", "the person (default --as / $BB_AGENT_ID)")
	f.StringVar(&in.Holder, "holder", "", "the agent holding the reservation (required)")
	f.StringVar(&in.Scope, "scope", "", "the scope as reserved (required)")
	f.StringVar(&in.To, "to", "", "the agent that gets it (required)")
	required(c, "holder", "scope", "to")
	return c
}

// stepIn is a person's release (in.To empty) or reassignment of another
// agent's reservation.
func (a *app) stepIn(cmd *cobra.Command, in oversight.StepInInput) error {
	var err error
	if in.Wd, in.Scope, err = a.scopeArg(in.Scope); err != nil {
		return err
	}
	svc, err := a.service(cmd.Context())
	if err != nil {
		return err
	}
	res, err := svc.StepIn(cmd.Context(), in)
	if err != nil {
		return err
	}
	data := struct {
		Released       reservationJSON  `json:"released"`
		Reassigned     *reservationJSON `json:"reassigned"`
		HolderPresence hub.Presence     `json:"holder_presence"`
		Person         string           `json:"person"`
	}{Released: reservationView(svc, res.Released), HolderPresence: res.HolderPresence, Person: in.Person}
	if res.Reassigned != nil {
		r := reservationView(svc, *res.Reassigned)
		data.Reassigned = &r
	}
	return a.reply(cmd, data, func(w io.Writer) {
		shown := svc.DisplayScope(res.Released)
		if res.Reassigned == nil {
			fmt.Fprintf(w, "Released %s's reservation of %s (%s); recorded under %s\n", in.Holder, shown, res.HolderPresence, in.Person)
			return
		}
		fmt.Fprintf(w, "Reassigned %s from %s (%s) to %s until %s; recorded under %s, %s was mailed\n", shown, in.Holder,
			res.HolderPresence, in.To, a.when().at(res.Reassigned.ExpiresAt), in.Person, in.To)
	})
}

func (a *app) agentStatusCmd() *cobra.Command {
	var bead, agent string
	c := &cobra.Command{
		Use:   "status",
		Short: "Active reservations, unacked HANDOFF/BLOCKED messages, counts and protocol timeline",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			st, err := svc.CoordinationStatus(cmd.Context(), bead, agent)
			if err != nil {
				return err
			}
			res := make([]reservationJSON, 0, len(st.Reservations))
			for _, r := range st.Reservations {
				res = append(res, reservationView(svc, r))
			}
			unacked := make([]mailJSON, 0, len(st.Unacked))
			for _, m := range st.Unacked {
				unacked = append(unacked, mailView(m))
			}
			held, err := svc.ListLeases(cmd.Context(), leases.ListFilter{Agent: agent})
			if err != nil {
				return err
			}
			data := map[string]any{
				"bead_id": bead, "agent_id": agent,
				"reservations": res, "unacked_messages": unacked, "leases": held,
				"summary":  map[string]any{"reservations": st.ReservationsBy, "messages": st.MessagesBy},
				"inbox":    st.Inbox,
				"timeline": storedEventViews(st.Timeline), // seed 001's protocol event names
			}
			return a.reply(cmd, data, func(w io.Writer) {
				printCoordStatus(w, svc, a.when(), st)
				a.printLeases(w, held)
			})
		},
	}
	c.Flags().StringVar(&bead, "bead", "", "only this bead")
	c.Flags().StringVar(&agent, "agent", "", "only this agent's reservations and messages")
	return c
}

func counts(m map[string]int64, keys ...string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", k, m[k])
	}
	return s
}

func printCoordStatus(w io.Writer, svc core.API, tw when, st overview.CoordStatus) {
	fmt.Fprintf(w, "Active reservations: %d\n", len(st.Reservations))
	rs := append([]hub.Reservation(nil), st.Reservations...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Scope < rs[j].Scope })
	for _, r := range rs {
		exp := "until " + tw.at(r.ExpiresAt)
		if r.Expired(svc.Now()) {
			exp = "EXPIRED " + tw.at(r.ExpiresAt)
		}
		fmt.Fprintf(w, "  %-32s %-20s %-12s %s\n", svc.DisplayScope(r), r.AgentID, hub.HandleText(r.BeadID), exp)
	}
	fmt.Fprintf(w, "Awaiting ack: %d\n", len(st.Unacked))
	for _, m := range st.Unacked {
		delivered := ""
		if m.DeliveredAt != nil {
			delivered = " delivered " + tw.at(*m.DeliveredAt) + " by " + m.DeliveredVia
		}
		fmt.Fprintf(w, "  %-8s %s → %s (%s): %s [%s]%s\n", m.Category, m.From, toName(m.To), hub.HandleText(m.BeadID), truncate(m.Subject, 60), hub.ShortID(m.UUID), delivered)
	}
	fmt.Fprintf(w, "Reservations by state: %s\n", counts(st.ReservationsBy, "active", "released", "expired"))
	fmt.Fprintf(w, "Messages by state: %s\n", counts(st.MessagesBy, "unread", "read", "acked", "broadcast"))
	if st.Inbox != nil {
		fmt.Fprintf(w, "Inbox: %d addressed unread, %d board posts unread\n", st.Inbox.Addressed, st.Inbox.Board)
	}
	if len(st.Timeline) > 0 {
		fmt.Fprintln(w, "Protocol timeline:")
		for _, e := range st.Timeline {
			fmt.Fprintf(w, "  %6d %s %-9s %s\n", e.Seq, tw.at(e.CreatedAt), e.Type, termtext.Line(hub.HandleText(e.Message)))
		}
	}
}
