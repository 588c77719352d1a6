package bb

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/oversight"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// bb needs is the person's door in a shell: what needs a person (the
// core's list, overview.Attention, as the dashboard and bb top show it)
// with the choices that fit each item (AttentionItem.Choices), and one
// subcommand per choice, each the core's operation (oversight: Answer,
// Nudge, ReassignItem; the kernel's ack for accept).

// needJSON is one item of bb --json needs: the core's item, its handle,
// the person's choices and the command that makes each.
type needJSON struct {
	overview.AttentionItem
	Handle string `json:"handle"`
	ID     string `json:"id"`
	// Reassign is never null here.
	Reassign []overview.Reassignment `json:"reassign"`
	Choices  []string                `json:"choices"`
	// Commands are the exact command of each choice, by choice.
	Commands map[string]string `json:"commands"`
}

// needCommand is the command a person types for choice on it: the text of
// an answer in "<your answer>".
func (a *app) needCommand(it overview.AttentionItem, choice string) string {
	bb := "bb"
	if a.g.asGiven {
		bb += " --as " + a.g.as
	}
	h := it.Handle()
	switch choice {
	case overview.ChoiceAnswer:
		return bb + " needs answer " + h + ` "<your answer>"`
	case overview.ChoiceStepIn:
		return bb + " needs step-in " + h + ` "<your answer>"`
	case overview.ChoiceReassign:
		return bb + " needs reassign " + h
	}
	return bb + " needs " + choice + " " + h
}

func (a *app) needView(it overview.AttentionItem, person string) needJSON {
	n := needJSON{AttentionItem: it, Handle: it.Handle(), ID: it.ID(), Reassign: it.Reassign, Choices: it.Choices(person), Commands: map[string]string{}}
	if n.Reassign == nil {
		n.Reassign = []overview.Reassignment{}
	}
	if n.Files == nil {
		n.Files = []string{}
	}
	for _, c := range n.Choices {
		n.Commands[c] = a.needCommand(it, c)
	}
	return n
}

// printChoices writes the person's choices on it, one line each with its
// command, indented by pad; a line saying so when there is none.
func (a *app) printChoices(w io.Writer, it overview.AttentionItem, person, pad string) {
	cs := it.Choices(person)
	if len(cs) == 0 {
		fmt.Fprintf(w, "%s→ nothing for %s to do: it is %s's\n", pad, person, termtext.Line(it.Agent))
		return
	}
	for _, c := range cs {
		line := fmt.Sprintf("%s→ %-9s %s", pad, overview.ChoiceLabel(c)+":", a.needCommand(it, c))
		if c == overview.ChoiceReassign {
			var parts []string
			for _, r := range it.Reassign {
				parts = append(parts, fmt.Sprintf("%s of %s (%s) to %s", r.Scope, r.Holder, r.Why, r.To))
			}
			line += "   # " + strings.Join(parts, "; ")
		}
		fmt.Fprintln(w, termtext.Line(line))
	}
}

// needAbout is what an item is about: its task (handle and title) or
// work item, and its files.
func needAbout(it overview.AttentionItem) string {
	var parts []string
	switch {
	case it.Task != nil:
		parts = append(parts, "task "+it.Task.Handle+" ("+truncate(it.Task.Title, 40)+")")
	case it.BeadID != "":
		parts = append(parts, "on "+hub.HandleText(it.BeadID))
	}
	if len(it.Files) > 0 {
		parts = append(parts, "files "+strings.Join(it.Files, ", "))
	}
	return strings.Join(parts, " · ")
}

// waitsOnName names whom a HANDOFF or BLOCKED waits on: its recipient, or
// "everyone" for one addressed to all.
func waitsOnName(it overview.AttentionItem) string {
	if it.To == "" {
		return "everyone"
	}
	return it.To
}

// askedLine is what an item asks, with its urgency ("" when nothing is).
func askedLine(it overview.AttentionItem) string { return it.AskedLine(clip100) }

func clip100(s string) string { return truncate(s, 100) }

