package hub

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// KindTaskTakeover records that an agent took over a task whose owner had
// gone stale (bb task begin --takeover-stale).
const KindTaskTakeover = "task_takeover"

// ClaimInput is `bb task begin`: start a task as its owner.
type ClaimInput struct {
	Agent string
	ID    string // the task id, or a unique prefix of it
	// TakeoverStale lets the agent take over a task in progress whose owner
	// is stale or offline.
	TakeoverStale bool
}

// ClaimTask is BeginTask with claims that hold: it refuses a task whose
// dependencies are not all completed (naming them) and a task in progress
// owned by another agent that is still active or quiet (naming the owner).
// A stale or offline owner's task is taken over only with TakeoverStale,
// which records a task_takeover event. (vybe's `task begin` keeps its
// contract: BeginTask moves any task.)
func (s *Service) ClaimTask(ctx context.Context, in ClaimInput) (TaskResult, error) {
	stale, err := s.StaleMinutes()
	if err != nil {
		return TaskResult{}, err
	}
	return s.taskMutation(ctx, in.Agent, in, func(tx Tx, a *Agent, now time.Time) (TaskReply, error) {
		t, err := MustTask(ctx, tx, in.ID)
		if err != nil {
			return TaskReply{}, err
		}
		if t.Status != TaskCompleted {
			if err := unmetDeps(ctx, tx, t); err != nil {
				return TaskReply{}, err
			}
		}
		var takeover *Agent
		if t.Status == TaskInProgress && t.Owner != "" && t.Owner != in.Agent {
			owner, err := tx.GetAgent(ctx, t.Owner)
			if err != nil {
				return TaskReply{}, err
			}
			p := PresOffline
			if owner != nil {
				p = LiveOf(owner.LastSeen, now, stale).Presence
			}
			switch {
			case p == PresActive || p == PresQuiet:
				return TaskReply{}, FieldErr(CodeConflict, "id", "task %s is in progress, owned by %s (%s): ask them to hand it over ({do})", t.ID, t.Owner, p).
					With(Action{Do: ActHandOff, Args: map[string]string{"agent": t.Owner}})
			case !in.TakeoverStale:
				return TaskReply{}, FieldErr(CodeConflict, "id", "task %s is in progress, owned by %s, who is %s: retry with {takeover_stale} to take it over", t.ID, t.Owner, p)
			}
			if err := s.AuthorizeTaskTx(ctx, tx, a, t, VerbTakeover); err != nil {
				return TaskReply{}, err
			}
			takeover = &Agent{ID: t.Owner}
			if owner != nil {
				takeover = owner
			}
		}
		working(a, t, now)
		rep, err := s.beginTx(ctx, tx, a, t, now)
		if err != nil || takeover == nil {
			return rep, err
		}
		_, err = s.TaskEventTx(ctx, tx, a, KindTaskTakeover, t.ID, t.ProjectID,
			fmt.Sprintf("%s took over task %s from %s (%s)", in.Agent, t.ID, takeover.ID, LiveOf(takeover.LastSeen, now, stale).Presence),
			map[string]any{"previous_owner": takeover.ID})
		return rep, err
	})
}

// working makes the task a's current task on the status board (stored
// with its focus by beginTx): its title, and a working status unless the
// agent already reports one.
func working(a *Agent, t *Task, now time.Time) {
	a.CurrentTask = t.Title
	for len(a.CurrentTask) > MaxTaskLen { // a title may be longer than a status task
		r := []rune(a.CurrentTask)
		a.CurrentTask = string(r[:len(r)-1])
	}
	switch a.Status {
	case "planning", "coding", "testing", "reviewing":
	default:
		a.SetStatus("coding", now)
	}
	a.Blockers = nil
}

// unmetDeps refuses t while any task it depends on is not completed.
func unmetDeps(ctx context.Context, tx Tx, t *Task) error {
	deps, err := tx.TaskDeps(ctx, t.ID)
	if err != nil {
		return err
	}
	var open []string
	for _, id := range deps {
		d, err := tx.GetTask(ctx, id)
		if err != nil {
			return err
		}
		if d != nil && d.Status != TaskCompleted {
			open = append(open, fmt.Sprintf("%s %q (%s)", d.ID, d.Title, d.Status))
		}
	}
	if len(open) == 0 {
		return nil
	}
	return FieldErr(CodeConflict, "id", "task %s waits for %s: complete %s first", t.ID, strings.Join(open, ", "), map[bool]string{true: "it", false: "them"}[len(open) == 1])
}
