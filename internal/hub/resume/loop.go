package resume

import (
	"context"
	"encoding/json"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Maintenance settings reported by `vybe status` (events are kept forever
// here; these are the original's defaults, informational only).
type Maintenance struct {
	RetentionDays       int `json:"retention_days"`
	PruneBatch          int `json:"prune_batch"`
	SummarizeThreshold  int `json:"summarize_threshold"`
	SummarizeKeepRecent int `json:"summarize_keep_recent"`
}

// TaskStatus is the store summary of `vybe status`.
type TaskStatus struct {
	Counts     hub.TaskCounts
	AgentState *AgentStateView
}

// TaskStoreStatus counts what is stored; with an agent it also creates (if
// needed) and returns that agent's state.
func (s *Service) TaskStoreStatus(ctx context.Context, agent string) (TaskStatus, error) {
	var out TaskStatus
	if agent != "" {
		if err := hub.ValidateStoredAgentID(agent); err != nil {
			return out, err
		}
		st, err := hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) (AgentStateView, error) {
			a, err := s.kernel.ActingAgentTx(ctx, tx, agent, s.kernel.Now())
			if err != nil {
				return AgentStateView{}, err
			}
			return ViewAgentState(*a), nil
		})
		if err != nil {
			return out, err
		}
		out.AgentState = &st
	}
	c, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (hub.TaskCounts, error) { return tx.Counts(ctx, s.kernel.Now()) })
	out.Counts = c
	return out, err
}

// LoopStats summarizes the last loop runs.
type LoopStats struct {
	Runs           int              `json:"runs"`
	AvgCompleted   float64          `json:"avg_completed"`
	AvgFailed      float64          `json:"avg_failed"`
	BlockedRate    float64          `json:"blocked_rate"`
	AvgDurationSec float64          `json:"avg_duration_sec"`
	History        []map[string]any `json:"history"`
}

// LoopRunStats reads the last n loop_run events (optionally of one project).
func (s *Service) LoopRunStats(ctx context.Context, last int, projectID string) (LoopStats, error) {
	if last <= 0 {
		return LoopStats{}, hub.FieldErr(hub.CodeInvalidInput, "last", "last must be > 0")
	}
	if last > 100 {
		last = 100
	}
	evs, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]hub.Event, error) {
		return tx.TaskEvents(ctx, hub.TaskEventFilter{Kind: hub.KindLoopRun, ProjectID: projectID, Limit: last})
	})
	if err != nil {
		return LoopStats{}, err
	}
	out := LoopStats{History: []map[string]any{}}
	var completed, failed, dur float64
	blockedRuns := 0
	for _, e := range evs {
		var m struct {
			Completed   float64 `json:"completed"`
			Failed      float64 `json:"failed"`
			Blocked     float64 `json:"blocked"`
			DurationSec float64 `json:"duration_sec"`
		}
		_ = json.Unmarshal(e.Payload, &m)
		out.Runs++
		completed += m.Completed
		failed += m.Failed
		dur += m.DurationSec
		if m.Blocked > 0 {
			blockedRuns++
		}
		out.History = append(out.History, map[string]any{"event_id": e.Seq, "completed": m.Completed, "failed": m.Failed,
			"blocked": m.Blocked, "duration_sec": m.DurationSec, "created_at": hub.ViewTime(e.CreatedAt)})
	}
	if out.Runs > 0 {
		n := float64(out.Runs)
		out.AvgCompleted, out.AvgFailed, out.AvgDurationSec = completed/n, failed/n, dur/n
		out.BlockedRate = float64(blockedRuns) / n
	}
	return out, nil
}
