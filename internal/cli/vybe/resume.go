package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"github.com/spf13/cobra"
)

func (a *app) resumeCmd() *cobra.Command {
	var in resume.ResumeInput
	var peek bool
	c := &cobra.Command{
		Use:   "resume",
		Short: "Start a session: events since your cursor, your focus task, the brief and prompt",
		Long: `resume answers "what were we working on?": it reads the events since the
agent's cursor (deltas), chooses the focus task deterministically, advances
the cursor and returns the brief and a prompt to inject into the assistant's
context (.data.prompt). --peek shows the brief and changes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if peek {
				agent, err := a.agentName()
				if err != nil {
					return err
				}
				svc, err := a.service(cmd.Context())
				if err != nil {
					return err
				}
				r, err := svc.PeekResume(cmd.Context(), agent, in.ProjectDir)
				if err != nil {
					return err
				}
				r.Brief.ApproxTokens = resume.ApproxTokens(Prompt(agent, r.Brief))
				sheetBrief(&r.Brief)
				return a.ok(r)
			}
			ctx, agent, err := a.mutation(cmd.Context(), "resume")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			in.Agent = agent
			if in.Limit < 0 {
				// Deliberately unlike `bb resume`, which refuses it: the
				// original vybe reads --limit <= 0 as its default (1000).
				in.Limit = 0
			}
			r, err := svc.Resume(ctx, in)
			if err != nil {
				return err
			}
			r = resume.WithPrompt(r, func(b resume.Brief) string { return Prompt(agent, b) })
			sheetBrief(&r.Brief)
			return a.ok(r)
		},
	}
	f := c.Flags()
	f.IntVar(&in.Limit, "limit", resume.DefaultResumeLimit, "maximum deltas (at most 1000)")
	f.StringVar(&in.ProjectDir, "project-dir", "", "workspace directory (the project scope; remembered)")
	hiddenStringAlias(f, &in.ProjectDir, "project", "alias of --project-dir")
	f.BoolVar(&peek, "peek", false, "show the brief without moving the cursor or focus")
	f.StringVar(&in.Focus, "focus", "", "set the focus to this task id first")
	return mutating(c, false)
}
