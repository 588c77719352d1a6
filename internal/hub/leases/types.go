package leases

import (
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Kind is what a lease hands out.
type Kind string

// The kinds of lease, told apart by the name's prefix.
const (
	// KindLock is an exclusive lock, or a slot of a capacity (any name
	// without one of the prefixes below).
	KindLock Kind = "lock"
	// KindPort ("port:<label>") hands each holder its own TCP port.
	KindPort Kind = "port"
	// KindName ("name:<label>") hands each holder its own name
	// ("<label>-<agent>": a database, a bucket, a queue).
	KindName Kind = "name"
)

// Grant states (history is the rows themselves).
const (
	StateActive    = "active"
	StateReleased  = "released"
	StateExpired   = "expired"
	StateTakenOver = "taken_over"
)

// Event types of the timeline (docs/events.md).
const (
	EventAcquired  = hub.EventLeaseAcquired
	EventReleased  = hub.EventLeaseReleased
	EventExpired   = hub.EventLeaseExpired
	EventTakenOver = hub.EventLeaseTakenOver
	EventQueued    = hub.EventLeaseQueued
	EventUnqueued  = hub.EventLeaseUnqueued
)

// Codes of the leases' refusals (HTTP: 409 and 404 by their names).
const (
	CodeLeaseConflict   hub.Code = "LEASE_CONFLICT"
	CodeLeaseStaleFound hub.Code = "LEASE_STALE_FOUND"
	CodeLeaseNotFound   hub.Code = "LEASE_NOT_FOUND"
	CodePortsExhausted  hub.Code = "LEASE_PORTS_EXHAUSTED"
)

// Limits.
const (
	MaxNameLen  = 64
	MaxCapacity = 64
	// MaxSessionLen bounds a client's name and its session id.
	MaxSessionLen = 256
	// TTLs in minutes: the default, its bounds, and what a session's
	// leases get (they end with the session or its agent's eviction).
	DefaultTTL = 120
	MinTTL     = 1
	MaxTTL     = 1440
	SessionTTL = MaxTTL
	// MaxWait bounds a wait.
	MaxWait = time.Hour
)

// Lease is one grant of a lease to a holder.
type Lease struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Kind  Kind   `json:"kind"`
	Agent string `json:"agent"`
	// Fence is the grant's fencing number: it only grows per name.
	Fence int64 `json:"fence"`
	// Value is the port or the name handed out ("" for a lock).
	Value string `json:"value,omitempty"`
	// Env is the environment variable a session's lease is handed in
	// (BB_PORT_WEB, BB_LEASE_DB; "" for a lock).
	Env        string     `json:"env,omitempty"`
	Worktree   string     `json:"worktree,omitempty"`
	Host       string     `json:"host,omitempty"`
	Session    string     `json:"session,omitempty"`
	State      string     `json:"state"`
	AcquiredAt time.Time  `json:"acquired_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	ReleasedAt *time.Time `json:"released_at,omitempty"`
	// EndedBy is who ended it when not its holder (a person, a taker).
	EndedBy string `json:"ended_by,omitempty"`
}

// Expired reports whether the grant's time ran out at now.
func (l Lease) Expired(now time.Time) bool { return !l.ExpiresAt.After(now) }

// AcquireInput is `bb lease acquire`.
type AcquireInput struct {
	Agent string `json:"agent"`
	// Name is the lease ("build", "deploy:staging", "port:web",
	// "name:db").
	Name string `json:"name"`
	// Capacity is how many may hold a lock at once (nil: the lease's
	// current capacity, 1 for a new one).
	Capacity *int `json:"capacity,omitempty"`
	// TTLMinutes is nil for DefaultTTL.
	TTLMinutes *int `json:"ttl_minutes,omitempty"`
	// Wait queues the caller for at most this long (0: no wait).
	Wait time.Duration `json:"wait,omitempty"`
	// TakeoverStale takes a slot over from a holder that is stale or
	// offline (as reserve --takeover-stale).
	TakeoverStale bool `json:"takeover_stale,omitempty"`
	// Where the holder works: its work tree and host (ports are per
	// host; "" is this process's host).
	Worktree string `json:"worktree,omitempty"`
	Host     string `json:"host,omitempty"`
	// Session is the client session a session lease belongs to.
	Session string `json:"session,omitempty"`
	// Avoid lists ports the caller found in use on its host (a caller on
	// another host than the board's probes its grant itself).
	Avoid []int `json:"avoid,omitempty"`
}

// CallWait is how long the call may block on a server (its Wait): bb serve
// and the remote client keep the request open that long (wire.Waiter), so
// the waiter keeps its place in the queue for the whole wait.
func (in AcquireInput) CallWait() time.Duration { return in.Wait }

// Grant is a successful acquire.
type Grant struct {
	Lease Lease `json:"lease"`
	// Renewed is true when the caller already held it (same fence).
	Renewed bool `json:"renewed"`
	// TakenOver lists the grants of stale holders it replaced.
	TakenOver []Lease `json:"taken_over"`
	// Waited is how long the caller queued.
	Waited time.Duration `json:"waited"`
	// Probed is true when the port was bound and released on its host
	// when granted.
	Probed bool `json:"probed,omitempty"`
}

// ReleaseInput is `bb lease release`.
type ReleaseInput struct {
	// Agent acts: the holder, or a person stepping in.
	Agent string `json:"agent"`
	Name  string `json:"name"`
	// Holder is whose grant a person releases ("" or Agent: its own).
	Holder string `json:"holder,omitempty"`
	// To hands the grant over to another agent (a person only).
	To string `json:"to,omitempty"`
}

// ReleaseResult is what a release did.
type ReleaseResult struct {
	Released Lease `json:"released"`
	// HandedOver is the new holder's grant (nil on a release).
	HandedOver *Lease `json:"handed_over,omitempty"`
	// ByPerson is true when a person stepped in.
	ByPerson bool `json:"by_person"`
	// HolderPresence is the holder's presence when a person stepped in.
	HolderPresence hub.Presence `json:"holder_presence,omitempty"`
}

// RenewInput is `bb lease renew`.
type RenewInput struct {
	Agent      string `json:"agent"`
	Name       string `json:"name"`
	TTLMinutes *int   `json:"ttl_minutes,omitempty"`
}

// CheckResult is `bb lease check`: whether the caller still holds the
// lease with the fencing number it was given.
type CheckResult struct {
	Name  string `json:"name"`
	Agent string `json:"agent"`
	// Fence is the fencing number asked about.
	Fence int64 `json:"fence"`
	Held  bool  `json:"held"`
	// Current is the caller's current grant's fence (0: none); Latest the
	// lease's newest fence.
	Current int64 `json:"current"`
	Latest  int64 `json:"latest"`
	// Reason says why not, in domain words ("released", "expired",
	// "taken_over", "newer_fence", "not_held").
	Reason string `json:"reason,omitempty"`
}

// Holder is a grant with its holder's liveness now.
type Holder struct {
	Lease
	Presence hub.Presence `json:"presence"`
	Expired  bool         `json:"expired"`
	// Takeover is true when another agent may take it over (the holder
	// is stale or offline, or it expired).
	Takeover bool `json:"takeover"`
	// evicted: the holder is past eviction, its grant ends; staleAt is
	// when the holder turns stale if it shows no sign of life.
	evicted bool
	staleAt time.Time
}

// Status is one lease as `bb lease show` shows it.
type Status struct {
	Record
	Holders []Holder `json:"holders"`
	// Waiters are the live waiters in order of arrival.
	Waiters []Waiter `json:"waiters"`
	// Free is how many more may hold a lock now (ports and names: -1,
	// each holder gets its own).
	Free int `json:"free"`
}

// ListFilter selects the leases `bb lease list` shows.
type ListFilter struct {
	// Agent keeps the leases agent holds or waits for.
	Agent string `json:"agent,omitempty"`
	// All includes leases nobody holds or waits for.
	All bool `json:"all,omitempty"`
}

// SessionInput is a session's start: its agent and where it works.
type SessionInput struct {
	Agent    string `json:"agent"`
	Session  string `json:"session,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	Host     string `json:"host,omitempty"`
}

// SessionEndInput is a client session's end: the session and its agent
// ("": the agent the client's hook mapped the session to).
type SessionEndInput struct {
	Agent   string `json:"agent,omitempty"`
	Client  string `json:"client,omitempty"`
	Session string `json:"session"`
}
