package hub

import "time"

// Presence is the one liveness vocabulary every view shows. It is derived
// from an agent's last_seen and never stored.
//
//	presence  seen (S = BB_AGENT_STALE_MINUTES, default 15)   board word  agent word  claims
//	active    within 5 whole minutes (and less than S)       active      active      held
//	quiet     after that, less than S                        stale       active      held
//	stale     S up to 2S (whole minutes)                     stale       stale       takeover with --takeover-stale
//	offline   beyond 2S whole minutes                        offline     evicted     takeover with --takeover-stale
//
// The board word (bb status, bb summary, MCP board tools) and the agent word
// (bb agent list/show, reservations, INCURSION events) are the older
// three-state names, kept in their `liveness` JSON fields; both are
// projections of Presence, so no two views disagree about the same agent at
// the same moment. The agent word counts seconds where the board counts
// whole minutes: in the one minute after 2S it already says evicted while
// presence still says stale.
type Presence string

// Presence states.
const (
	PresActive  Presence = "active"
	PresQuiet   Presence = "quiet"
	PresStale   Presence = "stale"
	PresOffline Presence = "offline"
)

// Presences lists the states in order of decreasing liveness.
var Presences = []Presence{PresActive, PresQuiet, PresStale, PresOffline}

// Liveness is one surface's three-state projection of Presence.
type Liveness string

// Liveness words. The board calls the last state "offline", the agent
// protocol "evicted".
const (
	LiveActive  Liveness = "active"
	LiveStale   Liveness = "stale"
	LiveOffline Liveness = "offline"
	LiveEvicted Liveness = "evicted"
)

// DefaultStaleMinutes is BB_AGENT_STALE_MINUTES when unset.
const DefaultStaleMinutes = 15

// BoardActiveMinutes is how many whole minutes an agent stays active.
const BoardActiveMinutes = 5

// Live is an agent's liveness at one moment, in every vocabulary.
type Live struct {
	Presence Presence
	// Board is the board's word: active, stale or offline.
	Board Liveness
	// Agent is the agent protocol's word: active, stale or evicted; it
	// decides whether a reservation may be taken over.
	Agent        Liveness
	MinutesSince int
}

// LiveOf is the one liveness function: it classifies lastSeen at now with
// the stale window of staleMinutes (<= 0 means the default).
func LiveOf(lastSeen, now time.Time, staleMinutes int) Live {
	if staleMinutes <= 0 {
		staleMinutes = DefaultStaleMinutes
	}
	s := time.Duration(staleMinutes) * time.Minute
	elapsed := now.Sub(lastSeen)
	mins := MinutesSince(lastSeen, now)
	var l Live
	l.MinutesSince = mins
	switch {
	case elapsed < s && mins <= BoardActiveMinutes:
		l.Presence, l.Board, l.Agent = PresActive, LiveActive, LiveActive
	case elapsed < s:
		l.Presence, l.Board, l.Agent = PresQuiet, LiveStale, LiveActive
	case mins <= 2*staleMinutes:
		l.Presence, l.Board, l.Agent = PresStale, LiveStale, LiveStale
		if elapsed >= 2*s {
			l.Agent = LiveEvicted
		}
	default:
		l.Presence, l.Board, l.Agent = PresOffline, LiveOffline, LiveEvicted
	}
	return l
}

// OfflineBefore is the last_seen before which the board stores an agent as
// offline (beyond 2S whole minutes).
func OfflineBefore(now time.Time, staleMinutes int) time.Time {
	if staleMinutes <= 0 {
		staleMinutes = DefaultStaleMinutes
	}
	return now.Add(-time.Duration(2*staleMinutes)*time.Minute - time.Minute + time.Microsecond)
}

// MinutesSince returns whole minutes between lastSeen and now (never negative).
func MinutesSince(lastSeen, now time.Time) int {
	d := now.Sub(lastSeen)
	if d < 0 {
		return 0
	}
	return int(d / time.Minute)
}
