package vybe

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
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
			raw := []byte(doc)
			if !cmd.Flags().Changed("json") && a.env.StdinPiped {
				b, err := io.ReadAll(io.LimitReader(a.env.Stdin, hub.MaxPushInput+1))
				if err != nil {
					return hub.FieldErr(hub.CodeIOReadFailed, "json", "cannot read stdin: %v", err)
				}
				raw = b
			}
			in, err := hub.ParsePushInput(raw)
			if err != nil {
				return err
			}
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
