package hub

import (
	"fmt"
	"time"
)

// Clock is the only source of "now" in the core. Surfaces build it from the
// environment (BB_NOW) so tests can drive every time rule without sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the wall clock.
type SystemClock struct{}

// Now returns the current UTC time.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// FixedClock always returns T.
type FixedClock struct{ T time.Time }

// Now returns the fixed time.
func (c FixedClock) Now() time.Time { return c.T.UTC() }

// ClockFromEnv returns a FixedClock when value (the content of BB_NOW) is
// set, and the system clock otherwise.
func ClockFromEnv(value string) (Clock, error) {
	if value == "" {
		return SystemClock{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		return nil, Errorf(CodeInvalidInput, "BB_NOW must be an RFC 3339 time (e.g. 2026-11-21T22:00:00Z), got %q", value)
	}
	return FixedClock{T: t}, nil
}

// TimeLayout is the storage format of every timestamp: UTC, microseconds,
// explicit offset, so that text order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000-07:00"

// FormatTime renders t in the storage format (always UTC, "+00:00").
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeLayout)
}

// ParseTime parses a stored timestamp. It accepts the storage format and any
// RFC 3339 variant (rows written by other tools, e.g. Agent Mail tests that
// back-date rows with a local offset).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// Python's isoformat() without fractional seconds or with a space.
		for _, layout := range []string{"2006-01-02 15:04:05.999999-07:00", "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05"} {
			if t2, err2 := time.Parse(layout, s); err2 == nil {
				return t2.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("parse time %q: %w", s, err)
	}
	return t.UTC(), nil
}
