package bb

import (
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Human views show a moment in one style, hub.WhenText's: relative while
// it is near ("just now", "3m ago", "in 1h58m"), the local date and minute
// beyond a week. JSON keeps the exact RFC 3339 UTC timestamps. "Now" is
// the board's clock, so BB_NOW moves it too.

// when renders moments relative to one "now".
type when struct{ now time.Time }

// when returns the renderer for this invocation's clock.
func (a *app) when() when {
	if c, err := a.clock(); err == nil {
		return when{now: c.Now()}
	}
	return when{now: time.Now()}
}

// at renders t for a human view.
func (w when) at(t time.Time) string { return hub.WhenText(w.now, t) }

// ago renders whole minutes since a moment (as the board's liveness counts
// them) in the same relative style.
func ago(mins int) string { return hub.AgoText(time.Duration(max(mins, 0)) * time.Minute) }
