package hub

import (
	"context"
	"time"
)

// TaskFilter selects tasks for listing. Zero values mean "no filter";
// Priority < 0 means "any priority".
type TaskFilter struct {
	Status    string
	Owner     string
	ProjectID string
	Priority  int
	Limit     int
}

// TaskEventFilter selects timeline events the way vybe reads them.
type TaskEventFilter struct {
	Agent           string
	TaskID          string
	Kind            string
	ProjectID       string
	SinceSeq        int64
	Limit           int
	Asc             bool
	IncludeArchived bool
}

// TaskCounts are the task, event, memory and agent counts of `vybe status`.
type TaskCounts struct {
	Pending, InProgress, Completed, Blocked, Unknown int64
	Events, EventsArchived                           int64
	Memory, MemoryExpired                            int64
	Agents, AgentsActive7d                           int64
	Projects                                         int64
}

// TaskMention is a message naming a task by its bead id.
type TaskMention struct {
	UUID      string
	Seq       int64
	From      string
	To        string
	Subject   string
	CreatedAt time.Time
}

// TaskReservation is a reservation naming a task by its bead id.
type TaskReservation struct {
	ID        string
	Scope     string
	Wildcard  bool
	AgentID   string
	State     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// TaskTx is the data access of tasks, dependencies, task artifacts and the
// task-related reads of the timeline (seed 002).
type TaskTx interface {
	InsertTask(ctx context.Context, t *Task) error
	// GetTask returns nil, nil when absent; DependsOn is filled.
	GetTask(ctx context.Context, id string) (*Task, error)
	// UpdateTask writes every mutable column of t.
	UpdateTask(ctx context.Context, t *Task) error
	// DeleteTask removes the task and every dependency edge touching it.
	DeleteTask(ctx context.Context, id string) error
	// ListTasks returns tasks priority DESC, created_at DESC (DependsOn filled).
	ListTasks(ctx context.Context, f TaskFilter) ([]Task, error)
	AddTaskDep(ctx context.Context, taskID, dependsOn string, now time.Time) error
	// RemoveTaskDep reports whether an edge was removed.
	RemoveTaskDep(ctx context.Context, taskID, dependsOn string) (bool, error)
	// TaskDeps lists the ids a task depends on.
	TaskDeps(ctx context.Context, taskID string) ([]string, error)
	// TaskDependents lists the ids of tasks that depend on taskID.
	TaskDependents(ctx context.Context, taskID string) ([]string, error)
	// UnresolvedDeps counts the dependencies of taskID that are not completed.
	UnresolvedDeps(ctx context.Context, taskID string) (int, error)
	// NextPendingTasks returns up to limit pending tasks without unresolved
	// dependencies, priority DESC then created_at ASC, restricted to
	// projectID when scoped. skip excludes one id ("" for none).
	NextPendingTasks(ctx context.Context, projectID string, scoped bool, skip string, limit int) ([]Task, error)
	// CountTasks counts tasks with status, restricted to projectID when scoped.
	CountTasks(ctx context.Context, status, projectID string, scoped bool) (int64, error)

	// InsertTaskArtifact stores a file attached to a task (a.TaskID set).
	InsertTaskArtifact(ctx context.Context, a *Artifact) error
	ListTaskArtifacts(ctx context.Context, taskID string, limit int) ([]Artifact, error)

	// TaskEvents reads the timeline newest first (or oldest first with Asc).
	TaskEvents(ctx context.Context, f TaskEventFilter) ([]Event, error)
	// EventsMentioning returns events whose task_id or bead_id is id, newest first.
	EventsMentioning(ctx context.Context, id string, limit int) ([]Event, error)
	// EventsAfter returns unarchived events with seq > after, oldest first;
	// when scoped only those of projectID or of no project.
	EventsAfter(ctx context.Context, after int64, projectID string, scoped bool, limit int) ([]Event, error)
	// MessagesForBead and ReservationsForBead read (never write) the mail and
	// reservation tables for rows naming a task.
	MessagesForBead(ctx context.Context, beadID string, limit int) ([]TaskMention, error)
	ReservationsForBead(ctx context.Context, beadID string, limit int) ([]TaskReservation, error)
	// Counts returns the numbers shown by `vybe status`.
	Counts(ctx context.Context, now time.Time) (TaskCounts, error)
}
