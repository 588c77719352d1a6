package hub

import (
	"context"
	"sort"
	"time"
)

// Who is doing what, derived from the board: each agent's task in
// progress, its reservations and its open handoffs and blockers, shown
// beside the status it reports itself (bb status set). Every view of agents
// (bb status, bb summary, bb agent list, MCP, the dashboard, the session
// brief) reads it from here.

// TaskRef names a task for people: its id, handle and title.
type TaskRef struct {
	ID     string `json:"id"`
	Handle string `json:"handle"`
	Title  string `json:"title"`
	Status string `json:"status,omitempty"`
}

// RefOf names t.
func RefOf(t Task) TaskRef {
	return TaskRef{ID: t.ID, Handle: TaskHandle(t.ID), Title: t.Title, Status: t.Status}
}

// Work is what an agent is doing according to the board.
type Work struct {
	// Task is its task in progress (its focus when it owns several), nil
	// when it owns none.
	Task *TaskRef `json:"task"`
	// Tasks counts the tasks in progress it owns.
	Tasks int `json:"tasks_in_progress"`
	// Reservations are the scopes it holds (unexpired), as shown to people.
	Reservations []string `json:"reservations"`
	// HandoffsOpen counts the HANDOFFs passed to it that it has not
	// acknowledged; BlockersOpen the BLOCKED messages it sent that nobody
	// has acknowledged yet.
	HandoffsOpen int `json:"handoffs_open"`
	BlockersOpen int `json:"blockers_open"`
}

// Busy reports whether the board shows the agent doing anything.
func (w *Work) Busy() bool {
	return w != nil && (w.Task != nil || len(w.Reservations) > 0 || w.HandoffsOpen > 0 || w.BlockersOpen > 0)
}

// Bounds of the work read (one query each).
const (
	workTasks        = 1000
	workReservations = 2000
	workMail         = 1000
	// MaxWorkScopes bounds the scopes listed per agent.
	MaxWorkScopes = 20
)

// WorkOf derives every agent's work in one consistent read; agents doing
// nothing have no entry.
func (s *Service) WorkOf(ctx context.Context, tx Tx, agents []Agent, now time.Time) (map[string]*Work, error) {
	out := map[string]*Work{}
	get := func(id string) *Work {
		w := out[id]
		if w == nil {
			w = &Work{Reservations: []string{}}
			out[id] = w
		}
		return w
	}
	focus := map[string]string{}
	for _, a := range agents {
		focus[a.ID] = a.FocusTaskID
	}
	tasks, err := tx.ListTasks(ctx, TaskFilter{Status: TaskInProgress, Priority: -1, Limit: workTasks})
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		if t.Owner == "" {
			continue
		}
		w := get(t.Owner)
		w.Tasks++
		// Tasks come priority first, newest first: the first one wins
		// unless the agent's focus names another.
		if w.Task == nil || t.ID == focus[t.Owner] {
			r := RefOf(t)
			w.Task = &r
		}
	}
	res, err := tx.ListReservations(ctx, ReservationFilter{States: []string{ResActive}, Limit: workReservations})
	if err != nil {
		return nil, err
	}
	sort.Slice(res, func(i, j int) bool { return res[i].Scope < res[j].Scope })
	for _, r := range res {
		if r.Expired(now) {
			continue
		}
		w := get(r.AgentID)
		if len(w.Reservations) < MaxWorkScopes {
			w.Reservations = append(w.Reservations, s.DisplayScope(r))
		}
	}
	open, err := tx.UnackedRequired(ctx, MailFilter{Limit: workMail})
	if err != nil {
		return nil, err
	}
	for _, m := range open {
		switch m.Category {
		case CategoryHandoff:
			if !m.IsBroadcast() {
				get(m.To).HandoffsOpen++
			}
		case CategoryBlocked:
			get(m.From).BlockersOpen++
		}
	}
	return out, nil
}

// workRead reads the work of agents by agent id.
func (s *Service) workRead(ctx context.Context, agents []Agent) (map[string]*Work, error) {
	now := s.Now()
	return Read(ctx, s, func(tx Tx) (map[string]*Work, error) { return s.WorkOf(ctx, tx, agents, now) })
}
