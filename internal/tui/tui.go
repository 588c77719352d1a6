// Package tui is bb top: a full-screen live view of the board in the
// terminal for the person running a team of agents, built on the Charm
// libraries (bubbletea for the program, lipgloss for styles, bubbles for
// the key map, the help line and the text prompt).
//
// The screen is one page (board.go) made of sections (section.go): what
// needs attention, the agents with what each is doing, the reservations,
// the task board and the newest timeline entries. It reloads when the
// timeline moves — the core's Follow, woken by commits of this process and
// by a cheap check of the newest event number for other processes (over
// BB_SERVER, the remote client's Follow) — and otherwise only redraws the
// relative times every few seconds. Acting keys (keymap.go) call the
// core as the person: accept or answer a HANDOFF/BLOCKED, message an
// agent, release or reassign a reservation (StepIn), search.
package tui

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"

	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"
	"errors"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// API is the roles bb top uses.
type API interface {
	hub.Admin
	hub.Identity
	hub.Messages
	hub.Mail
	hub.Reservations
	hub.Tasks
	hub.Timeline
	overview.API
	search.API
	oversight.API
	leases.API
}

// Options configure one run of the view.
type Options struct {
	// Viewer is the person acting (their id on the board).
	Viewer string
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
	// Color is false with NO_COLOR, TERM=dumb or --color never: the view
	// then uses bold and reverse video only.
	Color bool
	// FPS bounds how often the screen is redrawn (default 10).
	FPS int
	// Wd is the directory the scopes of reservations resolve against when
	// the person steps in: the project root of a local board, "" for a
	// remote one (the server's root).
	Wd string
}

// Run shows the view until the person quits or ctx ends.
func Run(ctx context.Context, api API, o Options) error {
	if o.FPS == 0 {
		o.FPS = 10
	}
	// Without colour the styles set none (styles.go): the ANSI profile
	// then draws their bold, faint and reverse video only.
	r := lipgloss.NewRenderer(o.Out)
	if o.Color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.ANSI)
	}
	m := newBoard(ctx, api, o.Viewer, o.Wd, newStyles(r, o.Color), defaultKeyMap())
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out),
		tea.WithAltScreen(), tea.WithFPS(o.FPS))
	follow, stop := context.WithCancel(ctx)
	defer stop()
	go watch(follow, api, p)
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// changedMsg says the timeline moved.
type changedMsg struct{}

// watch tells p whenever the timeline moves, until ctx ends. A failing
// Follow (a lost server) is reported once and retried after a pause.
// Each follow, once in place, asks for one reload: what changed before
// it started (during the first load, or while the server was away) is
// not lost.
func watch(ctx context.Context, api API, p *tea.Program) {
	started := func(int64) error { p.Send(changedMsg{}); return nil }
	for ctx.Err() == nil {
		err := api.Follow(ctx, hub.FollowInput{Started: started}, func(hub.Event) error {
			p.Send(changedMsg{})
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.Send(errMsg{err})
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryPause):
		}
	}
}
