package hub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Task statuses (seed 002).
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskCompleted  = "completed"
	TaskBlocked    = "blocked"
)

// TaskStatuses lists every task status.
var TaskStatuses = []string{TaskPending, TaskInProgress, TaskCompleted, TaskBlocked}

// BlockedByDependency is the blocked_reason of a task waiting on others.
const BlockedByDependency = "dependency"

// Size limits of tasks and task events.
const (
	MaxTaskTitleLen    = 1024
	MaxTaskDescLen     = 65536
	MaxProjectIDLen    = 1024
	MaxEventKindLen    = 128
	MaxEventMessageLen = 4096
	MaxEventMetaLen    = 16384
	MaxSummaryLen      = 4096
)

// Event kinds written by the task and memory features (vybe's names).
const (
	KindTaskCreated         = "task_created"
	KindTaskStatus          = "task_status"
	KindTaskPriorityChanged = "task_priority_changed"
	KindTaskClosed          = "task_closed"
	KindAgentFocus          = "agent_focus"
	KindTaskDepAdded        = "task_dependency_added"
	KindTaskDepRemoved      = "task_dependency_removed"
	KindTaskDeleted         = "task_deleted"
	KindTaskAssigned        = "task_assigned"
	KindMemoryUpserted      = "memory_upserted"
	KindMemoryDelete        = "memory_delete"
	KindMemoryGC            = "memory_gc"
	KindArtifactAdded       = "artifact_added"
	KindReasoning           = "reasoning"
)

// Task is a unit of work (seed 002); bead ids of bb agent mail and
// reservations name tasks.
type Task struct {
	ID            string
	Title         string
	Description   string
	Status        string
	Priority      int
	ProjectID     string
	BlockedReason string
	// Owner is the agent that began or claimed the task last.
	Owner     string
	DependsOn []string
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TaskResult is what a task mutation returns: the task as stored now and the
// ids of the events it appended (0 = none).
type TaskResult struct {
	Task          Task
	EventID       int64
	StatusEventID int64
	FocusEventID  int64
	CloseEventID  int64
}

// TaskReply is the part of a task mutation stored for idempotent replays:
// ids only; the task itself is re-read so a replay shows its current state.
type TaskReply struct {
	TaskID        string `json:"task_id"`
	EventID       int64  `json:"event_id,omitempty"`
	StatusEventID int64  `json:"status_event_id,omitempty"`
	FocusEventID  int64  `json:"focus_event_id,omitempty"`
	CloseEventID  int64  `json:"close_event_id,omitempty"`
}

// ValidateTaskStatus checks a status name, in vybe's words (its contract
// fixes "invalid status '<s>'"); CheckTaskStatus is the same check for a
// person.
func ValidateTaskStatus(s string) error {
	if !slices.Contains(TaskStatuses, s) {
		return FieldErr(CodeInvalidInput, "status", "invalid status '%s'", s)
	}
	return nil
}

// CheckTaskStatus is ValidateTaskStatus with the valid statuses named and,
// for a word people use for one of them ("done"), that status suggested.
func CheckTaskStatus(s string) error {
	if slices.Contains(TaskStatuses, s) {
		return nil
	}
	valid := strings.Join(TaskStatuses, ", ")
	if alt := TaskStatusAlias(s); alt != "" {
		return FieldErr(CodeInvalidInput, "status", "invalid status %q: did you mean %s? (expected one of %s)", s, alt, valid)
	}
	return FieldErr(CodeInvalidInput, "status", "invalid status %q: expected one of %s", s, valid)
}

// TaskStatusAlias is the task status that a word people use for it stands
// for ("done" is completed, "in-progress" in_progress), "" for any other.
func TaskStatusAlias(s string) string {
	w := strings.ToLower(strings.TrimSpace(s))
	w = strings.NewReplacer("-", "_", " ", "_").Replace(w)
	switch w {
	case "done", "complete", "finished", "closed", "resolved":
		return TaskCompleted
	case "inprogress", "in_progress", "started", "active", "doing", "wip", "progress":
		return TaskInProgress
	case "todo", "to_do", "open", "new", "waiting", "pending":
		return TaskPending
	case "blocked", "stuck", "block":
		return TaskBlocked
	}
	return ""
}

// OutcomeStatus maps a completion outcome (done|blocked) to a status.
func OutcomeStatus(outcome string) (string, error) {
	switch outcome {
	case "done":
		return TaskCompleted, nil
	case "blocked":
		return TaskBlocked, nil
	}
	return "", FieldErr(CodeInvalidInput, "outcome", "invalid outcome '%s': must be done or blocked", outcome)
}

// NewEntityID returns "<prefix>_<unixnano>_<12 hex>" (vybe's id format).
func NewEntityID(prefix string, now time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s_%d_%s", prefix, now.UnixNano(), hex.EncodeToString(b[:]))
}

func TaskNotFound(id string) error {
	return &Error{Code: CodeNotFound, Field: "id", Message: "task not found: " + id}
}

// TaskInput is the input of CreateTask.
type TaskInput struct {
	Title       string
	Description string
	ProjectID   string
	Priority    int
}

func validateTaskInput(in TaskInput) error {
	if strings.TrimSpace(in.Title) == "" {
		return FieldErr(CodeInvalidInput, "title", "{field} is required")
	}
	if err := CheckLen("title", in.Title, MaxTaskTitleLen); err != nil {
		return err
	}
	if err := CheckLen("description", in.Description, MaxTaskDescLen); err != nil {
		return err
	}
	return CheckLen("project_id", in.ProjectID, MaxProjectIDLen)
}

// ActingAgentTx loads agent (creating its row) and refreshes last_seen.
func (s *Service) ActingAgentTx(ctx context.Context, tx Tx, agent string, now time.Time) (*Agent, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return nil, err
	}
	if err := tx.TouchAgent(ctx, agent, now); err != nil {
		return nil, err
	}
	a, err := tx.GetAgent(ctx, agent)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, Internal("load agent", fmt.Errorf("agent %q missing after touch", agent))
	}
	return a, nil
}

