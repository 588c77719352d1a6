package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"github.com/blackboard-hub/bb/internal/hub/memory"

	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// Shared memory (seed 002) natively in bb.

func (a *app) memoryCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "memory",
		Short: "Durable key/value memory (global, project, task or agent scope, optional expiry)",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.memorySetCmd(), a.memoryGetCmd(), a.memoryListCmd(), a.memoryDeleteCmd(), a.memoryGCCmd())
	return c
}

func memoryScopeFlags(c *cobra.Command, scope, scopeID *string) {
	c.Flags().StringVarP(scope, "scope", "s", hub.ScopeGlobal, "scope: global, project, task or agent")
	c.Flags().StringVar(scopeID, "scope-id", "", "id of the project, task or agent (none for global)")
}

// scopeName names a memory scope as the listing shows it: "global" or
// "project:web".
func scopeName(scope, scopeID string) string {
	if scope == "" {
		scope = hub.ScopeGlobal
	}
	if scopeID != "" {
		scope += ":" + scopeID
	}
	return termtext.Line(scope)
}

func printMemory(w io.Writer, tw when, m resume.MemoryView) {
	scope := scopeName(m.Scope, m.ScopeID)
	exp := ""
	if m.ExpiresAt != "" {
		exp = "  (expires " + m.ExpiresAt + ")"
		if t, err := time.Parse(time.RFC3339Nano, m.ExpiresAt); err == nil {
			exp = "  (expires " + tw.at(t) + ")"
		}
	}
	fmt.Fprintf(w, "%s = %s  [%s, %s]%s\n", termtext.Line(m.Key), termtext.Line(m.Value), scope, m.ValueType, exp)
}

func (a *app) memorySetCmd() *cobra.Command {
	var in memory.Input
	var expiresIn string
	c := &cobra.Command{
		Use:     "set <key> <value>",
		Short:   "Insert or update a memory entry",
		Example: `  bb --as claude-1 memory set build-cmd "make test" --scope project --scope-id web --expires-in 7d`,
		Args:    usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := a.taskActor()
			if err != nil {
				return err
			}
			in.Key, in.Value = args[0], args[1]
			if cmd.Flags().Changed("expires-in") {
				if in.ExpiresIn, err = memory.CheckExpiresIn("expires_in", expiresIn); err != nil {
					return err
				}
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.SetMemory(cmd.Context(), agent, in)
			if err != nil {
				return err
			}
			return a.reply(cmd, r, func(w io.Writer) { fmt.Fprintf(w, "Saved %s (%s)\n", r.Key, r.Scope) })
		},
	}
	c.Flags().StringVarP(&in.ValueType, "type", "t", "", "value type: string, number, boolean, json, array (inferred when omitted)")
	c.Flags().StringVar(&expiresIn, "expires-in", "", "time to live: 90m, 2h, 7d, 2w")
	memoryScopeFlags(c, &in.Scope, &in.ScopeID)
	return c
}

func (a *app) memoryGetCmd() *cobra.Command {
	var scope, scopeID string
	c := &cobra.Command{
		Use:   "get <key>",
		Short: "Read one memory entry",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			m, err := svc.GetMemory(cmd.Context(), scope, scopeID, args[0])
			if err != nil {
				return err
			}
			v := resume.ViewMemory(m)
			return a.reply(cmd, v, func(w io.Writer) { printMemory(w, a.when(), v) })
		},
	}
	memoryScopeFlags(c, &scope, &scopeID)
	return c
}

func (a *app) memoryListCmd() *cobra.Command {
	var scope, scopeID string
	var all bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the unexpired entries of one scope (global by default) or of every scope",
		Long: `List unexpired memory entries, newest first: the global scope unless
--scope (with --scope-id for project, task and agent) names another, or
every scope with --all. Each line names the entry's scope. When other
scopes hold entries too, the human listing ends with a line naming them
and their counts, so a key kept in a project or task scope is never
hidden behind "No memory entries".`,
		Example: `  bb memory list
  bb memory list --all
  bb memory list --scope project --scope-id web`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			if all && (cmd.Flags().Changed("scope") || cmd.Flags().Changed("scope-id")) {
				return hub.FieldErr(hub.CodeInvalidInput, "all", "{field} lists every scope; leave out --scope and --scope-id")
			}
			var ms, every []hub.Memory
			if every, err = svc.ListAllMemory(cmd.Context()); err != nil {
				return err
			}
			if all {
				ms = every
			} else if ms, err = svc.ListMemory(cmd.Context(), scope, scopeID); err != nil {
				return err
			}
			vs := resume.ViewMemories(ms)
			return a.reply(cmd, vs, func(w io.Writer) {
				here := scopeName(scope, scopeID)
				switch {
				case len(vs) > 0:
				case all:
					fmt.Fprintln(w, "No memory entries in any scope.")
				default:
					fmt.Fprintf(w, "No memory entries in %s.\n", here)
				}
				tw := a.when()
				for _, v := range vs {
					printMemory(w, tw, v)
				}
				if !all {
					printOtherScopes(w, here, every)
				}
			})
		},
	}
	c.Flags().BoolVar(&all, "all", false, "list every scope and scope id")
	memoryScopeFlags(c, &scope, &scopeID)
	return c
}

func (a *app) memoryDeleteCmd() *cobra.Command {
	var scope, scopeID string
	c := &cobra.Command{
		Use:   "delete <key>",
		Short: "Delete a memory entry",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.DeleteMemory(cmd.Context(), agent, scope, scopeID, args[0])
			if err != nil {
				return err
			}
			return a.reply(cmd, r, func(w io.Writer) { fmt.Fprintf(w, "Deleted %s (%s)\n", r.Key, r.Scope) })
		},
	}
	memoryScopeFlags(c, &scope, &scopeID)
	return c
}

func (a *app) memoryGCCmd() *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "gc",
		Short: "Delete expired memory entries",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, agent, err := a.actingService(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.GCMemory(cmd.Context(), agent, limit)
			if err != nil {
				return err
			}
			return a.reply(cmd, r, func(w io.Writer) {
				fmt.Fprintf(w, "Deleted %d expired entr%s\n", r.Deleted, map[bool]string{true: "y", false: "ies"}[r.Deleted == 1])
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", hub.DefaultGCLimit, "maximum entries to delete")
	return c
}

// printOtherScopes names the scopes other than here that hold entries,
// with their counts, in the order the entries come (newest first).
func printOtherScopes(w io.Writer, here string, every []hub.Memory) {
	var order []string
	count := map[string]int{}
	for _, m := range every {
		n := scopeName(m.Scope, m.ScopeID)
		if n == here {
			continue
		}
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	}
	if len(order) == 0 {
		return
	}
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%s (%d)", n, count[n])
	}
	fmt.Fprintf(w, "Also in other scopes: %s. All of them: bb memory list --all\n", strings.Join(parts, ", "))
}
