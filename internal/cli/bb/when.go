package bb

import (
	"fmt"
	"time"
)

// Human views show a moment in one style: relative while it is recent
// ("just now", "3m ago", "2h ago", "4d ago"; "in 20m" ahead of now), the
// local date and minute beyond a week ("2026-11-23 09:41"). JSON keeps the
// exact RFC 3339 UTC timestamps. "Now" is the board's clock, so BB_NOW
// moves it too.

// recentSpan is how far from now a moment is still shown relative.
const recentSpan = 7 * 24 * time.Hour

// absLayout is the one absolute layout of human views (local time).
const absLayout = "2006-01-02 15:04"

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
func (w when) at(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := w.now.Sub(t)
	if d < -recentSpan || d > recentSpan {
		return t.Local().Format(absLayout)
	}
	if d < 0 {
		return "in " + span(-d+time.Minute-time.Nanosecond)
	}
	if d < time.Minute {
		return "just now"
	}
	return span(d) + " ago"
}

// span is d in its largest whole unit (minutes, hours or days), floored.
func span(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%dm", max(1, int(d/time.Minute)))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}

// ago renders whole minutes since a moment (as the board's liveness counts
// them) in the same relative style.
func ago(mins int) string {
	if mins < 1 {
		return "just now"
	}
	return span(time.Duration(mins)*time.Minute) + " ago"
}
