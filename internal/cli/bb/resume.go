package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/view"
)

func (a *app) resumeCmd() *cobra.Command {
	var in resume.ResumeInput
	var peek bool
	c := &cobra.Command{
		Use:   "resume",
		Short: "Start a session: what changed since last time, your focus task, the brief",
		Long: `resume answers "what were we working on?" for the acting agent (--as): it
reads the events since the agent's cursor, chooses its focus task (keep the
one in progress, else a task in progress you own, else an assigned or the
best pending task), advances the cursor and prints the brief. --peek shows
the brief and changes nothing. The rules of 'vybe resume', plus the
fallback to your own task in progress.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			if peek {
				r, err := svc.PeekOwnResume(cmd.Context(), agent, in.ProjectDir)
				if err != nil {
					return err
				}
				text := view.ResumePrompt(agent, r.Brief, view.ForCLI)
				r.Brief.ApproxTokens = resume.ApproxTokens(text)
				return a.reply(cmd, r, func(w io.Writer) { fmt.Fprint(w, text) })
			}
			in.Agent, in.OwnInProgress = agent, true
			r, err := svc.Resume(cmd.Context(), in)
			if err != nil {
				return err
			}
			r = resume.WithPrompt(r, func(b resume.Brief) string { return view.ResumePrompt(agent, b, view.ForCLI) })
			return a.reply(cmd, r, func(w io.Writer) {
				fmt.Fprint(w, r.Prompt)
				fmt.Fprintf(w, "\n(%d new event(s) since your last resume; cursor %d -> %d)\n", len(r.Deltas), r.OldCursor, r.NewCursor)
			})
		},
	}
	c.Flags().StringVar(&in.ProjectDir, "project", "", "scope to this project id (remembered)")
	c.Flags().IntVar(&in.Limit, "limit", resume.DefaultResumeLimit, "maximum new events returned (at most 1000)")
	c.Flags().StringVar(&in.Focus, "focus", "", "set the focus to this task first")
	c.Flags().BoolVar(&peek, "peek", false, "show the brief without changing anything")
	return c
}
