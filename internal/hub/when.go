package hub

import (
	"fmt"
	"time"
)

// Human views write a moment one way (README "Output"): relative while it
// is near — "just now", "5m ago", "2h ago", "4d ago" behind now, "in 12m",
// "in 1h58m", "in 3d4h" ahead of it — and the local date and minute beyond
// a week ("2026-11-23 09:41"). JSON keeps exact RFC 3339 UTC timestamps.
// "Now" is the board's clock (BB_NOW moves it).

// NearSpan is how far from now a moment is still written relative.
const NearSpan = 7 * 24 * time.Hour

// AbsoluteLayout is the one absolute layout of human views (local time).
const AbsoluteLayout = "2006-01-02 15:04"

// WhenText writes t, seen at now, for a human view ("-" for no time). A
// moment ahead is rounded up to the minute ("in 2h" means at most 2h), so
// a reservation never reads as lasting longer than it does.
func WhenText(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < -NearSpan || d > NearSpan {
		return t.Local().Format(AbsoluteLayout)
	}
	if d < 0 {
		return "in " + DurationText((-d + time.Minute - time.Nanosecond).Truncate(time.Minute))
	}
	if d < time.Minute {
		return "just now"
	}
	return AgoText(d)
}

// AgoText writes a span already past in its largest whole unit, floored:
// "5m ago", "2h ago", "4d ago" ("just now" under a minute).
func AgoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}
