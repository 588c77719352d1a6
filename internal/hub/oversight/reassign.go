package oversight

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// ReassignItemInput is a person handing over every reservation an item
// between two agents concerns (overview.AttentionItem.Reassign, the
// choice overview.ChoiceReassign).
type ReassignItemInput struct {
	// Person acts: an agent registered with role RolePerson.
	Person string
	// Item names the item, as overview.FindItem reads it: its handle,
	// its id or a unique prefix of its message's id.
	Item string
	// To, when set, gets the reservations in place of the item's other
	// agent (each Reassignment.To).
	To string
}

// ReassignItemResult is what ReassignItem handed over.
type ReassignItemResult struct {
	// Item and Handle name the item (AttentionItem.ID and Handle).
	Item   string `json:"item"`
	Handle string `json:"handle"`
	// Reassigned are the reservations handed over, in the item's order;
	// never empty on success.
	Reassigned []Handover `json:"reassigned"`
}

// Handover is one reservation handed over: what the item named (its To
// the agent that got it, the override if one was given) and the new
// holder's reservation.
type Handover struct {
	overview.Reassignment
	Reservation hub.Reservation `json:"reservation"`
}

// ReassignItem hands every reservation the item names
// (AttentionItem.Reassign) to the item's other agent, or to in.To: the
// choice ChoiceReassign, the same on every surface. The item is read
// afresh (overview.Attention, found by overview.FindItem); an item that
// does not offer the person that choice is INVALID_ARGS naming what it
// offers. Each reservation is a step-in (StepIn's authorization, rules,
// event and mail), all of them in one write transaction: a refusal of
// any leaves every reservation as it was.
func (s *Service) ReassignItem(ctx context.Context, in ReassignItemInput) (ReassignItemResult, error) {
	if err := hub.Allow(ctx, hub.Act(in.Person)); err != nil {
		return ReassignItemResult{}, err
	}
	if err := hub.ValidateAgentRef("person", in.Person); err != nil {
		return ReassignItemResult{}, err
	}
	if in.To != "" {
		if err := hub.ValidateAgentRef("to", in.To); err != nil {
			return ReassignItemResult{}, err
		}
	}
	att, err := s.overview.Attention(ctx, overview.AttentionFilter{})
	if err != nil {
		return ReassignItemResult{}, err
	}
	it, err := overview.FindItem(att.Items, in.Item)
	if err != nil {
		return ReassignItemResult{}, err
	}
	if cs := it.Choices(in.Person); !slices.Contains(cs, overview.ChoiceReassign) {
		return ReassignItemResult{}, notOffered(it, in.Person, cs)
	}
	type handing struct {
		r  overview.Reassignment
		in StepInInput
		sc hub.Scope
	}
	steps := make([]handing, 0, len(it.Reassign))
	for _, r := range it.Reassign {
		r.To = cmp.Or(in.To, r.To)
		// The item's scopes are relative to the top of the work tree:
		// no Wd.
		st := StepInInput{Person: in.Person, Holder: r.Holder, Scope: r.Scope, To: r.To}
		sc, err := s.prepareStepIn(ctx, st)
		if err != nil {
			return ReassignItemResult{}, err
		}
		steps = append(steps, handing{r: r, in: st, sc: sc})
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return ReassignItemResult{}, err
	}
	req := []string{"reassign-item", in.Person, it.ID(), in.To}
	return hub.Write(ctx, s.kernel, req, func(tx hub.Tx) (ReassignItemResult, error) {
		out := ReassignItemResult{Item: it.ID(), Handle: it.Handle(), Reassigned: make([]Handover, 0, len(steps))}
		for _, st := range steps {
			res, err := s.stepInTx(ctx, tx, st.in, st.sc, stale)
			if err != nil {
				return ReassignItemResult{}, err
			}
			if res.Reassigned == nil {
				return ReassignItemResult{}, hub.Internal("reassign item", errors.New("a step-in with a new holder reassigned nothing"))
			}
			out.Reassigned = append(out.Reassigned, Handover{Reassignment: st.r, Reservation: *res.Reassigned})
		}
		return out, nil
	})
}

// notOffered refuses reassigning an item that does not offer it to person
// (its choices cs), saying why and what it offers.
func notOffered(it overview.AttentionItem, person string, cs []string) error {
	why := "reassigning is for a HANDOFF or BLOCKED between two other agents"
	if slices.Contains(cs, overview.ChoiceStepIn) {
		why = "none of the reservations it concerns is past the takeover threshold (its holder stale or offline, or the reservation expired)"
	}
	offered := "nothing"
	if len(cs) > 0 {
		words := make([]string, 0, len(cs))
		for _, c := range cs {
			words = append(words, overview.ChoiceLabel(c))
		}
		offered = strings.Join(words, ", ")
	}
	return hub.FieldErr(hub.CodeInvalidArgs, "item", "the %s %s offers %s no reassign: %s; it offers %s",
		strings.ToUpper(it.Kind), it.Handle(), person, why, offered)
}
