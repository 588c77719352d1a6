package agentmail

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	mailrules "github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/pyjson"
)

// Command annotations read by describe (the schema is generated from
// these definitions, so it cannot drift from what the parser accepts).
const (
	annMutating     = "agentmail.mutating"      // "true" | "false"; absent = not shown
	annOutputFields = "agentmail.output_fields" // comma-separated
	annArgPrefix    = "agentmail.arg."          // + positional name: its description
)

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   Prog,
		Short: "Agent mailbox for local coding agents.",
		Long: `Agent mailbox for local coding agents.

All commands print JSON on stdout; errors are {"error": "..."} on stderr with a
non-zero exit. Run 'agent-mail describe' for the full machine-readable schema.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          rootArgs,
		RunE:          func(cmd *cobra.Command, _ []string) error { return a.describe("") },
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetHelpCommand(&cobra.Command{Use: "no-help", Hidden: true})
	root.SetFlagErrorFunc(flagError)
	a.cmds = []*cobra.Command{a.describeCmd(), a.sendCmd(), a.readCmd(), a.ackCmd(), a.statusCmd(), a.cleanupCmd()}
	for _, c := range a.cmds {
		c.Args = checkArgs
		c.Flags().SortFlags = false
		root.AddCommand(c)
	}
	return root
}

func examples(lines ...string) string {
	for i, l := range lines {
		lines[i] = "  " + Prog + " " + l
	}
	return strings.Join(lines, "\n")
}

func (a *app) describeCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "describe [command]",
		Short: "Print CLI schema as JSON",
		Long:  "Print this schema as JSON. No DB required.",
		Annotations: map[string]string{
			annArgPrefix + "command": "Show schema for a specific command only",
		},
		Example: examples("describe", "describe send"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) > 0 {
				name = args[0]
			}
			return a.describe(name)
		},
	}
	return c
}

func (a *app) sendCmd() *cobra.Command {
	var from, to, subject, body, bodyFile, refs, replyTo string
	c := &cobra.Command{
		Use:   "send",
		Short: "Send a message",
		Long:  "Send a message to another agent (or broadcast to all with --to '*'). Recipient doesn't need to exist yet.",
		Annotations: map[string]string{
			annMutating:     "true",
			annOutputFields: "id,sender,recipient,subject,type,created,ttl_hours",
		},
		Example: examples(
			`send --from second-brain:main --to claudefana:deploy --subject "Fix the deploy bug" --body "See logs." --refs '["logs/deploy-error.txt"]'`,
			`send --from second-brain:main --to claudefana:deploy --subject "Long write-up" --body-file /tmp/writeup.md`,
			`send --from second-brain:main --to "*" --subject "Status check" --body "Report your current status."`,
			`send --from claudefana:deploy --to second-brain:main --subject "Deploy fixed" --reply-to abc123-...`,
		),
		RunE: func(cmd *cobra.Command, _ []string) error {
			in := mailrules.MailSendInput{From: from, To: to, Subject: subject, Refs: refs}
			f := cmd.Flags()
			if f.Changed("body") {
				in.Body = &body
			}
			if f.Changed("body-file") {
				bf := readBodyFile(bodyFile)
				in.BodyFile = &bf
			}
			if f.Changed("reply-to") {
				in.ReplyTo = &replyTo
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			row, err := svc.SendAgentMail(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.reply(pyjson.Object{
				{Key: "id", Value: row.ID},
				{Key: "sender", Value: row.Sender},
				{Key: "recipient", Value: row.Recipient},
				{Key: "subject", Value: row.Subject},
				{Key: "type", Value: row.Type},
				{Key: "created", Value: mailrules.RenderMailTime(row.Created, a.env.Loc)},
				{Key: "ttl_hours", Value: row.TTLHours},
			})
		},
	}
	fl := c.Flags()
	fl.StringVar(&from, "from", "", "Sender identity (project:name)")
	fl.StringVar(&to, "to", "", "Recipient identity (project:name), or '*' for broadcast")
	fl.StringVar(&subject, "subject", "", "Message subject line")
	fl.StringVar(&body, "body", "", "Message body text. Mutually exclusive with --body-file.")
	fl.StringVar(&bodyFile, "body-file", "", "Read message body from a UTF-8 file. Use this for long bodies, code blocks, or text that breaks shell escaping. Mutually exclusive with --body.")
	fl.StringVar(&refs, "refs", "", "JSON array of file paths referenced by this message")
	fl.StringVar(&replyTo, "reply-to", "", "Message ID (UUID) to reply to (creates thread)")
	for _, n := range []string{"from", "to", "subject"} {
		_ = c.MarkFlagRequired(n)
	}
	return c
}

func (a *app) readCmd() *cobra.Command {
	var all, noMark bool
	var from, thread, fields string
	limit := 20
	c := &cobra.Command{
		Use:   "read <agent>",
		Short: "Read inbox",
		Long:  "Read inbox for an agent (unread messages by default). No registration needed.",
		Annotations: map[string]string{
			annMutating:            "false",
			annOutputFields:        "id,sender,recipient,subject,body,refs,reply_to,type,created,ttl_hours,read_at,acked_at",
			annArgPrefix + "agent": "Agent identity (project:name) to read inbox for",
		},
		Example: examples(
			"read claudefana:deploy",
			"read claudefana:deploy --all --limit 50",
			"read claudefana:deploy --from second-brain:main",
			"read second-brain:main --thread abc123-...",
			"read claudefana:deploy --fields id,sender,subject",
		),
		RunE: func(cmd *cobra.Command, args []string) error {
			agent := args[0]
			if !hub.IsMailIdentity(agent) {
				// Checked first, as the original did; an id another
				// surface created is accepted (the core decides).
				svc, err := a.service()
				if err != nil {
					return err
				}
				if _, err := svc.AgentID(cmd.Context(), hub.GrammarMail, agent); err != nil {
					return err
				}
			}
			proj, err := parseFields(cmd, fields)
			if err != nil {
				return err
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			rows, err := svc.ReadAgentMail(cmd.Context(), mailrules.MailReadInput{
				Agent: agent, All: all, From: from, Limit: limit, Thread: thread, NoMarkRead: noMark,
				LocalOffset: a.localOffset(),
			})
			if err != nil {
				return err
			}
			out := make([]pyjson.Object, 0, len(rows))
			for _, r := range rows {
				out = append(out, project(a.mailObject(r), proj))
			}
			return a.reply(out)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&all, "all", false, "Include already-read messages")
	fl.StringVar(&from, "from", "", "Filter by sender identity")
	fl.Var(pyInt{&limit}, "limit", "Max messages to return")
	fl.StringVar(&thread, "thread", "", "Show full thread for this message ID")
	fl.BoolVar(&noMark, "no-mark-read", false, "Don't mark returned messages as read")
	fl.StringVar(&fields, "fields", "", "Comma-separated subset of output_fields to include in each result. Saves agent context when only some fields are needed.")
	return c
}

// mailObject is one message as read prints it (the TC9 columns in table
// order).
func (a *app) mailObject(r hub.MailRow) pyjson.Object {
	tm := func(s *string) any {
		if s == nil {
			return nil
		}
		return mailrules.RenderMailTime(*s, a.env.Loc)
	}
	return pyjson.Object{
		{Key: "id", Value: r.ID},
		{Key: "sender", Value: r.Sender},
		{Key: "recipient", Value: r.Recipient},
		{Key: "subject", Value: r.Subject},
		{Key: "body", Value: r.Body},
		{Key: "refs", Value: r.Refs},
		{Key: "reply_to", Value: r.ReplyTo},
		{Key: "type", Value: r.Type},
		{Key: "ttl_hours", Value: r.TTLHours},
		{Key: "created", Value: mailrules.RenderMailTime(r.Created, a.env.Loc)},
		{Key: "read_at", Value: tm(r.ReadAt)},
		{Key: "acked_at", Value: tm(r.AckedAt)},
	}
}

func (a *app) ackCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "ack <agent> <message_id>",
		Short: "Acknowledge a message",
		Long:  "Acknowledge a message (mark as acted upon). Distinct from read — 'I've done something about this.'",
		Annotations: map[string]string{
			annMutating:                 "true",
			annOutputFields:             "message_id,agent,acked_at",
			annArgPrefix + "agent":      "Agent identity (project:name) acknowledging the message",
			annArgPrefix + "message_id": "UUID4 message ID to acknowledge",
		},
		Example: examples("ack claudefana:deploy 9f1c2e34-5678-4abc-9def-0123456789ab"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			res, err := svc.AckAgentMail(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return a.reply(pyjson.Object{
				{Key: "message_id", Value: res.MessageID},
				{Key: "agent", Value: res.Agent},
				{Key: "acked_at", Value: mailrules.RenderMailTime(res.AckedAt, a.env.Loc)},
			})
		},
	}
	return c
}

func (a *app) statusCmd() *cobra.Command {
	var agent, proj, fields string
	c := &cobra.Command{
		Use:   "status",
		Short: "Show agent status",
		Long:  "Show all known agents and their unread/unacked message counts. Derived from message traffic — no registration needed.",
		Annotations: map[string]string{
			annMutating:     "false",
			annOutputFields: "agent,unread,unacked",
		},
		Example: examples(
			"status",
			"status --agent claudefana:deploy",
			"status --project claudefana",
			"status --fields agent,unread",
		),
		RunE: func(cmd *cobra.Command, _ []string) error {
			pf, err := parseFields(cmd, fields)
			if err != nil {
				return err
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			rows, err := svc.AgentMailStatus(cmd.Context(), agent, proj)
			if err != nil {
				return err
			}
			out := make([]pyjson.Object, 0, len(rows))
			for _, r := range rows {
				out = append(out, project(pyjson.Object{
					{Key: "agent", Value: r.Agent},
					{Key: "unread", Value: r.Unread},
					{Key: "unacked", Value: r.Unacked},
				}, pf))
			}
			return a.reply(out)
		},
	}
	fl := c.Flags()
	fl.StringVar(&agent, "agent", "", "Show status for a specific agent identity only")
	fl.StringVar(&proj, "project", "", "Filter agents by project prefix")
	fl.StringVar(&fields, "fields", "", "Comma-separated subset of output_fields to include in each result.")
	return c
}

func (a *app) cleanupCmd() *cobra.Command {
	var dry bool
	c := &cobra.Command{
		Use:   "cleanup",
		Short: "Purge expired messages",
		Long:  "Purge expired messages (TTL exceeded).",
		Annotations: map[string]string{
			annMutating:     "true",
			annOutputFields: "deleted_count,oldest_deleted,newest_deleted",
		},
		Example: examples("cleanup", "cleanup --dry-run"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			res, err := svc.CleanAgentMail(cmd.Context(), dry)
			if err != nil {
				return err
			}
			n := len(res.Expired)
			if n == 0 {
				return a.reply(pyjson.Object{{Key: "deleted_count", Value: 0}})
			}
			oldest := mailrules.RenderMailTime(res.Expired[0].Created, a.env.Loc)
			newest := mailrules.RenderMailTime(res.Expired[n-1].Created, a.env.Loc)
			if res.DryRun {
				msgs := make([]pyjson.Object, 0, n)
				for _, r := range res.Expired {
					msgs = append(msgs, pyjson.Object{{Key: "id", Value: r.ID}, {Key: "sender", Value: r.Sender}, {Key: "subject", Value: r.Subject}})
				}
				return a.reply(pyjson.Object{
					{Key: "dry_run", Value: true},
					{Key: "would_delete", Value: n},
					{Key: "oldest", Value: oldest},
					{Key: "newest", Value: newest},
					{Key: "messages", Value: msgs},
				})
			}
			return a.reply(pyjson.Object{
				{Key: "deleted_count", Value: n},
				{Key: "oldest_deleted", Value: oldest},
				{Key: "newest_deleted", Value: newest},
			})
		},
	}
	c.Flags().BoolVar(&dry, "dry-run", false, "Show what would be deleted without deleting")
	return c
}

// outputFields is the documented output_fields of c.
func outputFields(c *cobra.Command) []string {
	v := c.Annotations[annOutputFields]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// parseFields applies TC7 to --fields: nil means no projection.
func parseFields(c *cobra.Command, value string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	valid := outputFields(c)
	var fields, invalid []string
	for _, f := range strings.Split(value, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		fields = append(fields, f)
		ok := false
		for _, v := range valid {
			ok = ok || v == f
		}
		if !ok {
			invalid = append(invalid, f)
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	if len(invalid) > 0 {
		sorted := append([]string(nil), valid...)
		sortStrings(sorted)
		return nil, hub.FieldErr(hub.CodeInvalidInput, "fields", "Unknown --fields: %s. Valid for this command: %s",
			pyjson.ReprList(invalid), pyjson.ReprList(sorted))
	}
	return fields, nil
}

// project keeps the requested fields in the requested order (a repeated
// name keeps its first place, as a Python dict would).
func project(o pyjson.Object, fields []string) pyjson.Object {
	if fields == nil {
		return o
	}
	out := make(pyjson.Object, 0, len(fields))
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f] {
			continue
		}
		seen[f] = true
		v, _ := o.Get(f)
		out = append(out, pyjson.KV{Key: f, Value: v})
	}
	return out
}
