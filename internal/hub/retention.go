package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Retention settings: how long the board keeps its timeline, its delivery
// records and its notifiers' records. Messages, tasks and memory are never
// dropped by retention (bb clear --messages-before removes messages, by
// hand).
const (
	ConfigRetentionEvents        = "retention.events"
	ConfigRetentionReceipts      = "retention.receipts"
	ConfigRetentionNotifications = "retention.notifications"
	// RetainForever keeps everything.
	RetainForever = "forever"
	// configEventsRemovedThrough is the board's record (not a setting) of
	// the highest event seq retention removed: a follower whose cursor is
	// older is told (EventCursorExpired).
	configEventsRemovedThrough = "retention.events_removed_through"
)

// EventCursorExpired is what a reader of the timeline gets, before
// anything else, when the events after its cursor were partly removed by
// retention: a follower (Follow) and a polling read (Events with a cursor)
// alike. Its Seq is the last one removed, so the reader resumes at the
// oldest one kept. It is never stored.
const EventCursorExpired = "timeline.cursor_expired"

// ParseRetention reads a retention setting: "forever" (0), or a duration
// such as 90d, 12h, 2w that is more than zero.
func ParseRetention(v string) (keep time.Duration, err error) {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == RetainForever {
		return 0, nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, FieldErr(CodeInvalidInput, "value", "a retention must be more than zero (or %q)", RetainForever)
	}
	return d, nil
}

func validRetention(v string) bool { _, err := ParseRetention(v); return err == nil }

// Retention is the board's effective retention: 0 keeps forever.
type Retention struct {
	Events        time.Duration
	Receipts      time.Duration
	Notifications time.Duration
}

// RetentionOf reads the retention settings of the effective entries.
func RetentionOf(entries []ConfigEntry) Retention {
	var r Retention
	for _, e := range entries {
		d, _ := ParseRetention(e.Value)
		switch e.Key {
		case ConfigRetentionEvents:
			r.Events = d
		case ConfigRetentionReceipts:
			r.Receipts = d
		case ConfigRetentionNotifications:
			r.Notifications = d
		}
	}
	return r
}

// EventsRemovedThrough reads the highest event seq retention removed (0:
// none) from the stored settings.
func EventsRemovedThrough(stored map[string]string) int64 {
	n, _ := strconv.ParseInt(stored[configEventsRemovedThrough], 10, 64)
	return n
}

// RecordEventsRemoved raises the board's record of the highest event seq
// retention removed to through (never lowers it), in tx.
func RecordEventsRemoved(ctx context.Context, tx Tx, through int64, now time.Time) error {
	if was, err := expiredIn(ctx, tx, through); err != nil || was > 0 {
		return err // already recorded as far (a record is never lowered)
	}
	return tx.SetConfig(ctx, configEventsRemovedThrough, strconv.FormatInt(through, 10), now)
}

// cursorExpired is the event a follower at cursor after gets when events
// up to through were removed (after < through).
func (s *Service) cursorExpired(after, through int64) Event {
	p, _ := json.Marshal(map[string]int64{"after": after, "removed_through": through, "oldest_kept": through + 1})
	return Event{Seq: through, ID: fmt.Sprintf("cursor-expired-%d", through), Type: EventCursorExpired, CreatedAt: s.Now(),
		Message: fmt.Sprintf("the events after #%d up to #%d were removed by the board's retention (retention.events); resuming at #%d", after, through, through+1),
		Payload: p}
}

// expiredFrom returns through when the events after cursor up to through
// are gone (cursor < through), else 0.
func (s *Service) expiredFrom(ctx context.Context, cursor int64) (int64, error) {
	return Read(ctx, s, func(tx Tx) (int64, error) { return expiredIn(ctx, tx, cursor) })
}

// expiredIn is expiredFrom in tx.
func expiredIn(ctx context.Context, tx Tx, cursor int64) (int64, error) {
	v, ok, err := tx.GetConfig(ctx, configEventsRemovedThrough)
	if err != nil || !ok {
		return 0, err
	}
	if through := EventsRemovedThrough(map[string]string{configEventsRemovedThrough: v}); cursor < through {
		return through, nil
	}
	return 0, nil
}
