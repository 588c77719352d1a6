package leases

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tx is the lease application's persistence port: the kernel's
// transaction (agents, events, idempotency), the lease tables and the one
// read of the hook sessions a session's end needs. The
// SQL store implements it (internal/store/sqlstore proves it at compile
// time); the kernel's hub.Tx does not name it.
type Tx interface {
	hub.Tx
	// LeaseRecord returns nil, nil when no lease of that name was ever
	// granted.
	LeaseRecord(ctx context.Context, name string) (*Record, error)
	// PutLeaseRecord inserts or overwrites the lease's row.
	PutLeaseRecord(ctx context.Context, r *Record) error
	// LeaseRecords returns the rows of the given names (all rows when
	// names is empty), in name order.
	LeaseRecords(ctx context.Context, names []string) ([]Record, error)
	// InsertHolder stores a new grant.
	InsertHolder(ctx context.Context, h *Lease) error
	// UpdateHolder writes a grant's state, expiry, release time, ended_by
	// and agent.
	UpdateHolder(ctx context.Context, h *Lease) error
	// ActiveHolders returns the active grants that match f, oldest first
	// (expired ones included: the rules decide what an expiry means).
	ActiveHolders(ctx context.Context, f HolderFilter) ([]Lease, error)
	// LeaseWaiters returns the waiters of name in arrival order.
	LeaseWaiters(ctx context.Context, name string) ([]Waiter, error)
	// PutWaiter inserts a waiter or updates its wait_until, host and pid.
	PutWaiter(ctx context.Context, w *Waiter) error
	// DeleteWaiter removes agent from name's queue (no error when absent).
	DeleteWaiter(ctx context.Context, name, agent string) error
	// WaitingNames returns the names that have at least one waiter.
	WaitingNames(ctx context.Context) ([]string, error)
	// GetHookSession returns the client session's row (nil, nil when the
	// session is unknown): whose session ends.
	GetHookSession(ctx context.Context, client, sessionID string) (*hub.HookSession, error)
}

// HolderFilter selects active grants. Zero values mean "no filter".
type HolderFilter struct {
	Name  string
	Agent string
	// Kind and Host select ports held on one host.
	Kind Kind
	Host string
	// Names selects any of these names.
	Names []string
	Limit int
}

// Record is a lease name's row: its kind, its capacity, the last fencing
// number it gave and the last queue number of its waiters.
type Record struct {
	Name      string    `json:"name"`
	Kind      Kind      `json:"kind"`
	Capacity  int       `json:"capacity"`
	Fence     int64     `json:"fence"`
	QueueSeq  int64     `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Waiter is one caller in a lease's queue.
type Waiter struct {
	Name  string    `json:"name"`
	Agent string    `json:"agent"`
	Seq   int64     `json:"seq"`
	Host  string    `json:"host,omitempty"`
	PID   int       `json:"-"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	// HeardAt is when the waiting process last wrote its place: one not
	// heard from for waiterSilence is gone (wait.go).
	HeardAt time.Time `json:"-"`
}

// asTx is the lease port of a transaction of the board's store.
func asTx(tx hub.Tx) (Tx, error) {
	ltx, ok := tx.(Tx)
	if !ok {
		return nil, hub.Errorf(hub.CodeInternal, "this board's store keeps no leases")
	}
	return ltx, nil
}

// write runs fn in the kernel's unit of work (idempotency, check-in,
// events) with the lease port of its transaction.
func write[T any](ctx context.Context, s *Service, req any, fn func(tx Tx) (T, error)) (T, error) {
	return hub.Write(ctx, s.kernel, req, func(tx hub.Tx) (T, error) {
		ltx, err := asTx(tx)
		if err != nil {
			var zero T
			return zero, err
		}
		return fn(ltx)
	})
}

// read runs fn in a read transaction with the lease port.
func read[T any](ctx context.Context, s *Service, fn func(tx Tx) (T, error)) (T, error) {
	return hub.Read(ctx, s.kernel, func(tx hub.Tx) (T, error) {
		ltx, err := asTx(tx)
		if err != nil {
			var zero T
			return zero, err
		}
		return fn(ltx)
	})
}