func (a *app) needsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "needs",
		Short: "What needs a person, and their choices: accept, answer, nudge, reassign, step in",
		Long: `List what needs a person (blockers and handoffs nobody accepted, blocked
agents, critical posts, incursions, sessions that have not heard their
mail), the same list as the dashboard's "Needs a person" and bb top's
"Needs attention", each with what it asks and the person's choices, and
the exact command of each choice. You act as --as / $BB_AGENT_ID, else
"human" (registered as a person, role ` + hub.RolePerson + `, on first use).

The choices fit the item:
  accept     a HANDOFF or BLOCKED that waits on you (to you or everyone)
  answer     reply to who raised it, on its thread: a DECISION to a
             BLOCKED; what waited on you is accepted with it
  nudge      remind the agent it waits on, by mail from you
  step_in    a HANDOFF or BLOCKED between two agents: answer it in the
             place of its recipient, and accept it for them
  reassign   hand the reservation it concerns to the other agent, once
             its holder is stale or offline or it expired

An item is named by its handle (the message's 8 characters, or
stuck:<agent>, incursion:<n>, unheard:<agent>).`,
		Example: `  bb --as dana needs
  bb --as dana needs nudge 1a2b3c4d
  bb --as dana needs answer 1a2b3c4d "use schema v2"
  bb --as dana needs step-in 1a2b3c4d "take src/routes.go instead"
  bb --as dana needs reassign 1a2b3c4d
  bb --json needs | jq -r '.data.items[] | .handle + " " + (.choices | join(","))'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			att, err := svc.Attention(cmd.Context(), overview.AttentionFilter{})
			if err != nil {
				return err
			}
			person, _ := a.identity()
			items := make([]needJSON, 0, len(att.Items))
			for _, it := range att.Items {
				items = append(items, a.needView(it, person))
			}
			data := map[string]any{"person": person, "items": items, "escalate_after": att.EscalateAfter}
			return a.reply(cmd, data, func(w io.Writer) {
				if len(att.Items) == 0 {
					fmt.Fprintln(w, "Nothing needs a person.")
					return
				}
				fmt.Fprintf(w, "Needs a person (you act as %s): %d\n", termtext.Line(person), len(att.Items))
				tw := a.when()
				for _, it := range att.Items {
					who := it.Agent
					if it.Kind == overview.AttentionHandoff || it.Kind == overview.AttentionBlocked {
						who += " → " + waitsOnName(it)
					}
					esc := ""
					if it.Escalated {
						esc = fmt.Sprintf(" · ESCALATED (nobody accepted it within %d min)", att.EscalateAfter)
					}
					fmt.Fprintf(w, "\n  • %s %s %s: %s (%s)%s\n", strings.ToUpper(it.Kind), it.Handle(), termtext.Line(who),
						termtext.Line(truncate(it.Subject, 60)), tw.at(it.At), esc)
					if l := askedLine(it); l != "" {
						fmt.Fprintln(w, "    "+termtext.Line(l))
					}
					if l := needAbout(it); l != "" {
						fmt.Fprintln(w, "    "+termtext.Line(l))
					}
					a.printChoices(w, it, person, "    ")
				}
			})
		},
	}
	c.AddCommand(a.needsAcceptCmd(), a.needsAnswerCmd(false), a.needsAnswerCmd(true), a.needsNudgeCmd(), a.needsReassignCmd())
	return c
}

// needItem is the person acting and the item ref names, offered choice:
// an item that does not offer it is INVALID_ARGS naming those it offers
// and their commands. The person is registered (role person) if unknown.
func (a *app) needItem(cmd *cobra.Command, ref, choice string) (core.API, string, overview.AttentionItem, error) {
	var it overview.AttentionItem
	person, _ := a.identity()
	svc, err := a.service(cmd.Context())
	if err != nil {
		return nil, "", it, err
	}
	att, err := svc.Attention(cmd.Context(), overview.AttentionFilter{})
	if err != nil {
		return nil, "", it, err
	}
	if it, err = overview.FindItem(att.Items, ref); err != nil {
		return nil, "", it, err
	}
	cs := it.Choices(person)
	if !slices.Contains(cs, choice) {
		var offered []string
		for _, c := range cs {
			offered = append(offered, a.needCommand(it, c))
		}
		why := "nothing"
		if len(offered) > 0 {
			why = strings.Join(offered, "; ")
		}
		return nil, "", it, hub.FieldErr(hub.CodeInvalidArgs, "item", "the %s %s offers %s no %s: %s", strings.ToUpper(it.Kind), it.Handle(), person, overview.ChoiceLabel(choice), why)
	}
	if err := svc.EnsurePerson(cmd.Context(), person); err != nil {
		return nil, "", it, err
	}
	a.acting = person
	return svc, person, it, nil
}

// needResult is the reply of every bb needs action: what was done, by
// whom, on which item.
type needResult struct {
	Person string `json:"person"`
	Choice string `json:"choice"`
	Item   string `json:"item"`
	Handle string `json:"handle"`
	// Sent is the mail or post sent (an answer, a step-in, a nudge).
	Sent *messageJSON `json:"sent,omitempty"`
	// Accepted is true when the item was accepted (accept, an answer to
	// what waited on the person, a step-in); For names whom for.
	Accepted bool   `json:"accepted"`
	For      string `json:"for,omitempty"`
	// Reassigned are the reservations handed over (reassign).
	Reassigned []reservationJSON `json:"reassigned,omitempty"`
}

func (a *app) needsAcceptCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "accept <item>",
		Short: "Accept a HANDOFF or BLOCKED that waits on you",
		Example: `  bb --as dana needs accept 1a2b3c4d
  bb --json --as dana needs accept 1a2b3c4d`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, person, it, err := a.needItem(cmd, args[0], overview.ChoiceAccept)
			if err != nil {
				return err
			}
			if _, err := svc.AckMail(cmd.Context(), person, it.MessageID); err != nil {
				return err
			}
			res := needResult{Person: person, Choice: overview.ChoiceAccept, Item: it.ID(), Handle: it.Handle(), Accepted: true, For: person}
			return a.reply(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "Accepted the %s %s from %s\n", strings.ToUpper(it.Kind), it.Handle(), it.Agent)
			})
		},
	}
}

// needsAnswerCmd is bb needs answer, or with stepIn bb needs step-in: the
// core's one answer (oversight.Answer).
func (a *app) needsAnswerCmd(stepIn bool) *cobra.Command {
	c := &cobra.Command{
		Use:   "answer <item> <text>",
		Short: "Answer who raised an item (a DECISION to a BLOCKED); accepted if it waited on you",
		Long: `Answer the one who raised the item, on its thread and work item: a
