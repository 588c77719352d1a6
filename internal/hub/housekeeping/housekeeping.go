package housekeeping

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// ClearInput selects what `bb clear` removes.
type ClearInput struct {
	MessagesBefore time.Duration // 0 = keep messages
	// EventsBefore removes timeline events older than this (0: keep),
	// in small batches, as retention.events does.
	EventsBefore time.Duration
	ResetOffline bool
	Artifacts    bool
	Agent        string
}

// ClearPlan counts what ClearInput would remove.
type ClearPlan struct {
	Messages      int64 `json:"messages"`
	OfflineAgents int64 `json:"offline_agents"`
	Artifacts     int64 `json:"artifacts"`
	Events        int64 `json:"events"`
}

// Empty reports whether nothing would be removed.
func (p ClearPlan) Empty() bool {
	return p.Messages == 0 && p.OfflineAgents == 0 && p.Artifacts == 0 && p.Events == 0
}

func (s *Service) clearCounts(ctx context.Context, tx hub.Tx, in ClearInput, now time.Time) (ClearPlan, error) {
	var p ClearPlan
	var err error
	if in.MessagesBefore > 0 {
		if p.Messages, err = tx.CountMessagesBefore(ctx, now.Add(-in.MessagesBefore)); err != nil {
			return p, err
		}
	}
	if in.ResetOffline {
		stale, err := s.kernel.StaleMinutes()
		if err != nil {
			return p, err
		}
		agents, err := tx.ListAgents(ctx)
		if err != nil {
			return p, err
		}
		for _, a := range agents {
			if a.Status == "offline" || hub.LiveOf(a.LastSeen, now, stale).Presence == hub.PresOffline {
				p.OfflineAgents++
			}
		}
	}
	if in.Artifacts {
		if p.Artifacts, err = tx.CountBoardArtifacts(ctx); err != nil {
			return p, err
		}
	}
	if in.EventsBefore > 0 {
		if p.Events, err = tx.CountEventsBefore(ctx, now.Add(-in.EventsBefore)); err != nil {
			return p, err
		}
	}
	return p, nil
}

// PlanClear counts what Clear would remove, changing nothing.
func (s *Service) PlanClear(ctx context.Context, in ClearInput) (ClearPlan, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent), hub.Needs(hub.AccessOperator, "clearing the board")); err != nil {
		return ClearPlan{}, err
	}
	return hub.Read(ctx, s.kernel, func(tx hub.Tx) (ClearPlan, error) { return s.clearCounts(ctx, tx, in, s.kernel.Now()) })
}

// Clear removes old messages, offline agents and/or board artifacts in one
// transaction and records what it did on the timeline.
func (s *Service) Clear(ctx context.Context, in ClearInput) (ClearPlan, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent), hub.Needs(hub.AccessOperator, "clearing the board")); err != nil {
		return ClearPlan{}, err
	}
	if in.MessagesBefore < 0 {
		return ClearPlan{}, hub.FieldErr(hub.CodeInvalidInput, "messages-before", "duration must not be negative")
	}
	if in.EventsBefore < 0 {
		return ClearPlan{}, hub.FieldErr(hub.CodeInvalidInput, "events-before", "duration must not be negative")
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return ClearPlan{}, err
	}
	var events RetainReport
	if in.EventsBefore > 0 {
		// First, in batches of their own: the events older than the
		// cutoff, never holding the write lock long.
		if err := s.removeEvents(ctx, s.kernel.Now().Add(-in.EventsBefore), 0, &events); err != nil {
			return ClearPlan{}, err
		}
	}
	return hub.Write(ctx, s.kernel, in, func(tx hub.Tx) (ClearPlan, error) {
		now := s.kernel.Now()
		var done ClearPlan
		var err error
		if in.MessagesBefore > 0 {
			if done.Messages, err = tx.DeleteMessagesBefore(ctx, now.Add(-in.MessagesBefore)); err != nil {
				return done, err
			}
		}
		if in.ResetOffline {
			if _, err = tx.MarkOfflineBefore(ctx, hub.OfflineBefore(now, stale)); err != nil {
				return done, err
			}
			if done.OfflineAgents, err = tx.DeleteAgentsWithStatus(ctx, "offline"); err != nil {
				return done, err
			}
		}
		if in.Artifacts {
			if done.Artifacts, err = tx.DeleteBoardArtifacts(ctx); err != nil {
				return done, err
			}
		}
		done.Events = events.Events
		if done.Empty() {
			return done, nil
		}
		e := s.kernel.Event(hub.EventBoardCleared, in.Agent, done)
		e.Message = fmt.Sprintf("cleared %d messages, %d offline agents, %d artifacts, %d events", done.Messages, done.OfflineAgents, done.Artifacts, done.Events)
		return done, tx.AppendEvent(ctx, e)
	})
}

// Export is a full dump of the board.
type Export struct {
	ExportedAt time.Time
	Agents     []hub.Agent
	Messages   []hub.Message
	Artifacts  []hub.Artifact
	Events     []hub.Event
}

// Export reads everything (oldest first) in one snapshot.
func (s *Service) Export(ctx context.Context) (Export, error) {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOperator, "exporting the whole board")); err != nil {
		return Export{}, err
	}
	return hub.Read(ctx, s.kernel, func(tx hub.Tx) (Export, error) {
		x := Export{ExportedAt: s.kernel.Now()}
		var err error
		if x.Agents, err = tx.ListAgents(ctx); err != nil {
			return x, err
		}
		if x.Messages, err = tx.ListMessages(ctx, hub.MessageFilter{}); err != nil {
			return x, err
		}
		slices.Reverse(x.Messages)
		if x.Artifacts, err = tx.ListBoardArtifacts(ctx, hub.ArtifactFilter{}); err != nil {
			return x, err
		}
		slices.Reverse(x.Artifacts)
		x.Events, err = tx.ListEvents(ctx, hub.EventFilter{})
		return x, err
	})
}

// ExportLeftOut names what Export leaves out (bb export says so in its
// document): bb backup copies all of it.
func ExportLeftOut() []string {
	return []string{"tasks", "task_deps", "memory", "reservations", "credentials", "hook_sessions", "mail_deliveries",
		"broadcast_receipts", "board_config", "idempotency", "repository"}
}
