package resume

import (
	"github.com/blackboard-hub/bb/internal/hub"

	"context"
	"sort"
	"strings"
	"time"
)

// Resume limits.
const (
	DefaultResumeLimit = 1000
	MaxResumeLimit     = 1000
	briefEventsLimit   = 20
	briefReasonLimit   = 10
	briefArtifactLimit = 20
	briefPipelineLimit = 5
	briefUnlocksLimit  = 10
)

// ResumeInput is the input of Resume.
type ResumeInput struct {
	Agent string
	// ProjectDir scopes the resume to a project (and is remembered as the
	// agent's focus project); "" uses the remembered one.
	ProjectDir string
	Limit      int
	// Focus, when set, points the agent's focus at this task first.
	Focus string
	// StrictFocus refuses a Focus that names no task (NOT_FOUND, as
	// BeginTask does); without it any id is accepted (vybe's contract).
	StrictFocus bool
	// OwnInProgress makes focus selection fall back to a task in progress
	// the agent owns before any other choice (bb resume; vybe keeps its
	// contract's order without it).
	OwnInProgress bool
}

// ResumeResult is what a session start receives.
type ResumeResult struct {
	AgentName      string      `json:"agent_name"`
	OldCursor      int64       `json:"old_cursor"`
	NewCursor      int64       `json:"new_cursor"`
	Deltas         []EventView `json:"deltas"`
	FocusTaskID    string      `json:"focus_task_id"`
	FocusProjectID string      `json:"focus_project_id,omitempty"`
	Brief          Brief       `json:"brief"`
	Prompt         string      `json:"prompt"`
}

// PeekResult is the reply of a read-only resume.
type PeekResult struct {
	AgentName string `json:"agent_name"`
	Brief     Brief  `json:"brief"`
}

// Brief is the context a session needs to answer "what were we working on?".
type Brief struct {
	Task           *TaskView      `json:"task"`
	Project        *ProjectView   `json:"project,omitempty"`
	RelevantMemory []MemoryView   `json:"relevant_memory"`
	RecentEvents   []EventView    `json:"recent_events"`
	Artifacts      []ArtifactView `json:"artifacts"`
	PriorReasoning []EventView    `json:"prior_reasoning"`
	ApproxTokens   int            `json:"approx_tokens"`
	Counts         *BriefCounts   `json:"counts,omitempty"`
	Pipeline       []PipelineTask `json:"pipeline,omitempty"`
	Unlocks        []PipelineTask `json:"unlocks,omitempty"`
}

// ProjectView names the project a resume is scoped to.
type ProjectView struct {
	ID string `json:"id"`
}

// BriefCounts counts the tasks of the project (or of every project).
type BriefCounts struct {
	Pending    int64 `json:"pending"`
	InProgress int64 `json:"in_progress"`
	Blocked    int64 `json:"blocked"`
	Completed  int64 `json:"completed"`
}

// PipelineTask is a task shown as "up next" or "unlocks".
type PipelineTask struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Priority int    `json:"priority"`
}

// FocusState is what focus selection looks at.
type FocusState struct {
	// Current is the agent's focus task (nil when none or deleted).
	Current *hub.Task
	// CurrentUnresolved is the number of unresolved dependencies of Current.
	CurrentUnresolved int
	// Assigned are tasks named by task_assigned deltas, in delta order,
	// each with its unresolved dependency count.
	Assigned []AssignedTask
	// Next is the best pending task without unresolved dependencies
	// (priority DESC, created_at ASC) in the project, or nil.
	Next *hub.Task
	// ProjectID and Scoped restrict step 2 to one project.
	ProjectID string
	Scoped    bool
	// Own is a task in progress owned by the agent (only looked up when
	// asked for: bb resume's fallback).
	Own *hub.Task
}

// AssignedTask is a task named by a task_assigned event.
type AssignedTask struct {
	Task       *hub.Task
	Unresolved int
}