DECISION to a BLOCKED, INFO otherwise; a reply under a critical post; mail
on its task to a blocked agent. When the item waited on you (addressed to
you or to everyone) it is accepted too, so it leaves the list and is never
escalated. A text of "-" reads it from stdin.`,
		Example: `  bb --as dana needs answer 1a2b3c4d "use schema v2"
  echo "merged, thanks" | bb --as dana needs answer 1a2b3c4d -`,
		Args: usageArgs(cobra.ExactArgs(2)),
	}
	choice := overview.ChoiceAnswer
	if stepIn {
		choice = overview.ChoiceStepIn
		c.Use = "step-in <item> <text>"
		c.Short = "Answer a HANDOFF or BLOCKED between two agents in its recipient's place, and accept it for them"
		c.Long = `Step in on a HANDOFF or BLOCKED between two other agents: your answer goes
to its sender (a DECISION to a BLOCKED) and the message is accepted for
its recipient, recorded under your name. Only a person may. A text of "-"
reads it from stdin.`
		c.Example = `  bb --as dana needs step-in 1a2b3c4d "take src/routes.go instead"
  bb --json --as dana needs step-in 1a2b3c4d "go ahead"`
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		body, err := a.stdinArg("body", args[1], hub.MaxMessageLen)
		if err != nil {
			return err
		}
		svc, person, it, err := a.needItem(cmd, args[0], choice)
		if err != nil {
			return err
		}
		res, err := svc.Answer(cmd.Context(), oversight.AnswerInput{Person: person, Message: it.MessageID, Agent: it.Agent, BeadID: it.BeadID, Body: body, StepIn: stepIn})
		if err != nil {
			return err
		}
		sent := messageView(res.Sent)
		out := needResult{Person: person, Choice: choice, Item: it.ID(), Handle: it.Handle(), Sent: &sent, Accepted: res.Accepted, For: res.For}
		if res.Accepted && out.For == "" {
			out.For = person
		}
		return a.reply(cmd, out, func(w io.Writer) {
			switch {
			case res.For != "":
				fmt.Fprintf(w, "Answered %s (%s) and accepted the %s for %s\n", it.Agent, res.Sent.Category, strings.ToUpper(it.Kind), res.For)
			case res.Accepted:
				fmt.Fprintf(w, "Answered %s (%s) and accepted the %s\n", it.Agent, res.Sent.Category, strings.ToUpper(it.Kind))
			default:
				fmt.Fprintf(w, "Answered %s\n", it.Agent)
			}
		})
	}
	return c
}

func (a *app) needsNudgeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "nudge <item> [text]",
		Short: "Remind the agent an item waits on, by mail from you",
		Long: `Remind the agent the item waits on (a HANDOFF's or BLOCKED's recipient, the
agent of an incursion) by mail from you, high priority, on the item's
thread: what is asked and since when, or your text. A text of "-" reads
it from stdin.`,
		Example: `  bb --as dana needs nudge 1a2b3c4d
  bb --as dana needs nudge 1a2b3c4d "carol, alice waits for src/main.go"`,
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			body := ""
			if len(args) == 2 {
				var err error
				if body, err = a.stdinArg("body", args[1], hub.MaxMessageLen); err != nil {
					return err
				}
			}
			svc, person, it, err := a.needItem(cmd, args[0], overview.ChoiceNudge)
			if err != nil {
				return err
			}
			m, err := svc.Nudge(cmd.Context(), oversight.NudgeInput{Person: person, Message: it.MessageID, Agent: it.WaitsOn(), BeadID: it.BeadID, Subject: it.Subject, Body: body})
			if err != nil {
				return err
			}
			sent := messageView(m.Message)
			res := needResult{Person: person, Choice: overview.ChoiceNudge, Item: it.ID(), Handle: it.Handle(), Sent: &sent}
			return a.reply(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "Nudged %s: %s\n", m.Message.To, termtext.Line(m.Message.Subject))
			})
		},
	}
}

func (a *app) needsReassignCmd() *cobra.Command {
	var to string
	c := &cobra.Command{
		Use:   "reassign <item>",
		Short: "Hand the reservations an item between two agents concerns to the other agent",
		Long: `Hand the reservations a HANDOFF or BLOCKED between two agents concerns to
