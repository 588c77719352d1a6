package vybe

import (
	"os"

	"github.com/spf13/cobra"
)

func (a *app) loopCmd() *cobra.Command {
	var last int
	var projectID string
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Statistics of recent work-loop runs (loop_run events)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			st, err := svc.LoopRunStats(cmd.Context(), last, projectID)
			if err != nil {
				return err
			}
			return a.ok(st)
		},
	}
	stats.Flags().IntVar(&last, "last", 7, "number of recent runs (at most 100)")
	stats.Flags().StringVar(&projectID, "project-id", "", "only runs of this project")
	hiddenStringAlias(stats.Flags(), &projectID, "project", "alias of --project-id")
	c := namespace("loop", "Work-loop statistics", stats)
	// As in the original, `vybe loop` with any flags prints its index.
	// --project-dir is the loop's documented flag (seed 002: the workspace
	// scope of resume and loop), so `vybe schema commands` lists it as
	// the original's schema does; it is accepted and, like every flag of
	// the original's loop here, changes nothing.
	var projectDir string
	c.Flags().StringVar(&projectDir, "project-dir", "", "workspace directory scope of the work loop (prints the loop index, as the original)")
	c.FParseErrWhitelist.UnknownFlags = true
	a.namespaceRun(c)
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error { return run(cmd, nil) }
	return mutating(c, false)
}

func (a *app) upgradeCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "upgrade",
		Short: "Apply pending database migrations (never downloads anything)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := a.service(cmd.Context()); err != nil {
				return err
			}
			out := map[string]any{"message": "database is up to date", "db_path": a.dbPath}
			if fi, err := os.Stat(a.dbPath); err == nil {
				out["size_bytes"] = fi.Size()
			}
			return a.ok(out)
		},
	}
	return mutating(c, false)
}