// SelectFocus chooses the focus task deterministically:
//  1. keep the current focus if it is in progress;
//     1.5. keep it if it is blocked on dependencies (not a failure) that
//     are still unresolved;
//     1.7. when asked for, a task in progress the agent owns;
//  2. the first task_assigned delta whose task is pending, has no
//     unresolved dependencies and is in the project (when scoped);
//  3. keep the current focus if it is pending;
//  4. the best pending task without unresolved dependencies;
//  5. none ("").
//
// It never changes any task's status.
func SelectFocus(st FocusState) string {
	if c := st.Current; c != nil {
		if c.Status == hub.TaskInProgress {
			return c.ID
		}
		if c.Status == hub.TaskBlocked && !strings.HasPrefix(c.BlockedReason, "failure:") && st.CurrentUnresolved > 0 {
			return c.ID
		}
	}
	if st.Own != nil {
		return st.Own.ID
	}
	for _, a := range st.Assigned {
		if a.Task != nil && a.Task.Status == hub.TaskPending && a.Unresolved == 0 && (!st.Scoped || a.Task.ProjectID == st.ProjectID) {
			return a.Task.ID
		}
	}
	if c := st.Current; c != nil && c.Status == hub.TaskPending {
		return c.ID
	}
	if st.Next != nil {
		return st.Next.ID
	}
	return ""
}

// focusState gathers what SelectFocus needs with bounded, indexed reads.
// own names the agent whose own in-progress task is a fallback ("" for none).
func focusState(ctx context.Context, tx Tx, focusID, projectID string, scoped bool, deltas []hub.Event, own string) (FocusState, error) {
	st := FocusState{ProjectID: projectID, Scoped: scoped}
	var err error
	if focusID != "" {
		if st.Current, err = tx.GetTask(ctx, focusID); err != nil {
			return st, err
		}
		if st.Current != nil && st.Current.Status == hub.TaskBlocked {
			if st.CurrentUnresolved, err = tx.UnresolvedDeps(ctx, focusID); err != nil {
				return st, err
			}
		}
	}
	if st.Current != nil && st.Current.Status == hub.TaskInProgress {
		return st, nil // step 1 decides; skip the other reads
	}
	if own != "" {
		mine, err := tx.ListTasks(ctx, hub.TaskFilter{Status: hub.TaskInProgress, Owner: own, Priority: -1, Limit: 1})
		if err != nil {
			return st, err
		}
		if len(mine) > 0 {
			st.Own = &mine[0]
			return st, nil
		}
	}
	for _, e := range deltas {
		if e.Type != hub.KindTaskAssigned || e.TaskID == "" {
			continue
		}
		t, err := tx.GetTask(ctx, e.TaskID)
		if err != nil {
			return st, err
		}
		if t == nil || t.Status != hub.TaskPending {
			continue
		}
		n, err := tx.UnresolvedDeps(ctx, t.ID)
		if err != nil {
			return st, err
		}
		st.Assigned = append(st.Assigned, AssignedTask{Task: t, Unresolved: n})
		if n == 0 && (!scoped || t.ProjectID == projectID) {
			break // the first match decides step 2
		}
	}
	next, err := tx.NextPendingTasks(ctx, projectID, scoped, "", 1)
	if err != nil {
		return st, err
	}
	if len(next) > 0 {
		st.Next = &next[0]
	}
	return st, nil
}