the other agent (a BLOCKED's: its recipient's files its sender was
refused, to the sender; a HANDOFF's: its sender's files for the work, to
the recipient), or to --to. Offered only once their holder is stale or
offline or the reservation expired; as bb agent reassign, it is recorded
under your name and the new holder is mailed. All of them or none: when
one cannot be handed over, none is.`,
		Example: `  bb --as dana needs reassign 1a2b3c4d
  bb --as dana needs reassign 1a2b3c4d --to agent-api-2`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, person, it, err := a.needItem(cmd, args[0], overview.ChoiceReassign)
			if err != nil {
				return err
			}
			out, err := svc.ReassignItem(cmd.Context(), oversight.ReassignItemInput{Person: person, Item: it.ID(), To: to})
			if err != nil {
				return err
			}
			res := needResult{Person: person, Choice: overview.ChoiceReassign, Item: out.Item, Handle: out.Handle, Reassigned: []reservationJSON{}}
			var done []string
			for _, h := range out.Reassigned {
				res.Reassigned = append(res.Reassigned, reservationView(svc, h.Reservation))
				done = append(done, fmt.Sprintf("%s from %s (%s) to %s", h.Scope, h.Holder, h.Why, h.To))
			}
			return a.reply(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "Reassigned %s; recorded under %s\n", strings.Join(done, ", "), person)
			})
		},
	}
	c.Flags().StringVar(&to, "to", "", "the agent that gets them (default: the item's other agent)")
	return c
}
