package hub

import "time"

// ViewTime renders a time in seconds precision, UTC ("…T10:00:00Z").
func ViewTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ViewTimeNano renders a time with its sub-second part, UTC.
func ViewTimeNano(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
