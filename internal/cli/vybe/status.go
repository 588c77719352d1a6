package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"os"

	"github.com/spf13/cobra"
)

func (a *app) statusCmd() *cobra.Command {
	var check bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Database, hooks and store health (with --agent: that agent's state)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agent, err := a.optionalAgent()
			if err != nil {
				return err
			}
			path, src := a.resolveDBPath()
			db := map[string]any{"path": path, "source": src, "ok": false}
			out := map[string]any{
				"db":          db,
				"hooks":       a.hookStatus(),
				"maintenance": resume.Maintenance{RetentionDays: 30, PruneBatch: 500, SummarizeThreshold: 200, SummarizeKeepRecent: 50},
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				db["error"] = err.Error()
				out["hint"] = "run 'vybe upgrade' or check --db-path / VYBE_DB_PATH"
				if check {
					out["query_ok"] = false
					out["query_error"] = err.Error()
				}
				return a.ok(out)
			}
			db["ok"] = true
			if fi, err := os.Stat(path); err == nil {
				db["size_bytes"] = fi.Size()
			}
			st, err := svc.TaskStoreStatus(cmd.Context(), agent)
			if err != nil {
				if check {
					out["query_ok"] = false
					out["query_error"] = err.Error()
					return a.ok(out)
				}
				return err
			}
			k := st.Counts
			tasks := map[string]int64{"pending": k.Pending, "in_progress": k.InProgress, "completed": k.Completed, "blocked": k.Blocked}
			out["counts"] = map[string]any{
				"tasks": tasks, "events": k.Events, "memory": k.Memory, "agents": k.Agents, "projects": k.Projects,
				"events_detail": map[string]int64{"active": k.Events - k.EventsArchived, "archived": k.EventsArchived},
				"memory_detail": map[string]int64{"active": k.Memory - k.MemoryExpired, "expired": k.MemoryExpired},
				"agents_detail": map[string]int64{"active_7d": k.AgentsActive7d},
				"tasks_detail":  map[string]int64{"total": k.Pending + k.InProgress + k.Completed + k.Blocked + k.Unknown, "unknown": k.Unknown},
			}
			// The original's e2e script reads .data.tasks; harmless to add.
			out["tasks"] = tasks
			if st.AgentState != nil {
				out["agent_state"] = st.AgentState
			}
			if check {
				out["query_ok"] = true
			}
			return a.ok(out)
		},
	}
	c.Flags().BoolVar(&check, "check", false, "also run a test query (query_ok)")
	return c
}

func (a *app) hookStatus() map[string]any {
	events := map[string]bool{}
	for _, h := range claudeHooks {
		events[h.Event] = false
	}
	var paths []string
	for _, project := range []bool{false, true} {
		p, err := a.claudeSettingsPath(project)
		if err != nil {
			continue
		}
		m, err := readSettings(p)
		if err != nil {
			continue
		}
		hooks, _ := m["hooks"].(map[string]any)
		found := false
		for _, h := range claudeHooks {
			groups, _ := hooks[h.Event].([]any)
			for _, g := range groups {
				if groupIsVybe(g) {
					events[h.Event] = true
					found = true
				}
			}
		}
		if found {
			paths = append(paths, p)
		}
	}
	installed, status := a.opencodeStatus()
	out := map[string]any{
		"claude":        len(paths) > 0,
		"claude_events": events,
		"opencode":      map[string]any{"installed": installed, "path": a.opencodePluginPath(), "status": status},
	}
	if len(paths) > 0 {
		out["claude_settings_paths"] = paths
	}
	return out
}
