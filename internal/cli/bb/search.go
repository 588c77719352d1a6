package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/search"

	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

func (a *app) searchCmd() *cobra.Command {
	var since, agent, limit string
	var kinds []string
	c := &cobra.Command{
		Use:   "search <query>",
		Short: "Find messages, mail, tasks, memory, artifacts and leases by their words",
		Long: `Search the whole board, best matches first, with the matched words in
bold in each snippet on a terminal (--color, $NO_COLOR: see bb --help); in a
pipe or a file the text is plain, and --json gives the matches as byte
ranges (marks, title_marks).

Every word must appear (as a word or the start of one: "reserv" finds
"reserved"); "quoted words" must appear together in that order. Other
characters only separate words, so any text can be pasted as a query.

Looks in messages and mail (subject, body), tasks (title, description),
memory (key, value), artifacts (path, description) and the grants of
leases (the lease's name; its holder and the port or name it was handed).`,
		Example: `  bb search "login crash"
  bb search '"session cookie" expiry' --kind message --since 2d
  bb search parser --agent claude-1 --kind task --kind artifact
  bb search cookie --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := search.Query{Text: args[0], Kinds: kinds, Agent: agent}
			var err error
			if q.Since, err = sinceFlag(cmd, since); err != nil {
				return err
			}
			if q.Limit, err = limitFlag(cmd, limit, 0, hub.MaxSearchLimit); err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			return a.reply(cmd, res, func(w io.Writer) { printSearch(w, a.when(), res) })
		},
	}
	f := c.Flags()
	f.StringArrayVar(&kinds, "kind", nil, "only this kind: message, task, memory, artifact or lease (repeatable)")
	f.StringVar(&agent, "agent", "", "only what this agent sent or received, owns, produced or keeps")
	f.StringVar(&since, "since", "", "only what was written or changed in this window (10m, 1h, 2d, 1w)")
	f.StringVarP(&limit, "limit", "l", "", "how many results (default 20, max 100)")
	return c
}

func printSearch(w io.Writer, tw when, res search.Result) {
	if len(res.Hits) == 0 {
		fmt.Fprintf(w, "Nothing found for %q.\n", res.Query)
		return
	}
	n := "results"
	if len(res.Hits) == 1 {
		n = "result"
	}
	fmt.Fprintf(w, "%d %s for %q, best first:\n", len(res.Hits), n, res.Query)
	for _, h := range res.Hits {
		fmt.Fprintln(w)
		var head string
		switch h.Kind {
		case hub.SearchMessage:
			head = fmt.Sprintf("message #%s from %s", h.ID, h.Agent)
			if h.To != "" && h.To != hub.Broadcast {
				head += " to " + h.To
			}
		case hub.SearchTask:
			head = "task " + hub.TaskHandle(h.ID)
			if h.Agent != "" {
				head += " (" + h.Agent + ")"
			}
		case hub.SearchMemory:
			head = "memory " + h.Scope
		case hub.SearchArtifact:
			head = "artifact"
			if h.Agent != "" {
				head += " by " + h.Agent
			}
		case hub.SearchLease:
			head = "lease granted to " + h.Agent
		}
		fmt.Fprintf(w, "%s · %s\n", head, tw.at(h.At))
		fmt.Fprint(w, "  ")
		marked(w, h.Title, h.TitleMarks)
		fmt.Fprintln(w)
		if h.Snippet != "" && h.Snippet != h.Title {
			fmt.Fprint(w, "  ")
			marked(w, h.Snippet, h.Marks)
			fmt.Fprintln(w)
		}
	}
}

// marked prints s with its matched words in bold when w is a colour
// terminal, plainly otherwise.
func marked(w io.Writer, s string, marks [][2]int) {
	for _, p := range view.Parts(s, marks) {
		if p.Match {
			mark(w, styleBold, p.Text)
		} else {
			_, _ = io.WriteString(w, p.Text)
		}
	}
}