// TaskEventTx appends a timeline event about a task. Its project is the
// task's, else the acting agent's focus project.
func (s *Service) TaskEventTx(ctx context.Context, tx Tx, a *Agent, kind, taskID, projectID, msg string, meta any) (int64, error) {
	e := &Event{Type: kind, Agent: a.ID, TaskID: taskID, ProjectID: projectID, Message: msg, CreatedAt: s.Now()}
	if e.ProjectID == "" {
		e.ProjectID = a.FocusProjectID
	}
	if meta != nil {
		b, err := json.Marshal(meta)
		if err != nil {
			return 0, Internal("encode event metadata", err)
		}
		e.Payload = b
	}
	if err := tx.AppendEvent(ctx, e); err != nil {
		return 0, err
	}
	return e.Seq, nil
}

func checkAgent(agent string) error { return ValidateStoredAgentID(agent) }

// taskMutation runs fn in one write transaction with the acting agent
// loaded, then re-reads the task it names (so a replay shows current state).
func (s *Service) taskMutation(ctx context.Context, agent string, req any, fn func(tx Tx, a *Agent, now time.Time) (TaskReply, error)) (TaskResult, error) {
	if err := checkAgent(agent); err != nil {
		return TaskResult{}, err
	}
	var fresh *Task // the task as this transaction left it (nil on a replay)
	rep, err := Write(ctx, s, []any{agent, req}, func(tx Tx) (TaskReply, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return TaskReply{}, err
		}
		rep, err := fn(tx, a, now)
		if err != nil {
			return rep, err
		}
		fresh, err = tx.GetTask(ctx, rep.TaskID)
		return rep, err
	})
	if err != nil {
		return TaskResult{}, err
	}
	res := TaskResult{EventID: rep.EventID, StatusEventID: rep.StatusEventID, FocusEventID: rep.FocusEventID, CloseEventID: rep.CloseEventID}
	if fresh != nil {
		res.Task = *fresh
		return res, nil
	}
	t, err := s.GetTask(ctx, rep.TaskID) // a replay: show the task as it is now
	if err != nil {
		return TaskResult{}, err
	}
	res.Task = t
	return res, nil
}

