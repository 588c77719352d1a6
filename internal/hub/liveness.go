package hub

import "time"

// Liveness is derived from an agent's last_seen; it is never stored.
type Liveness string

// Liveness states. Seed 003 calls the last state "offline", seed 001
// "evicted"; each surface passes its own names through Thresholds.
const (
	LiveActive  Liveness = "active"
	LiveStale   Liveness = "stale"
	LiveOffline Liveness = "offline"
	LiveEvicted Liveness = "evicted"
)

// Thresholds configure one surface's liveness rule: active while
// now-last_seen <= Active (or < with Strict), stale up to Stale, then Dead.
type Thresholds struct {
	Active time.Duration
	Stale  time.Duration
	// Strict makes the boundaries exclusive (seed 001: active while
	// now < last_seen+stale); seed 003 counts whole minutes inclusively.
	Strict bool
	Dead   Liveness
}

// BoardThresholds is seed 003 §5.1: active <= 5 min, stale <= 30 min, then offline.
var BoardThresholds = Thresholds{Active: 5 * time.Minute, Stale: 30 * time.Minute, Dead: LiveOffline}

// ProtocolThresholds is seed 001 §4: active before last_seen+stale, stale
// before last_seen+2*stale, evicted after.
func ProtocolThresholds(staleMinutes int) Thresholds {
	if staleMinutes <= 0 {
		staleMinutes = 15
	}
	d := time.Duration(staleMinutes) * time.Minute
	return Thresholds{Active: d, Stale: 2 * d, Strict: true, Dead: LiveEvicted}
}

// LivenessOf classifies lastSeen at now. The board rule floors the elapsed
// time to whole minutes before comparing (seed 003 §5.1).
func LivenessOf(lastSeen, now time.Time, t Thresholds) Liveness {
	elapsed := now.Sub(lastSeen)
	if t.Strict {
		switch {
		case elapsed < t.Active:
			return LiveActive
		case elapsed < t.Stale:
			return LiveStale
		default:
			return t.Dead
		}
	}
	mins := elapsed.Truncate(time.Minute)
	switch {
	case mins <= t.Active:
		return LiveActive
	case mins <= t.Stale:
		return LiveStale
	default:
		return t.Dead
	}
}

// MinutesSince returns whole minutes between lastSeen and now (never negative).
func MinutesSince(lastSeen, now time.Time) int {
	d := now.Sub(lastSeen)
	if d < 0 {
		return 0
	}
	return int(d / time.Minute)
}
