package bb

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

func (a *app) agentSendCmd() *cobra.Command {
	var in hub.SendInput
	c := &cobra.Command{
		Use:   "send",
		Short: "Send a HANDOFF, BLOCKED, DECISION or INFO message about a bead",
		Long: `Send a message to one agent, or to every agent with --to broadcast.
HANDOFF and BLOCKED require an ack from the recipient and are recorded as
protocol events on the timeline. The thread defaults to bead:<bead>.
--priority (low, normal, high, critical) is shown to the recipient; hooks
deliver high and critical mail first. A BLOCKED message's --urgency is the
same scale in the protocol's words (medium = normal): give either one.`,
		Example: `  bb agent send --from agent-ui-1 --to agent-graph-1 --bead bb-12 --category HANDOFF \
      --subject "Edge direction patch ready" --body "Please validate screenshots."
  bb agent send --from agent-ui-1 --to broadcast --bead bb-12 --category INFO \
      --subject "Main is green" --body "Rebased on main."
  bb agent send --from lead --to agent-api-1 --bead bb-7 --category INFO --priority critical \
      --subject "Stop merging" --body "Main is red; hold your merge."`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, err := a.agentActor(cmd, in.From, "from")
			if err != nil {
				return err
			}
			in.From = from
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			m, err := svc.SendMail(cmd.Context(), in)
			if err != nil {
				return err
			}
			v := mailView(m)
			v.Wait = hub.WaitLine(m.Wait, actionWords)
			return a.reply(cmd, v, func(w io.Writer) {
				ack := ""
				if m.RequiresAck {
					ack = " (ack required)"
				}
				fmt.Fprintf(w, "Sent %s %s to %s on %s%s\n", m.Category, hub.ShortID(m.UUID), toName(m.To), hub.HandleText(m.ThreadID), ack)
				if v.Wait != "" {
					fmt.Fprintf(w, "Instead of polling, %s\n", v.Wait)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.From, "from", "", "sender agent id (default --as / $BB_AGENT_ID)")
	f.StringVar(&in.To, "to", "", "recipient agent id, or broadcast (required)")
	f.StringVar(&in.BeadID, "bead", "", "bead (task) id the message is about (required)")
	f.StringVar(&in.Category, "category", "", "HANDOFF, BLOCKED, DECISION or INFO (required)")
	f.StringVar(&in.Subject, "subject", "", "one-line subject (required)")
	f.StringVar(&in.Body, "body", "", "message text (required)")
	f.StringVar(&in.ThreadID, "thread", "", "thread id (default bead:<bead>)")
	f.StringVar(&in.NextAction, "next-action", "", "HANDOFF: what the recipient should do next")
	f.StringVar(&in.RequestedAction, "requested-action", "", "BLOCKED: what you need from the recipient")
	f.StringVar(&in.Priority, "priority", "", "low, normal, high or critical (default normal, or from --urgency)")
	f.StringVar(&in.Urgency, "urgency", "", "BLOCKED: low, medium or high (default from --priority, else medium)")
	required(c, "to", "category", "subject", "body")
	return c
}

func (a *app) agentReplyCmd() *cobra.Command {
	var in hub.ReplyInput
	c := &cobra.Command{
		Use:   "reply <message> <body>",
		Short: "Answer a message: recipient, thread, work item and category come from it",
		Long: `Answer one message of your inbox (or follow up on one you sent). The
message is named by its id or any unique prefix of it (the 8 characters
bb agent inbox shows). The reply goes to the other party, on the same
thread and work item, linked to the message it answers (in_reply_to); its
category is DECISION when answering a BLOCKED message, INFO otherwise
(--category overrides). The thread is printed after sending. A body of
"-" reads it from stdin (a pipe or a file, never a terminal).`,
		Example: `  bb --as agent-graph-1 agent reply 1a2b3c4d "Done: screenshots validated."
  bb agent reply --agent lead 9f8e7d6c "Use milliseconds." --priority high`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			who, err := a.agentActor(cmd, in.Agent, "agent")
			if err != nil {
				return err
			}
			body, err := a.stdinArg("body", args[1], hub.MaxMessageLen)
			if err != nil {
				return err
			}
			in.Agent, in.Message, in.Body = who, args[0], body
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			m, err := svc.ReplyMail(cmd.Context(), in)
			if err != nil {
				return err
			}
			// The thread as the replier sees it: what it received and what
			// it sent on this thread (this reply among them), oldest first.
			conv, err := svc.Conversation(cmd.Context(), "bead:"+m.BeadID, in.Agent)
			if err != nil {
				return err
			}
			var shown []hub.Message
			for _, it := range conv {
				x := it.Message
				if it.Kind != "message" || x == nil || x.ThreadID != m.ThreadID {
					continue
				}
				if x.From == in.Agent || x.To == in.Agent || x.IsBroadcast() {
					shown = append(shown, *x)
				}
			}
			if !slices.ContainsFunc(shown, func(x hub.Message) bool { return x.UUID == m.UUID }) {
				shown = append(shown, m.Message)
			}
			v := mailView(m)
			v.Wait = hub.WaitLine(m.Wait, actionWords)
			return a.reply(cmd, v, func(w io.Writer) {
				fmt.Fprintf(w, "Replied %s %s to %s on %s (in reply to %s)\n", m.Category, hub.ShortID(m.UUID), toName(m.To), hub.HandleText(m.ThreadID), hub.ShortID(m.ReplyTo))
				if v.Wait != "" {
					fmt.Fprintf(w, "Instead of polling, %s\n", v.Wait)
				}
				tw := a.when()
				fmt.Fprintf(w, "Thread %s:\n", hub.HandleText(m.ThreadID))
				for _, it := range shown {
					re := ""
					if it.ReplyTo != "" {
						re = " ↳ " + hub.ShortID(it.ReplyTo)
					}
					fmt.Fprintf(w, "  %s %s %s → %s%s: %s\n", tw.at(it.CreatedAt), hub.ShortID(it.UUID), termtext.Line(it.From), toName(it.To), re, termtext.Line(truncate(termtext.FirstLine(it.Body), 80)))
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.Agent, "agent", "", "who replies (default --as / $BB_AGENT_ID)")
	f.StringVar(&in.Category, "category", "", "override the category (default DECISION to a BLOCKED message, else INFO)")
	f.StringVar(&in.Priority, "priority", "", "low, normal, high or critical (default normal)")
	return c
}

func (a *app) agentInboxCmd() *cobra.Command {
	var q hub.InboxQuery
	c := &cobra.Command{
		Use:   "inbox",
		Short: "List the messages addressed to an agent: those owed an ack first, then newest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.agentActor(cmd, q.Agent, "agent")
			if err != nil {
				return err
			}
			q.Agent = id
			if cmd.Flags().Changed("limit") && (q.Limit < 1 || q.Limit > hub.MaxInboxLimit) {
				return hub.FieldErr(hub.CodeInvalidArgs, "limit", "--limit must be between 1 and %d, got %d", hub.MaxInboxLimit, q.Limit)
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			items, err := svc.Inbox(cmd.Context(), q)
			if err != nil {
				return err
			}
			views := make([]mailJSON, 0, len(items))
			for _, m := range items {
				views = append(views, mailView(m))
			}
			return a.reply(cmd, views, func(w io.Writer) {
				if len(items) == 0 {
					fmt.Fprintln(w, "No messages.")
					return
				}
				// What is owed an ack comes first, then the rest, each
				// newest first (--json keeps the contract's newest-first
				// order).
				owed := func(m hub.MailItem) bool { return m.RequiresAck && m.State != hub.StateAcked }
				shown := slices.Clone(items)
				slices.SortStableFunc(shown, func(x, y hub.MailItem) int {
					switch {
					case owed(x) && !owed(y):
						return -1
					case owed(y) && !owed(x):
						return 1
					}
					return 0
				})
				tw := a.when()
				for _, m := range shown {
					fmt.Fprintf(w, "%-6s %-8s %s from %s on %s", m.State, dash(m.Category), hub.ShortID(m.UUID), termtext.Line(m.From), termtext.Line(hub.HandleText(dash(m.BeadID))))
					if m.RequiresAck && m.State != hub.StateAcked {
						fmt.Fprint(w, " [ack required]")
					}
					if m.Priority != "" && m.Priority != hub.PriorityNormal {
						fmt.Fprint(w, " ")
						mark(w, priorityStyle(m.Priority), "["+string(m.Priority)+"]")
					}
					if m.DeliveredAt != nil && m.State == hub.StateUnread {
						fmt.Fprint(w, " [delivered "+a.when().at(*m.DeliveredAt)+" by "+m.DeliveredVia+"]")
					}
					fmt.Fprintln(w)
					fmt.Fprintf(w, "       %s\n", termtext.Line(preview(m.Subject, m.Body)))
					// When it was sent, and the first line of what it says.
					first := ""
					if m.Subject != "" {
						first = " · " + truncate(termtext.FirstLine(m.Body), 100)
					}
					fmt.Fprintf(w, "       %s%s\n", tw.at(m.CreatedAt), first)
					printIntent(w, "       ", m)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&q.Agent, "agent", "", "whose inbox (default --as / $BB_AGENT_ID)")
	f.StringVar(&q.State, "state", "", "only unread, read or acked messages")
	f.StringVar(&q.BeadID, "bead", "", "only messages about this bead")
	f.IntVar(&q.Limit, "limit", hub.DefaultInboxLimit, "at most this many (1..500)")
	flagerr.SetRange(f, "limit", 1, hub.MaxInboxLimit)
	return c
}

// printIntent shows what a HANDOFF or BLOCKED message asks of its
// recipient (the same fields as --json).
func printIntent(w io.Writer, indent string, m hub.MailItem) {
	v := mailView(m)
	if v.PassedTo != "" {
		fmt.Fprintf(w, "%sPassed to: %s\n", indent, termtext.Line(v.PassedTo))
	}
	if v.NextAction != "" {
		fmt.Fprintf(w, "%sNext action: %s\n", indent, termtext.Line(v.NextAction))
	}
	if v.RequestedAction != "" {
		fmt.Fprintf(w, "%sNeeds input: %s (urgency %s)\n", indent, termtext.Line(v.RequestedAction), termtext.Line(v.Urgency))
	}
	if m.RequiresAck && m.State != hub.StateAcked {
		fmt.Fprintf(w, "%sRequires ack: bb agent ack --message %s\n", indent, hub.ShortID(m.UUID))
	}
}

func preview(subject, body string) string {
	s := subject
	if s == "" {
		s = body
	}
	return truncate(s, 100)
}

func (a *app) mailActCmd(use, short string, act func(svc core.API, cmd *cobra.Command, agent, id string) (hub.MailItem, error), verb string) *cobra.Command {
	var agent, id string
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			who, err := a.agentActor(cmd, agent, "agent")
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			m, err := act(svc, cmd, who, id)
			if err != nil {
				return err
			}
			v := mailView(m)
			v.Wait = hub.WaitLine(m.Wait, actionWords)
			return a.reply(cmd, v, func(w io.Writer) {
				fmt.Fprintf(w, "%s %s %s from %s: %s (state %s)\n", verb, dash(m.Category), hub.ShortID(m.UUID), termtext.Line(m.From), termtext.Line(preview(m.Subject, m.Body)), m.State)
				if verb == "Read" {
					for _, line := range wrap(m.Body, 78) {
						fmt.Fprintf(w, "  %s\n", termtext.Line(line))
					}
					printIntent(w, "  ", m)
				}
			})
		},
	}
	c.Flags().StringVar(&agent, "agent", "", "the recipient acting (default --as / $BB_AGENT_ID)")
	c.Flags().StringVar(&id, "message", "", "message id (required)")
	required(c, "message")
	return c
}

func (a *app) agentReadCmd() *cobra.Command {
	return a.mailActCmd("read", "Mark a message read (unread → read; acked stays acked)",
		func(svc core.API, cmd *cobra.Command, agent, id string) (hub.MailItem, error) {
			return svc.ReadMail(cmd.Context(), agent, id)
		}, "Read")
}

func (a *app) agentAckCmd() *cobra.Command {
	return a.mailActCmd("ack", "Acknowledge a message (recipient only)",
		func(svc core.API, cmd *cobra.Command, agent, id string) (hub.MailItem, error) {
			return svc.AckMail(cmd.Context(), agent, id)
		}, "Acked")
}
