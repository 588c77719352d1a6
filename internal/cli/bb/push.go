package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

// stdinArg is a positional text argument where "-" stands for stdin, read
// by the rule bb push reads its document with (kit.Document: a pipe or a
// file, never a terminal), at most limit bytes (one more, for the core to
// refuse); a single final newline, as echo and most editors add, is
// dropped.
func (a *app) stdinArg(field, arg string, limit int) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	if !a.env.StdinDocument() {
		return "", hub.FieldErr(hub.CodeInvalidInput, field, "{field} \"-\" reads it from stdin, but stdin is %s: pipe the text in (echo text | bb post -) or give it as the argument", a.stdinIs())
	}
	raw, err := a.env.Document(field, false, "", int64(limit))
	if err != nil {
		return "", err
	}
	s := string(raw)
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	return s, nil
}

// stdinIs says why stdin holds no document: a terminal, or closed.
func (a *app) stdinIs() string {
	if a.env.StdinTerminal {
		return "a terminal"
	}
	return "closed"
}

func (a *app) pushCmd() *cobra.Command {
	var doc string
	c := &cobra.Command{
		Use:   "push",
		Short: "Record an event, memories, task artifacts and a status change atomically",
		Long: `push applies one JSON document (--data, else stdin) in one transaction:
  {"task_id": "...",
   "event": {"kind": "progress", "message": "...", "metadata": {...}},
   "memories": [{"key": "...", "value": "...", "scope": "task", "scope_id": "..."}],
   "artifacts": [{"file_path": "...", "content_type": "..."}],
   "task_status": {"status": "completed", "summary": "..."}}
All of it is stored, or nothing is. The same format as 'vybe push'.`,
		Example: `  bb --as claude-1 push --data '{"task_id":"task_1","event":{"kind":"progress","message":"tests pass"}}'`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := a.env.Document("data", cmd.Flags().Changed("data"), doc, resume.MaxPushInput)
			if err != nil {
				return err
			}
			in, err := resume.ParsePushInput(raw)
			if err != nil {
				return err
			}
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.Push(cmd.Context(), agent, in)
			if err != nil {
				return err
			}
			return a.reply(cmd, r, func(w io.Writer) {
				if r.EventID > 0 {
					fmt.Fprintf(w, "Event %d (%s)\n", r.EventID, r.Kind)
				}
				for _, m := range r.Memories {
					fmt.Fprintf(w, "Memory %s (event %d)\n", m.Key, m.EventID)
				}
				for _, x := range r.Artifacts {
					fmt.Fprintf(w, "Artifact %s %s (event %d)\n", x.ArtifactID, x.FilePath, x.EventID)
				}
				if s := r.TaskStatus; s != nil {
					fmt.Fprintf(w, "Task %s is %s\n", s.TaskID, s.Status)
				}
			})
		},
	}
	c.Flags().StringVarP(&doc, "data", "d", "", "the push document (else read from stdin; --json is bb's reply format)")
	return c
}
