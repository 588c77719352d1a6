package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"github.com/blackboard-hub/bb/internal/hub/memory"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

const scopeUsage = "memory scope (global|project|task|agent)"

func (a *app) memoryCmd() *cobra.Command {
	c := namespace("memory", "Durable key/value memory in global, project, task or agent scope",
		a.memorySetCmd(), a.memoryGetCmd(), a.memoryListCmd(), a.memoryDeleteCmd(), a.memoryGCCmd())
	a.namespaceRun(c)
	return c
}

func scopeFlags(c *cobra.Command, scope, scopeID *string) {
	c.Flags().StringVarP(scope, "scope", "s", hub.ScopeGlobal, scopeUsage)
	c.Flags().StringVar(scopeID, "scope-id", "", "scope id (project, task or agent id; none for global)")
	enum(c, "scope", hub.MemoryScopes...)
}

func (a *app) memorySetCmd() *cobra.Command {
	var in memory.Input
	var expiresIn string
	c := &cobra.Command{
		Use:   "set",
		Short: "Insert or update a memory entry",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("expires-in") {
				d, err := memory.ParseExpiresIn(expiresIn)
				if err != nil {
					return err
				}
				in.ExpiresIn = d
			}
			if err := memory.ValidateScope(in.Scope, in.ScopeID); err != nil {
				return err
			}
			if _, err := memory.ValidateValueType(in.ValueType, in.Value); err != nil {
				return err
			}
			ctx, agent, err := a.mutation(cmd.Context(), "memory.upsert")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.SetMemory(ctx, agent, in)
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	f := c.Flags()
	f.StringVarP(&in.Key, "key", "k", "", "memory key")
	f.StringVarP(&in.Value, "value", "v", "", "value (may be empty)")
	f.StringVarP(&in.ValueType, "type", "t", "", "value type (string|number|boolean|json|array; inferred when omitted)")
	f.StringVar(&expiresIn, "expires-in", "", "time to live: Go duration (90m, 2h) or days/weeks (7d, 2w)")
	scopeFlags(c, &in.Scope, &in.ScopeID)
	_ = c.MarkFlagRequired("key")
	_ = c.MarkFlagRequired("value")
	enum(c, "type", hub.MemoryValueTypes...)
	return mutating(c, true)
}

func (a *app) memoryGetCmd() *cobra.Command {
	var key, scope, scopeID string
	c := &cobra.Command{
		Use:   "get",
		Short: "Read one memory entry (missing or expired: memory entry not found)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			m, err := svc.GetMemory(cmd.Context(), scope, scopeID, key)
			if err != nil {
				return err
			}
			return a.ok(resume.ViewMemory(m))
		},
	}
	c.Flags().StringVarP(&key, "key", "k", "", "memory key")
	scopeFlags(c, &scope, &scopeID)
	_ = c.MarkFlagRequired("key")
	return c
}

func (a *app) memoryListCmd() *cobra.Command {
	var scope, scopeID string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the unexpired entries of a scope (newest first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			ms, err := svc.ListMemory(cmd.Context(), scope, scopeID)
			if err != nil {
				return err
			}
			out := map[string]any{"scope": scope, "count": len(ms), "memories": resume.ViewMemories(ms)}
			if scopeID != "" {
				out["scope_id"] = scopeID
			}
			return a.ok(out)
		},
	}
	scopeFlags(c, &scope, &scopeID)
	return c
}

func (a *app) memoryDeleteCmd() *cobra.Command {
	var key, scope, scopeID string
	c := &cobra.Command{
		Use:   "delete",
		Short: "Delete a memory entry",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := memory.ValidateScope(scope, scopeID); err != nil {
				return err
			}
			ctx, agent, err := a.mutation(cmd.Context(), "memory.delete")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.DeleteMemory(ctx, agent, scope, scopeID, key)
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	c.Flags().StringVarP(&key, "key", "k", "", "memory key")
	scopeFlags(c, &scope, &scopeID)
	_ = c.MarkFlagRequired("key")
	return mutating(c, true)
}

func (a *app) memoryGCCmd() *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "gc",
		Short: "Delete expired memory entries",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit <= 0 {
				return hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be > 0")
			}
			ctx, agent, err := a.mutation(cmd.Context(), "memory.gc")
			if err != nil {
				return err
			}
			svc, err := a.service(ctx)
			if err != nil {
				return err
			}
			r, err := svc.GCMemory(ctx, agent, limit)
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	c.Flags().IntVar(&limit, "limit", hub.DefaultGCLimit, "maximum rows to delete")
	return mutating(c, true)
}