// CreateTask creates a pending task.
func (s *Service) CreateTask(ctx context.Context, agent string, in TaskInput) (TaskResult, error) {
	if err := validateTaskInput(in); err != nil {
		return TaskResult{}, err
	}
	return s.taskMutation(ctx, agent, in, func(tx Tx, a *Agent, now time.Time) (TaskReply, error) {
		t := &Task{ID: NewEntityID("task", now), Title: in.Title, Description: in.Description, Status: TaskPending,
			Priority: in.Priority, ProjectID: in.ProjectID, Version: 1, CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertTask(ctx, t); err != nil {
			return TaskReply{}, err
		}
		ev, err := s.TaskEventTx(ctx, tx, a, KindTaskCreated, t.ID, t.ProjectID, "Task created: "+t.Title, nil)
		return TaskReply{TaskID: t.ID, EventID: ev}, err
	})
}

// GetTask returns one task with its dependencies.
func (s *Service) GetTask(ctx context.Context, id string) (Task, error) {
	if id == "" {
		return Task{}, FieldErr(CodeInvalidInput, "id", "{field} is required")
	}
	return Read(ctx, s, func(tx Tx) (Task, error) {
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return Task{}, err
		}
		return *t, nil
	})
}

// ListTasks lists tasks priority DESC, created_at DESC.
func (s *Service) ListTasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	if f.Status != "" {
		if err := ValidateTaskStatus(f.Status); err != nil {
			return nil, err
		}
	}
	return Read(ctx, s, func(tx Tx) ([]Task, error) { return tx.ListTasks(ctx, f) })
}

// MustTask loads the task named by id (its full id or a unique handle),
// or fails NOT_FOUND.
func MustTask(ctx context.Context, tx Tx, id string) (*Task, error) {
	if id == "" {
		return nil, FieldErr(CodeInvalidInput, "id", "{field} is required")
	}
	t, err := FindTask(ctx, tx, "id", id)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, TaskNotFound(id)
	}
	return t, nil
}

// FindTask loads the task named by id (its full id or a unique handle);
// nil when no task has that name. An ambiguous handle is refused with the
// candidates listed; field names the argument in that error.
func FindTask(ctx context.Context, tx Tx, field, id string) (*Task, error) {
	full, err := ResolveID(ctx, tx, "tasks", field, id)
	if err != nil {
		return nil, err
	}
	return tx.GetTask(ctx, full)
}

// SetTaskStatusTx moves t to status (bumping its version, writing the
// task_status event) and applies the dependency rules: a task leaving the
// blocked state loses its blocked reason; a task reaching completed
// unblocks the tasks that were waiting only on it.
func (s *Service) SetTaskStatusTx(ctx context.Context, tx Tx, a *Agent, t *Task, status, reason string, now time.Time) (int64, error) {
	t.Status = status
	if status == TaskBlocked {
		t.BlockedReason = reason
	} else {
		t.BlockedReason = ""
	}
	t.Version++
	t.UpdatedAt = now
	if err := tx.UpdateTask(ctx, t); err != nil {
		return 0, err
	}
	ev, err := s.TaskEventTx(ctx, tx, a, KindTaskStatus, t.ID, t.ProjectID, "Status changed to: "+status, nil)
	if err != nil {
		return 0, err
	}
	if status == TaskCompleted {
		if err := s.unblockDependents(ctx, tx, a, t.ID, now); err != nil {
			return 0, err
		}
	}
	return ev, nil
}

