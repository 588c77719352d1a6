package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"github.com/spf13/cobra"
)

func (a *app) pushCmd() *cobra.Command {
	var doc string
	c := &cobra.Command{
		Use:   "push",
		Short: "Apply an event, memories, artifacts and a status change in one transaction",
		Long: `push reads one JSON document (--json, else stdin when piped, at most 1 MiB):
  {"task_id": "...",
   "event": {"kind": "progress", "message": "...", "metadata": {...}},
   "memories": [{"key": "...", "value": "...", "scope": "task", "scope_id": "..."}],
   "artifacts": [{"file_path": "...", "content_type": "..."}],
   "task_status": {"status": "completed", "summary": "..."}}
and applies it atomically (event, then memories, artifacts and status).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := a.env.Document("json", cmd.Flags().Changed("json"), doc, resume.MaxPushInput)
			if err != nil {
				return err
			}
			in, err := resume.ParsePushInput(raw)
			if err != nil {
				return err
			}
			// Deliberately unlike `bb push`: the original vybe records any
			// artifact file_path as given (it never opens it), and scripts
			// written for it push absolute paths; bb keeps its rule.
			in.ArtifactPathsAsGiven = true
			ctx, agent, err := a.mutation(cmd.Context(), "push")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.Push(ctx, agent, in)
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	c.Flags().StringVar(&doc, "json", "", "the push document (else read from piped stdin)")
	return mutating(c, true)
}
