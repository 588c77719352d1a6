package tui

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"

	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

const (
	// retryPause is the wait before following the timeline again after
	// Follow failed (a server that went away).
	retryPause = 2 * time.Second
	// clockTick redraws relative times and presence with nothing happening.
	clockTick = 15 * time.Second
	// How much of each list a snapshot reads.
	taskLimit     = 100
	timelineLimit = 50
)

// snapshot is what the view shows, read in one go.
type snapshot struct {
	now          time.Time
	root         string
	agents       []hub.AgentView
	attention    []overview.AttentionItem
	reservations []hub.Reservation
	leases       []leases.Status
	tasks        []hub.Task
	events       []hub.Event
}

// snapshotMsg carries a loaded snapshot (or why it could not be).
type snapshotMsg struct {
	snap snapshot
	err  error
}

// load reads a snapshot of the board through the roles.
func load(ctx context.Context, api API) snapshotMsg {
	s := snapshot{root: api.Root()}
	var err error
	if s.agents, err = api.Board(ctx); err != nil {
		return snapshotMsg{err: err}
	}
	att, err := api.Attention(ctx, overview.AttentionFilter{})
	if err != nil {
		return snapshotMsg{err: err}
	}
	s.now, s.attention = att.Now, att.Items
	st, err := api.CoordinationStatus(ctx, "", "")
	if err != nil {
		return snapshotMsg{err: err}
	}
	s.reservations = st.Reservations
	slices.SortStableFunc(s.reservations, func(a, b hub.Reservation) int {
		return cmp.Or(strings.Compare(a.Scope, b.Scope), strings.Compare(a.AgentID, b.AgentID))
	})
	if s.leases, err = api.ListLeases(ctx, leases.ListFilter{}); err != nil {
		return snapshotMsg{err: err}
	}
	if s.tasks, err = api.ListTasks(ctx, hub.TaskFilter{Limit: taskLimit, Priority: -1}); err != nil {
		return snapshotMsg{err: err}
	}
	limit := timelineLimit
	page, err := api.Events(ctx, hub.EventQuery{Limit: &limit, Newest: true})
	if err != nil {
		return snapshotMsg{err: err}
	}
	s.events = page.Events
	return snapshotMsg{snap: s}
}

// agentOf reports whether the filter (an agent id, "" for none) keeps an
// item involving who.
func keep(filter string, who ...string) bool {
	if filter == "" {
		return true
	}
	for _, w := range who {
		if w == filter {
			return true
		}
	}
	return false
}

// ago is a moment as every human view writes it (hub.WhenText).
func ago(now, t time.Time) string { return hub.WhenText(now, t) }

func itoa(n int) string { return strconv.Itoa(n) }