// SetTaskStatus is the low-level status transition.
func (s *Service) SetTaskStatus(ctx context.Context, agent, id, status string) (TaskResult, error) {
	if status == "" {
		return TaskResult{}, FieldErr(CodeInvalidInput, "status", "{field} is required")
	}
	if err := ValidateTaskStatus(status); err != nil {
		return TaskResult{}, err
	}
	return s.taskMutation(ctx, agent, []string{id, status}, func(tx Tx, a *Agent, now time.Time) (TaskReply, error) {
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return TaskReply{}, err
		}
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, StatusVerb(status)); err != nil {
			return TaskReply{}, err
		}
		reason := ""
		if status == TaskBlocked {
			reason = t.BlockedReason
		}
		ev, err := s.SetTaskStatusTx(ctx, tx, a, t, status, reason, now)
		return TaskReply{TaskID: t.ID, EventID: ev}, err
	})
}

// SetTaskPriority changes a task's priority (any integer).
func (s *Service) SetTaskPriority(ctx context.Context, agent, id string, priority int) (TaskResult, error) {
	return s.taskMutation(ctx, agent, []any{id, priority}, func(tx Tx, a *Agent, now time.Time) (TaskReply, error) {
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return TaskReply{}, err
		}
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, VerbPriority); err != nil {
			return TaskReply{}, err
		}
		t.Priority = priority
		t.Version++
		t.UpdatedAt = now
		if err := tx.UpdateTask(ctx, t); err != nil {
			return TaskReply{}, err
		}
		ev, err := s.TaskEventTx(ctx, tx, a, KindTaskPriorityChanged, t.ID, t.ProjectID, fmt.Sprintf("Priority changed to: %d", priority), nil)
		return TaskReply{TaskID: t.ID, EventID: ev}, err
	})
}

// BeginTask moves a task to in_progress (from any status), makes the agent
// its owner and sets the agent's focus on it.
func (s *Service) BeginTask(ctx context.Context, agent, id string) (TaskResult, error) {
	return s.taskMutation(ctx, agent, id, func(tx Tx, a *Agent, now time.Time) (TaskReply, error) {
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return TaskReply{}, err
		}
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, VerbBegin); err != nil {
			return TaskReply{}, err
		}
		return s.beginTx(ctx, tx, a, t, now)
	})
}

// beginTx makes a the owner of t, in progress, and its focus.
func (s *Service) beginTx(ctx context.Context, tx Tx, a *Agent, t *Task, now time.Time) (TaskReply, error) {
	var err error
	rep := TaskReply{TaskID: t.ID}
	if t.Status != TaskInProgress || t.Owner != a.ID {
		t.Owner = a.ID
		if t.Status == TaskInProgress {
			t.Version++
			t.UpdatedAt = now
			if err := tx.UpdateTask(ctx, t); err != nil {
				return rep, err
			}
		} else if rep.StatusEventID, err = s.SetTaskStatusTx(ctx, tx, a, t, TaskInProgress, "", now); err != nil {
			return rep, err
		}
	}
	rep.FocusEventID, err = s.SetFocusTx(ctx, tx, a, t.ID, now)
	return rep, err
}

// SetFocusTx points the agent's focus at taskID and records agent_focus.
func (s *Service) SetFocusTx(ctx context.Context, tx Tx, a *Agent, taskID string, now time.Time) (int64, error) {
	a.FocusTaskID = taskID
	a.Version++
	a.UpdatedAt = now
	a.LastSeen = now
	if err := tx.PutAgent(ctx, a); err != nil {
		return 0, err
	}
	projectID := ""
	if t, err := tx.GetTask(ctx, taskID); err != nil {
		return 0, err
	} else if t != nil {
		projectID = t.ProjectID
	}
	return s.TaskEventTx(ctx, tx, a, KindAgentFocus, taskID, projectID, "Focus set: "+taskID, nil)
}

