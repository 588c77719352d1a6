package bb

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// withRefs takes the first steps of a command that records something with
// refs: the acting agent, the parsed refs, then the board, failing on the
// first that fails.
func (a *app) withRefs(ctx context.Context, refs []string) (string, []hub.Ref, core.API, error) {
	id, _, err := a.actor(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	parsed, err := hub.ParseRefs(refs)
	if err != nil {
		return "", nil, nil, err
	}
	svc, err := a.service(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	return id, parsed, svc, nil
}

func (a *app) postCmd() *cobra.Command {
	var tags, refs []string
	var priority string
	var replyTo int64
	c := &cobra.Command{
		Use:   "post <content>",
		Short: "Post a message to the board (seen by every agent)",
		Long: `Post a message to the board, seen by every agent. A content of "-"
reads the message from stdin (a pipe or a file, never a terminal), as bb
push reads its document.`,
		Example: `  bb --as claude-1 post "Parser refactor landed" --tag parser --ref gh:pr:42
  git log -1 --format=%B | bb --as claude-1 post -
  bb --as codex-2 post "Tests fail on main" --priority high
  bb --as claude-1 post "Fixed, see #3" --reply-to 3`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, parsed, svc, err := a.withRefs(cmd.Context(), refs)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("priority") {
				if err := hub.GivenPriority(priority); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("reply-to") {
				if err := hub.GivenMessageNumber("reply-to", replyTo); err != nil {
					return err
				}
			}
			content, err := a.stdinArg("content", args[0], hub.MaxMessageLen)
			if err != nil {
				return err
			}
			m, err := svc.Post(cmd.Context(), hub.PostInput{From: id, Content: content, Tags: tags, Priority: priority, ReplyTo: replyTo, Refs: parsed})
			if err != nil {
				return err
			}
			return a.reply(cmd, messageView(m), func(w io.Writer) {
				fmt.Fprintf(w, "Posted message #%d from %s\n", m.Seq, m.From)
			})
		},
	}
	f := c.Flags()
	f.StringArrayVar(&tags, "tag", nil, "tag the message (repeatable, max 10, each ≤32 bytes, no spaces)")
	f.StringVar(&priority, "priority", "normal", "low, normal, high or critical")
	f.Int64Var(&replyTo, "reply-to", 0, "number of the message this answers")
	f.StringArrayVar(&refs, "ref", nil, "link to where:what:ref, e.g. gh:issue:42 (repeatable, max 20)")
	return c
}

func (a *app) logCmd() *cobra.Command {
	var since, from, priority, ref, limit string
	var tags []string
	c := &cobra.Command{
		Use:   "log",
		Short: "Show recent messages (newest 20 by default)",
		Long: `Show board messages, oldest to newest on screen (newest first in --json).
Filters combine with AND; several --tag values match any of them.`,
		Example: `  bb log --since 1h --tag parser --tag api
  bb log --from claude-1 --priority high --limit 50
  bb log --ref gh:issue:42`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := hub.LogQuery{Tags: tags, From: from, MinPriority: priority}
			var err error
			if q.Since, err = sinceFlag(cmd, since); err != nil {
				return err
			}
			if q.Limit, err = limitFlag(cmd, limit, hub.DefaultLogLimit, hub.MaxLogLimit); err != nil {
				return err
			}
			if q.Ref, err = refFlag(cmd, ref); err != nil {
				return err
			}
			if id, explicit := a.identity(); explicit && hub.ValidateStoredAgentID(id) == nil {
				q.Reader = id
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			msgs, err := svc.Log(cmd.Context(), q)
			if err != nil {
				return err
			}
			return a.reply(cmd, messageViews(msgs), func(w io.Writer) {
				if len(msgs) == 0 {
					fmt.Fprintln(w, "No messages found.")
					return
				}
				shown := slices.Clone(msgs)
				slices.Reverse(shown)
				tw := a.when()
				for _, m := range shown {
					printMessage(w, tw, m)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&since, "since", "", "only messages newer than this (10s, 10m, 1h, 2d, 1w)")
	f.StringArrayVar(&tags, "tag", nil, "only messages with this tag (repeatable: any of them)")
	f.StringVar(&from, "from", "", "only messages from this agent")
	f.StringVar(&priority, "priority", "", "only messages at or above this priority (low, normal, high, critical)")
	f.StringVar(&ref, "ref", "", "only messages linked to where:what:ref")
	f.StringVarP(&limit, "limit", "l", "", "how many messages (default 20, max 100)")
	return c
}

func (a *app) messageCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "message <id>",
		Short: "Show one message and its replies",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			seq, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
			if err != nil || seq < 1 {
				return hub.FieldErr(hub.CodeInvalidInput, "id", "invalid message id %q: expected a message number such as 42", args[0])
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			thread, err := svc.Thread(cmd.Context(), seq)
			if err != nil {
				return err
			}
			return a.reply(cmd, messageViews(thread), func(w io.Writer) {
				tw := a.when()
				for i, m := range thread {
					if i == 1 {
						fmt.Fprintf(w, "── %d repl%s ──\n\n", len(thread)-1, map[bool]string{true: "y", false: "ies"}[len(thread) == 2])
					}
					printMessage(w, tw, m)
				}
			})
		},
	}
}

func printMessage(w io.Writer, tw when, m hub.Message) {
	icon := ""
	switch m.Priority {
	case hub.PriorityCritical:
		icon = "🔴 "
	case hub.PriorityHigh:
		icon = "🟡 "
	}
	head := fmt.Sprintf("#%d %s%s", m.Seq, icon, m.From)
	if m.To != "" && m.To != hub.Broadcast {
		head += " → " + m.To
	}
	if len(m.Tags) > 0 {
		head += " [" + strings.Join(m.Tags, ", ") + "]"
	}
	head += " (" + tw.at(m.CreatedAt) + ")"
	if m.ReplyToSeq != nil {
		head += fmt.Sprintf(" ↩ #%d", *m.ReplyToSeq)
	}
	fmt.Fprintln(w, head)
	if m.Subject != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Line(m.Subject))
	}
	for _, line := range wrap(m.Body, 78) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if len(m.Refs) > 0 {
		fmt.Fprintf(w, "  → Refs: %s\n", refList(m.Refs))
	}
	fmt.Fprintln(w)
}

func refList(refs []hub.Ref) string {
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// wrap breaks text into lines of at most width runes, keeping explicit newlines.
func wrap(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return out
}

// The query flags of the list commands (bb log, bb artifacts, bb search),
// read one way: a flag not given leaves the query's default.

// sinceFlag is --since, an age such as 2h (0, no bound, when not given).
func sinceFlag(cmd *cobra.Command, v string) (time.Duration, error) {
	if !cmd.Flags().Changed("since") {
		return 0, nil
	}
	return hub.ParseDuration(v)
}

// limitFlag is --limit: def when not given, else a whole number up to max.
func limitFlag(cmd *cobra.Command, v string, def, max int) (int, error) {
	if !cmd.Flags().Changed("limit") {
		return def, nil
	}
	return hub.ParseLimit(v, max)
}

// refFlag is --ref (nil when not given).
func refFlag(cmd *cobra.Command, v string) (*hub.Ref, error) {
	if !cmd.Flags().Changed("ref") {
		return nil, nil
	}
	r, err := hub.ParseRef(v) // given empty, it is refused
	return &r, err
}
