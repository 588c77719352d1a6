package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

func (a *app) artifactCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "artifact",
		Short: "Register or show a file an agent produced",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.artifactAddCmd("add"), a.artifactShowCmd("show"))
	return c
}

// The original tool spelled these artifact-add / artifact-show.
func (a *app) artifactAddAlias() *cobra.Command {
	c := a.artifactAddCmd("artifact-add")
	c.Hidden = true
	return c
}

func (a *app) artifactShowAlias() *cobra.Command {
	c := a.artifactShowCmd("artifact-show")
	c.Hidden = true
	return c
}

func (a *app) artifactAddCmd(use string) *cobra.Command {
	var version string
	var refs []string
	c := &cobra.Command{
		Use:   use + " <path> <description>",
		Short: "Register (or update) an artifact by path",
		Long: `Register a file or directory of the project as an artifact, with who
produced it and why. The path must be relative to the project root and stay
inside it (no "..", no absolute paths, no symlink leading out). Registering
the same path again replaces its description, version, refs and producer.`,
		Example: `  bb --as claude-1 artifact add docs/api.md "API reference, generated" --version v2 --ref gh:issue:12`,
		Args:    usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, parsed, svc, err := a.withRefs(cmd.Context(), refs)
			if err != nil {
				return err
			}
			in := artifacts.Input{Agent: id, Path: args[0], Description: args[1], Refs: parsed}
			if cmd.Flags().Changed("version") {
				in.Version = &version
			}
			art, created, err := svc.AddArtifact(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.reply(cmd, artifactView(art), func(w io.Writer) {
				verb := "Updated"
				if created {
					verb = "Registered"
				}
				fmt.Fprintf(w, "%s artifact: %s (ID: %d)\n", verb, art.Path, art.ID)
			})
		},
	}
	c.Flags().StringVar(&version, "version", "", "version label (≤64 bytes)")
	c.Flags().StringArrayVar(&refs, "ref", nil, "link to where:what:ref (repeatable, max 20)")
	return c
}

func (a *app) artifactShowCmd(use string) *cobra.Command {
	return &cobra.Command{
		Use:   use + " <path>",
		Short: "Show one artifact",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			art, err := svc.ArtifactByPath(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.reply(cmd, artifactView(art), func(w io.Writer) { printArtifacts(w, []hub.Artifact{art}) })
		},
	}
}

func (a *app) artifactsCmd() *cobra.Command {
	var by, ref, limit string
	c := &cobra.Command{
		Use:   "artifacts",
		Short: "List artifacts (newest 50 by default)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := artifacts.Query{By: by}
			var err error
			if q.Limit, err = limitFlag(cmd, limit, hub.DefaultArtifactsLimit, hub.MaxArtifactsLimit); err != nil {
				return err
			}
			if q.Ref, err = refFlag(cmd, ref); err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			arts, err := svc.Artifacts(cmd.Context(), q)
			if err != nil {
				return err
			}
			return a.reply(cmd, artifactViews(arts), func(w io.Writer) { printArtifacts(w, arts) })
		},
	}
	c.Flags().StringVar(&by, "by", "", "only artifacts produced by this agent")
	c.Flags().StringVar(&ref, "ref", "", "only artifacts linked to where:what:ref")
	c.Flags().StringVarP(&limit, "limit", "l", "", "how many (default 50, max 100)")
	return c
}

func printArtifacts(w io.Writer, arts []hub.Artifact) {
	if len(arts) == 0 {
		fmt.Fprintln(w, "No artifacts found.")
		return
	}
	// Fixed widths, a long path keeps its end, every column padded (the
	// board's documented layout); widths are display cells.
	cols := []column{
		{Header: "PATH", Min: 40, Cut: func(p string) string {
			if cellWidth(p) <= 40 {
				return p
			}
			return keepEnd(p, 37, "...")
		}},
		{Header: "PRODUCED BY", Min: 15, Max: 15, Ellipsis: "..."},
		{Header: "DESCRIPTION", Min: 30, Max: 30, Ellipsis: "...", Fill: true},
	}
	rows := make([][]string, 0, len(arts))
	for _, art := range arts {
		rows = append(rows, []string{art.Path, art.ProducedBy, art.Description})
	}
	writeTable(w, cols, rows, strings.Repeat("-", 90), func(w io.Writer, r int) {
		art := arts[r]
		if art.Version != nil {
			fmt.Fprintf(w, "  → Version: %s\n", termtext.Line(*art.Version))
		}
		if len(art.Refs) > 0 {
			fmt.Fprintf(w, "  → Refs: %s\n", refList(art.Refs))
		}
	})
}

func (a *app) refsCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "refs <where:what:ref>",
		Short:   "Find every message and artifact linked to a reference",
		Example: "  bb refs gh:issue:42\n  bb refs tt:task:auth-rewrite",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := hub.ParseRef(args[0])
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.FindRefs(cmd.Context(), r)
			if err != nil {
				return err
			}
			data := map[string]any{"ref": r, "messages": messageViews(res.Messages), "artifacts": artifactViews(res.Artifacts)}
			return a.reply(cmd, data, func(w io.Writer) {
				fmt.Fprintf(w, "Messages: %d\n", len(res.Messages))
				for _, m := range res.Messages {
					fmt.Fprintf(w, "  #%d %s: %s\n", m.Seq, m.From, truncate(strings.Join(strings.Fields(m.Body), " "), 53))
				}
				fmt.Fprintf(w, "\nArtifacts: %d\n", len(res.Artifacts))
				for _, art := range res.Artifacts {
					fmt.Fprintf(w, "  • %s by %s\n", art.Path, art.ProducedBy)
				}
			})
		},
	}
}