// CloseInput is the input of CompleteTask.
type CloseInput struct {
	ID            string
	Outcome       string // done | blocked
	Summary       string
	Label         string
	BlockedReason string
}

// CompleteTask closes a task: outcome done → completed (unblocking tasks
// that waited on it), blocked → blocked with a reason (the given one, else
// "failure:<summary>").
func (s *Service) CompleteTask(ctx context.Context, agent string, in CloseInput) (TaskResult, error) {
	if in.ID == "" {
		return TaskResult{}, FieldErr(CodeInvalidInput, "id", "{field} is required")
	}
	if in.Outcome == "" {
		return TaskResult{}, FieldErr(CodeInvalidInput, "outcome", "{field} is required (done|blocked)")
	}
	status, err := OutcomeStatus(in.Outcome)
	if err != nil {
		return TaskResult{}, err
	}
	if strings.TrimSpace(in.Summary) == "" {
		return TaskResult{}, FieldErr(CodeInvalidInput, "summary", "{field} is required")
	}
	if err := CheckLen("summary", in.Summary, MaxSummaryLen); err != nil {
		return TaskResult{}, err
	}
	return s.taskMutation(ctx, agent, in, func(tx Tx, a *Agent, now time.Time) (TaskReply, error) {
		t, err := MustTask(ctx, tx, in.ID)
		if err != nil {
			return TaskReply{}, err
		}
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, StatusVerb(status)); err != nil {
			return TaskReply{}, err
		}
		return s.CloseTaskTx(ctx, tx, a, t, status, in, now)
	})
}

func (s *Service) CloseTaskTx(ctx context.Context, tx Tx, a *Agent, t *Task, status string, in CloseInput, now time.Time) (TaskReply, error) {
	if status == TaskCompleted && a.FocusTaskID == t.ID && a.CurrentTask == t.Title {
		// Its current task is done: the status board no longer shows it.
		a.CurrentTask, a.Progress = "", 0
		a.SetStatus("idle", now)
		a.Version++
		a.UpdatedAt = now
		if err := tx.PutAgent(ctx, a); err != nil {
			return TaskReply{TaskID: t.ID}, err
		}
	}
	reason := in.BlockedReason
	if status == TaskBlocked && reason == "" {
		reason = "failure:" + in.Summary
	}
	rep := TaskReply{TaskID: t.ID}
	var err error
	if rep.StatusEventID, err = s.SetTaskStatusTx(ctx, tx, a, t, status, reason, now); err != nil {
		return rep, err
	}
	outcome := "done"
	if status == TaskBlocked {
		outcome = "blocked"
	}
	meta := map[string]string{"outcome": outcome, "summary": in.Summary}
	if in.Label != "" {
		meta["label"] = in.Label
	}
	rep.CloseEventID, err = s.TaskEventTx(ctx, tx, a, KindTaskClosed, t.ID, t.ProjectID, "Task closed: "+status, meta)
	return rep, err
}

// StatusVerb is the authority table's verb for moving a task to status.
func StatusVerb(status string) Verb {
	switch status {
	case TaskCompleted:
		return VerbComplete
	case TaskBlocked:
		return VerbBlock
	}
	return VerbStatus
}

// TaskOwnerTx is whose task t is for verb in the authority table: its
// owner; for beginning it, its owner only while it is in progress (a task
// nobody is working on is anyone's to take up); for deleting a task nobody
// owns, the agent that created it (its task_created event; "" when the
// timeline no longer holds it).
func TaskOwnerTx(ctx context.Context, tx Tx, t *Task, verb Verb) (string, error) {
	switch {
	case verb == VerbBegin && t.Status != TaskInProgress:
		return "", nil
	case verb == VerbDelete && t.Owner == "":
		evs, err := tx.ListEvents(ctx, EventFilter{Types: []string{KindTaskCreated}, TaskID: t.ID, Limit: 1})
		if err != nil || len(evs) == 0 {
			return "", err
		}
		return evs[0].Agent, nil
	}
	return t.Owner, nil
}