// Resume starts (or resumes) a session: it reads the events since the
// agent's cursor, chooses the focus task, advances the cursor and returns the
// brief and the prompt. All in one transaction; a replay returns the stored
// reply verbatim.
func (s *Service) Resume(ctx context.Context, in ResumeInput) (ResumeResult, error) {
	if err := hub.ValidateStoredAgentID(in.Agent); err != nil {
		return ResumeResult{}, err
	}
	if in.Limit < 0 {
		return ResumeResult{}, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be between 1 and %d (0 for the default), got %d", MaxResumeLimit, in.Limit)
	}
	limit := in.Limit
	if limit == 0 {
		limit = DefaultResumeLimit
	}
	if limit > MaxResumeLimit {
		limit = MaxResumeLimit
	}
	if err := hub.CheckLen("project_dir", in.ProjectDir, hub.MaxProjectIDLen); err != nil {
		return ResumeResult{}, err
	}
	return hub.WriteAs(ctx, s.kernel, in, func(tx Tx) (ResumeResult, error) {
		now := s.kernel.Now()
		a, err := s.kernel.ActingAgentTx(ctx, tx, in.Agent, now)
		if err != nil {
			return ResumeResult{}, err
		}
		if err := s.kernel.AuthorizeTx(ctx, tx, hub.Target{Thing: hub.ThingBrief, Verb: hub.VerbWrite, Owner: in.Agent, Name: "the resume cursor"}, in.Agent); err != nil {
			return ResumeResult{}, err
		}
		if in.Focus != "" {
			focus, err := hub.ResolveID(ctx, tx, "tasks", "focus", in.Focus)
			if err != nil {
				return ResumeResult{}, err
			}
			if in.StrictFocus {
				if _, err := hub.MustTask(ctx, tx, focus); err != nil {
					return ResumeResult{}, err
				}
			}
			if _, err := s.kernel.SetFocusTx(ctx, tx, a, focus, now); err != nil {
				return ResumeResult{}, err
			}
		}
		if in.ProjectDir != "" {
			a.FocusProjectID = in.ProjectDir
		}
		p := a.FocusProjectID
		scoped := p != ""
		deltas, err := tx.EventsAfter(ctx, a.EventCursor, p, scoped, limit)
		if err != nil {
			return ResumeResult{}, err
		}
		res := ResumeResult{AgentName: a.ID, OldCursor: a.EventCursor, NewCursor: a.EventCursor}
		if len(deltas) > 0 {
			if last := deltas[len(deltas)-1].Seq; last > res.NewCursor {
				res.NewCursor = last
			}
			res.Deltas = ViewEvents(deltas)
		}
		own := ""
		if in.OwnInProgress {
			own = a.ID
		}
		st, err := focusState(ctx, tx, a.FocusTaskID, p, scoped, deltas, own)
		if err != nil {
			return ResumeResult{}, err
		}
		focus := SelectFocus(st)
		a.EventCursor = res.NewCursor
		a.FocusTaskID = focus
		a.Version++
		a.LastSeen, a.UpdatedAt = now, now
		if err := tx.PutAgent(ctx, a); err != nil {
			return ResumeResult{}, err
		}
		res.FocusTaskID = focus
		res.FocusProjectID = p
		if res.Brief, err = s.brief(ctx, tx, focus, p, scoped, now); err != nil {
			return ResumeResult{}, err
		}
		// The prompt is the surface's: each words its own commands
		// (WithPrompt).
		return res, nil
	})
}

// PeekResume computes the brief a resume would give, changing nothing.
func (s *Service) PeekResume(ctx context.Context, agent, projectDir string) (PeekResult, error) {
	return s.peekResume(ctx, agent, projectDir, false)
}

// PeekOwnResume is PeekResume for a resume made with OwnInProgress: the
// focus falls back to a task in progress the agent owns.
func (s *Service) PeekOwnResume(ctx context.Context, agent, projectDir string) (PeekResult, error) {
	return s.peekResume(ctx, agent, projectDir, true)
}

func (s *Service) peekResume(ctx context.Context, agent, projectDir string, ownInProgress bool) (PeekResult, error) {
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return PeekResult{}, err
	}
	if _, err := hub.Authorize(ctx, hub.Target{Thing: hub.ThingBrief, Verb: hub.VerbRead, Owner: agent, Name: "the resume brief"}); err != nil {
		return PeekResult{}, err
	}
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) (PeekResult, error) {
		now := s.kernel.Now()
		a, err := tx.GetAgent(ctx, agent)
		if err != nil {
			return PeekResult{}, err
		}
		if a == nil {
			a = &hub.Agent{ID: agent}
		}
		p := a.FocusProjectID
		if projectDir != "" {
			p = projectDir
		}
		scoped := p != ""
		deltas, err := tx.EventsAfter(ctx, a.EventCursor, p, scoped, MaxResumeLimit)
		if err != nil {
			return PeekResult{}, err
		}
		own := ""
		if ownInProgress {
			own = agent
		}
		st, err := focusState(ctx, tx, a.FocusTaskID, p, scoped, deltas, own)
		if err != nil {
			return PeekResult{}, err
		}
		b, err := s.brief(ctx, tx, SelectFocus(st), p, scoped, now)
		if err != nil {
			return PeekResult{}, err
		}
		return PeekResult{AgentName: agent, Brief: b}, nil
	})
}

