package hub

import (
	"context"
	"time"
)

// ReservationTx is the data access of file reservations (bb agent reserve).
// History is the rows themselves: state changes, rows are never deleted.
type ReservationTx interface {
	// OverlappingActive returns the reservations in state 'active' whose
	// scope equals p or one of ancestors (equality lookups on the partial
	// index idx_reservations_active_scope) or lies below p (one range scan
	// of that index), at most limit rows.
	OverlappingActive(ctx context.Context, p string, ancestors []string, limit int) ([]Reservation, error)
	InsertReservation(ctx context.Context, r *Reservation) error
	// UpdateReservation writes r's state, wildcard, bead, expiry and
	// release time (by id).
	UpdateReservation(ctx context.Context, r *Reservation) error
	// ListReservations returns reservations matching f, newest first.
	ListReservations(ctx context.Context, f ReservationFilter) ([]Reservation, error)
	// CountReservations counts reservations matching f (States ignored) by state.
	CountReservations(ctx context.Context, f ReservationFilter) (map[string]int64, error)
	// IncursionsOnActive counts INCURSION events aimed at agent since its
	// oldest active reservation was made, up to cap.
	IncursionsOnActive(ctx context.Context, agent string, cap int) (int64, error)
	// InProgressTasksOwnedBy returns ids of tasks with status 'in_progress'
	// owned by agent (adoption evidence, seed 001 §3.2), at most limit.
	InProgressTasksOwnedBy(ctx context.Context, agent string, limit int) ([]string, error)
	// InProgressTaskOwners returns owner → task ids of in-progress tasks
	// (at most limit tasks).
	InProgressTaskOwners(ctx context.Context, limit int) (map[string][]string, error)
}

// Reservation states.
const (
	ResActive   = "active"
	ResReleased = "released"
	ResExpired  = "expired"
)

// Reservation is one row of the reservations table.
type Reservation struct {
	ID         string
	Scope      string // canonical, relative to the work tree's top (scope.go)
	Wildcard   bool
	AgentID    string
	BeadID     string
	State      string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	ReleasedAt *time.Time
}

// ReservationFilter selects reservations. Zero values mean "no filter".
type ReservationFilter struct {
	AgentID string
	BeadID  string
	Scope   string
	States  []string
	Limit   int
}
