package bb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/blackboard-hub/bb/internal/hub"
)

// manCmd is `bb man <dir>`: one man page per command, from the command tree
// (their Short, Long, Example and flags), with cobra's doc package.
func (a *app) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man <dir>",
		Short: "Write the manual pages of every bb command into a directory",
		Long: `Write one manual page (section 1, troff) per bb command into <dir>, created
when missing: bb.1, bb-post.1, bb-task-create.1… Each page holds the command's
description, its example, its flags and the global flags, and links to its
parent and subcommands. The pages are dated by the board clock ($BB_NOW, else
today). To read them without installing: man -l <dir>/bb-post.1; to install
them for one user: bb man ~/.local/share/man/man1.`,
		Example: `  bb man ./man && man -l ./man/bb-post.1
  bb man ~/.local/share/man/man1 && man bb-task-create`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return hub.Errorf(hub.CodeIOWriteFailed, "cannot create %s: %v", dir, pathErr(err))
			}
			clock, err := a.clock()
			if err != nil {
				return err
			}
			now := clock.Now()
			// A tree of its own: building one binds the global flags anew.
			tree := newApp(a.env).rootCmd()
			tree.DisableAutoGenTag = true
			header := &doc.GenManHeader{Section: "1", Date: &now, Source: "bb " + Version, Manual: "Blackboard Manual"}
			var pages []string
			walkAvailable(tree, func(c *cobra.Command) { pages = append(pages, manPageName(c)) })
			if err := doc.GenManTree(tree, header, dir); err != nil {
				return hub.Errorf(hub.CodeIOWriteFailed, "cannot write the manual pages into %s: %v", dir, pathErr(err))
			}
			abs, _ := filepath.Abs(dir)
			return a.reply(cmd, map[string]any{"dir": abs, "pages": pages}, func(w io.Writer) {
				fmt.Fprintf(w, "Wrote %d manual pages into %s\n", len(pages), abs)
			})
		},
	}
}

// walkAvailable calls f for c and each command under it that has a manual
// page (not hidden, not deprecated).
func walkAvailable(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			walkAvailable(s, f)
		}
	}
}

// manPageName is the file doc.GenManTree writes for c ("bb-task-create.1").
func manPageName(c *cobra.Command) string {
	name := c.Name()
	for p := c.Parent(); p != nil; p = p.Parent() {
		name = p.Name() + "-" + name
	}
	return name + ".1"
}

// pathErr is the operating system's reason of a file error, without the
// Go operation name.
func pathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