// ApproxTokens estimates the tokens of a prompt (ceil(chars/4), vybe's rule).
func ApproxTokens(s string) int { return (len(s) + 3) / 4 }

// WithPrompt fills a resume result's prompt, rendered by the surface that
// shows it (render names that surface's commands), and the brief's token
// estimate.
func WithPrompt(r ResumeResult, render func(Brief) string) ResumeResult {
	r.Prompt = render(r.Brief)
	r.Brief.ApproxTokens = ApproxTokens(r.Prompt)
	return r
}

// brief assembles the resume context of a focus task with bounded reads.
func (s *Service) brief(ctx context.Context, tx Tx, focus, p string, scoped bool, now time.Time) (Brief, error) {
	b := Brief{RelevantMemory: []MemoryView{}, RecentEvents: []EventView{}, Artifacts: []ArtifactView{}, PriorReasoning: []EventView{}}
	if scoped {
		b.Project = &ProjectView{ID: p}
	}
	var task *hub.Task
	var err error
	if focus != "" {
		if task, err = tx.GetTask(ctx, focus); err != nil {
			return b, err
		}
	}
	if b.RelevantMemory, err = relevantMemory(ctx, tx, task, p, scoped, now); err != nil {
		return b, err
	}
	if b.Counts, err = briefCounts(ctx, tx, p, scoped); err != nil {
		return b, err
	}
	if b.Pipeline, err = briefPipeline(ctx, tx, p, scoped, focus); err != nil {
		return b, err
	}
	if task == nil {
		return b, nil
	}
	err = taskBrief(ctx, tx, task, &b)
	return b, err
}

// relevantMemory is the newest memory (at most RelevantMemoryLimit) of
// the global scope, the focus task's and the project's (or every
// project's when the brief is not scoped to one).
func relevantMemory(ctx context.Context, tx Tx, task *hub.Task, p string, scoped bool, now time.Time) ([]MemoryView, error) {
	type scope struct {
		name, id string
		anyID    bool
	}
	scopes := []scope{{hub.ScopeGlobal, "", false}}
	if task != nil {
		scopes = append(scopes, scope{hub.ScopeTask, task.ID, false})
	}
	scopes = append(scopes, scope{hub.ScopeProject, p, !scoped})
	var mems []hub.Memory
	for _, sc := range scopes {
		ms, err := tx.ListMemory(ctx, sc.name, sc.id, sc.anyID, now, hub.RelevantMemoryLimit)
		if err != nil {
			return nil, err
		}
		mems = append(mems, ms...)
	}
	sort.SliceStable(mems, func(i, j int) bool { return mems[i].UpdatedAt.After(mems[j].UpdatedAt) })
	if len(mems) > hub.RelevantMemoryLimit {
		mems = mems[:hub.RelevantMemoryLimit]
	}
	return ViewMemories(mems), nil
}

// briefCounts counts the tasks of the brief's project by status.
func briefCounts(ctx context.Context, tx Tx, p string, scoped bool) (*BriefCounts, error) {
	c := &BriefCounts{}
	for _, st := range []struct {
		status string
		n      *int64
	}{{hub.TaskPending, &c.Pending}, {hub.TaskInProgress, &c.InProgress}, {hub.TaskBlocked, &c.Blocked}, {hub.TaskCompleted, &c.Completed}} {
		n, err := tx.CountTasks(ctx, st.status, p, scoped)
		if err != nil {
			return nil, err
		}
		*st.n = n
	}
	return c, nil
}

