package hub

import (
	"context"
	"fmt"
	"time"
)

// MaxDepWalk bounds the tasks visited by one cycle check.
const MaxDepWalk = 100000

// DependsOnReachable reports whether target is reachable from start by
// following "depends on" edges (next returns the ids a task depends on).
// Adding the edge task → dep creates a cycle exactly when task is
// reachable from dep (or dep == task). The walk is iterative and visits
// each task once.
func DependsOnReachable(start, target string, next func(string) ([]string, error)) (bool, error) {
	if start == target {
		return true, nil
	}
	seen := map[string]bool{start: true}
	stack := []string{start}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deps, err := next(cur)
		if err != nil {
			return false, err
		}
		for _, d := range deps {
			if d == target {
				return true, nil
			}
			if !seen[d] {
				if len(seen) >= MaxDepWalk {
					return false, Errorf(CodeInvalidInput, "dependency graph too large to check (more than %d tasks)", MaxDepWalk)
				}
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false, nil
}

// DepResult is the reply of AddTaskDep and RemoveTaskDep.
type DepResult struct {
	Message string `json:"message"`
}

// checkDepInput is the input rule of both dependency edits: an acting agent
// and both task ids.
func checkDepInput(agent, id, dep string) error {
	if err := checkAgent(agent); err != nil {
		return err
	}
	if id == "" {
		return FieldErr(CodeInvalidInput, "id", "{field} is required")
	}
	if dep == "" {
		return FieldErr(CodeInvalidInput, "depends_on", "{field} is required")
	}
	return nil
}

// AddTaskDep records that task id depends on dep. Self-dependencies and
// cycles are rejected; if dep is not completed, id becomes blocked with
// reason "dependency" (unless it is already completed).
func (s *Service) AddTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error) {
	if err := checkDepInput(agent, id, dep); err != nil {
		return DepResult{}, err
	}
	if id == dep {
		return DepResult{}, FieldErr(CodeInvalidInput, "depends_on", "task cannot depend on itself")
	}
	return Write(ctx, s, []string{agent, id, dep}, func(tx Tx) (DepResult, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return DepResult{}, err
		}
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return DepResult{}, err
		}
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, VerbDepend); err != nil {
			return DepResult{}, err
		}
		d, err := FindTask(ctx, tx, "depends_on", dep)
		if err != nil {
			return DepResult{}, err
		}
		if d == nil {
			return DepResult{}, &Error{Code: CodeNotFound, Field: "depends_on", Message: "dependency task not found: " + dep}
		}
		// Both sides are stored, checked and reported by their full ids,
		// whatever handle named them.
		id, dep = t.ID, d.ID
		if id == dep {
			return DepResult{}, FieldErr(CodeInvalidInput, "depends_on", "task cannot depend on itself")
		}
		cyc, err := DependsOnReachable(dep, id, func(x string) ([]string, error) { return tx.TaskDeps(ctx, x) })
		if err != nil {
			return DepResult{}, err
		}
		if cyc {
			return DepResult{}, &Error{Code: CodeConflict, Field: "depends_on",
				Message: fmt.Sprintf("dependency cycle detected: adding %s → %s would create a cycle", id, dep)}
		}
		if err := tx.AddTaskDep(ctx, id, dep, now); err != nil {
			return DepResult{}, err
		}
		if _, err := s.TaskEventTx(ctx, tx, a, KindTaskDepAdded, id, t.ProjectID, fmt.Sprintf("Dependency added: %s depends on %s", id, dep),
			map[string]string{"depends_on": dep}); err != nil {
			return DepResult{}, err
		}
		if d.Status != TaskCompleted && t.Status != TaskCompleted && !(t.Status == TaskBlocked && t.BlockedReason == BlockedByDependency) {
			if _, err := s.SetTaskStatusTx(ctx, tx, a, t, TaskBlocked, BlockedByDependency, now); err != nil {
				return DepResult{}, err
			}
		}
		return DepResult{Message: fmt.Sprintf("Dependency added: %s depends on %s", id, dep)}, nil
	})
}

// RemoveTaskDep removes the edge (an absent edge is fine) and unblocks id
// if nothing it depends on is left unresolved.
func (s *Service) RemoveTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error) {
	if err := checkDepInput(agent, id, dep); err != nil {
		return DepResult{}, err
	}
	return Write(ctx, s, []string{agent, id, dep}, func(tx Tx) (DepResult, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return DepResult{}, err
		}
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return DepResult{}, err
		}
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, VerbDepend); err != nil {
			return DepResult{}, err
		}
		id = t.ID
		if d, err := FindTask(ctx, tx, "depends_on", dep); err != nil {
			return DepResult{}, err
		} else if d != nil {
			dep = d.ID
		}
		removed, err := tx.RemoveTaskDep(ctx, id, dep)
		if err != nil {
			return DepResult{}, err
		}
		if removed {
			if _, err := s.TaskEventTx(ctx, tx, a, KindTaskDepRemoved, id, t.ProjectID, fmt.Sprintf("Dependency removed: %s no longer depends on %s", id, dep),
				map[string]string{"depends_on": dep}); err != nil {
				return DepResult{}, err
			}
		}
		if err := s.maybeUnblock(ctx, tx, a, id, now); err != nil {
			return DepResult{}, err
		}
		return DepResult{Message: fmt.Sprintf("Dependency removed: %s no longer depends on %s", id, dep)}, nil
	})
}

// unblockDependents runs maybeUnblock on every task that depends on id.
func (s *Service) unblockDependents(ctx context.Context, tx Tx, a *Agent, id string, now time.Time) error {
	deps, err := tx.TaskDependents(ctx, id)
	if err != nil {
		return err
	}
	for _, d := range deps {
		if err := s.maybeUnblock(ctx, tx, a, d, now); err != nil {
			return err
		}
	}
	return nil
}

// maybeUnblock returns a dependency-blocked task to pending when none of
// its dependencies is unresolved any more.
func (s *Service) maybeUnblock(ctx context.Context, tx Tx, a *Agent, id string, now time.Time) error {
	t, err := tx.GetTask(ctx, id)
	if err != nil || t == nil {
		return err
	}
	if t.Status != TaskBlocked || t.BlockedReason != BlockedByDependency {
		return nil
	}
	n, err := tx.UnresolvedDeps(ctx, id)
	if err != nil || n > 0 {
		return err
	}
	_, err = s.SetTaskStatusTx(ctx, tx, a, t, TaskPending, "", now)
	return err
}