// AuthorizeTaskTx applies the authority table to a (the acting agent)
// doing verb to t, recording a person's override of another agent's task.
func (s *Service) AuthorizeTaskTx(ctx context.Context, tx Tx, a *Agent, t *Task, verb Verb) error {
	if _, ok := PrincipalFrom(ctx); !ok {
		return nil // the local board: no lookup for a rule that allows all
	}
	owner, err := TaskOwnerTx(ctx, tx, t, verb)
	if err != nil {
		return err
	}
	return s.AuthorizeTx(ctx, tx, Target{Thing: ThingTask, Verb: verb, Owner: owner, Name: "task " + t.ID}, a.ID)
}

// DeleteResult is the reply of DeleteTask.
type DeleteResult struct {
	TaskID  string `json:"task_id"`
	EventID int64  `json:"event_id"`
}

// DeleteTask removes a task and its dependency edges; tasks that waited only
// on it are unblocked.
func (s *Service) DeleteTask(ctx context.Context, agent, id string) (DeleteResult, error) {
	if err := checkAgent(agent); err != nil {
		return DeleteResult{}, err
	}
	if id == "" {
		return DeleteResult{}, FieldErr(CodeInvalidInput, "id", "{field} is required")
	}
	return Write(ctx, s, []string{agent, id}, func(tx Tx) (DeleteResult, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return DeleteResult{}, err
		}
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return DeleteResult{}, err
		}
		id := t.ID
		if err := s.AuthorizeTaskTx(ctx, tx, a, t, VerbDelete); err != nil {
			return DeleteResult{}, err
		}
		dependents, err := tx.TaskDependents(ctx, id)
		if err != nil {
			return DeleteResult{}, err
		}
		if err := tx.DeleteTask(ctx, id); err != nil {
			return DeleteResult{}, err
		}
		ev, err := s.TaskEventTx(ctx, tx, a, KindTaskDeleted, id, t.ProjectID, "Task deleted: "+id, nil)
		if err != nil {
			return DeleteResult{}, err
		}
		for _, d := range dependents {
			if err := s.maybeUnblock(ctx, tx, a, d, now); err != nil {
				return DeleteResult{}, err
			}
		}
		return DeleteResult{TaskID: id, EventID: ev}, nil
	})
}

// KindLoopRun is the event kind a work loop records after each run; its
// metadata holds completed, failed, blocked and duration_sec.
const KindLoopRun = "loop_run"

// TaskDetailLimit bounds each list of a task's detail.
const TaskDetailLimit = 50

// TaskDetail is a task with everything that names it: messages and
// reservations (by bead id) and timeline events (by task or bead id).
type TaskDetail struct {
	Task         Task
	Messages     []TaskMention
	Reservations []TaskReservation
	Events       []Event
}

// GetTaskDetail returns a task and what refers to it, newest first.
func (s *Service) GetTaskDetail(ctx context.Context, id string) (TaskDetail, error) {
	if id == "" {
		return TaskDetail{}, FieldErr(CodeInvalidInput, "id", "task id is required")
	}
	return Read(ctx, s, func(tx Tx) (TaskDetail, error) {
		t, err := MustTask(ctx, tx, id)
		if err != nil {
			return TaskDetail{}, err
		}
		d := TaskDetail{Task: *t}
		id := t.ID
		if d.Messages, err = tx.MessagesForBead(ctx, id, TaskDetailLimit); err != nil {
			return d, err
		}
		if d.Reservations, err = tx.ReservationsForBead(ctx, id, TaskDetailLimit); err != nil {
			return d, err
		}
		d.Events, err = tx.EventsMentioning(ctx, id, TaskDetailLimit)
		return d, err
	})
}