// briefPipeline lists the next pending tasks besides the focus.
func briefPipeline(ctx context.Context, tx Tx, p string, scoped bool, focus string) ([]PipelineTask, error) {
	next, err := tx.NextPendingTasks(ctx, p, scoped, focus, briefPipelineLimit)
	if err != nil {
		return nil, err
	}
	var out []PipelineTask
	for _, t := range next {
		out = append(out, PipelineTask{ID: t.ID, Title: t.Title, Priority: t.Priority})
	}
	return out, nil
}

// taskBrief fills the focus task's part of b: the task, its recent events,
// its prior reasoning, its artifacts and the open tasks it unlocks.
func taskBrief(ctx context.Context, tx Tx, task *hub.Task, b *Brief) error {
	tv := ViewTask(*task)
	b.Task = &tv
	evs, err := tx.TaskEvents(ctx, hub.TaskEventFilter{TaskID: task.ID, Limit: briefEventsLimit})
	if err != nil {
		return err
	}
	// Newest first, as the original vybe's brief (ORDER BY id DESC).
	b.RecentEvents = ViewEvents(evs)
	reasons, err := tx.TaskEvents(ctx, hub.TaskEventFilter{TaskID: task.ID, Kind: hub.KindReasoning, Limit: briefReasonLimit})
	if err != nil {
		return err
	}
	b.PriorReasoning = ViewEvents(reasons)
	arts, err := tx.ListTaskArtifacts(ctx, task.ID, briefArtifactLimit)
	if err != nil {
		return err
	}
	b.Artifacts = ViewArtifacts(arts)
	b.Unlocks, err = unlocks(ctx, tx, task.ID)
	return err
}

// unlocks lists the tasks depending on a task that are not completed (at
// most briefUnlocksLimit).
func unlocks(ctx context.Context, tx Tx, id string) ([]PipelineTask, error) {
	dependents, err := tx.TaskDependents(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []PipelineTask
	for _, id := range dependents {
		if len(out) >= briefUnlocksLimit {
			break
		}
		d, err := tx.GetTask(ctx, id)
		if err != nil {
			return nil, err
		}
		if d != nil && d.Status != hub.TaskCompleted {
			out = append(out, PipelineTask{ID: d.ID, Title: d.Title, Priority: d.Priority})
		}
	}
	return out, nil
}

// EventsQuery is the input of ListTaskEvents.
type EventsQuery struct {
	Agent   string
	All     bool
	TaskID  string
	Kind    string
	SinceID int64
	// Limit is nil when not given (DefaultEventsLimit); see EventLimit.
	Limit           *int
	Asc             bool
	IncludeArchived bool
}

// ListTaskEvents reads the timeline: the agent's events unless All is set.
func (s *Service) ListTaskEvents(ctx context.Context, q EventsQuery) ([]EventView, error) {
	if !q.All && q.Agent == "" {
		return nil, hub.FieldErr(hub.CodeIdentityRequired, "agent", "{field} is required unless {all} is set")
	}
	limit, err := hub.EventLimit(q.Limit)
	if err != nil {
		return nil, err
	}
	f := hub.TaskEventFilter{TaskID: q.TaskID, Kind: q.Kind, SinceSeq: q.SinceID, Limit: limit, Asc: q.Asc, IncludeArchived: q.IncludeArchived}
	if !q.All {
		f.Agent = q.Agent
	}
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]EventView, error) {
		f := f
		var err error
		if f.TaskID, err = hub.ResolveID(ctx, tx, "tasks", "task_id", f.TaskID); err != nil {
			return nil, err
		}
		es, err := tx.TaskEvents(ctx, f)
		return ViewEvents(es), err
	})
}

// ListTaskArtifacts lists the files attached to a task, newest first.
func (s *Service) ListTaskArtifacts(ctx context.Context, taskID string, limit int) ([]ArtifactView, error) {
	if taskID == "" {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "task_id", "{field} is required")
	}
	if limit <= 0 {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be > 0")
	}
	limit = min(limit, hub.MaxEventsLimit)
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]ArtifactView, error) {
		taskID, err := hub.ResolveID(ctx, tx, "tasks", "task_id", taskID)
		if err != nil {
			return nil, err
		}
		as, err := tx.ListTaskArtifacts(ctx, taskID, limit)
		return ViewArtifacts(as), err
	})
}
