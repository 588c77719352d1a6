// Package leases is the board's leases beyond files: named locks
// ("deploy:staging"), slots that a capacity of holders share ("build"
// with 2), TCP ports the board hands out from a configured range
// ("port:web") and names unique to their holder ("name:db"). Every grant
// carries a fencing number that only grows per lease name; callers that
// wait queue in order of arrival; a lease whose holder turned stale or
// offline may be taken over, as a reservation may; a person may release
// or hand one over. A board may declare the leases every session gets at
// its start (hub.ConfigLeasesSession).
//
// One rule decides grant, queue and takeover for every surface
// (acquireTx). A lease name never overlaps a path scope: its grammar has
// no '/' (ValidateName), and path reservations stay the kernel's.
//
// It holds the kernel (*hub.Service) by name and reaches its own tables
// through its own port (Tx, store.go), which the SQL store implements;
// internal/app composes it with the kernel's roles into the API the
// surfaces use.
package leases

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the leases over the kernel.
type Service struct {
	kernel *hub.Service
	// machine is the host this process runs on: its name, a port's
	// probe, whether a process is alive.
	machine Machine
}

// New builds the leases over k, on the host this process runs on.
func New(k *hub.Service) *Service { return &Service{kernel: k, machine: OSMachine{}} }

// NewOn builds the leases over k on machine m (tests).
func NewOn(k *hub.Service, m Machine) *Service { return &Service{kernel: k, machine: m} }

// API is the leases' role.
type API interface {
	// AcquireLease grants a lease, renews the caller's own, or queues the
	// caller (Wait) until it holds it or the time runs out.
	AcquireLease(ctx context.Context, in AcquireInput) (Grant, error)
	// ReleaseLease ends the caller's own lease, or, for a person, another
	// agent's (ReleaseInput.Holder), handing it over with To.
	ReleaseLease(ctx context.Context, in ReleaseInput) (ReleaseResult, error)
	// RenewLease moves the caller's lease's expiry to now + its TTL.
	RenewLease(ctx context.Context, in RenewInput) (Lease, error)
	// CheckLease says whether agent still holds name with fencing number
	// fence.
	CheckLease(ctx context.Context, agent, name string, fence int64) (CheckResult, error)
	// LeaseStatus is one lease: its holders, their liveness and its queue.
	LeaseStatus(ctx context.Context, name string) (Status, error)
	// ListLeases lists the leases held or waited for.
	ListLeases(ctx context.Context, f ListFilter) ([]Status, error)
	// AcquireSessionLeases grants agent the leases the board declares for
	// every session (hub.ConfigLeasesSession).
	AcquireSessionLeases(ctx context.Context, in SessionInput) ([]Lease, error)
	// ReleaseAgentLeases ends every lease agent holds (its session ended).
	ReleaseAgentLeases(ctx context.Context, agent string) ([]Lease, error)
	// ReleaseSessionLeases ends the leases a client session was given at
	// its start, as the session ends.
	ReleaseSessionLeases(ctx context.Context, in SessionEndInput) ([]Lease, error)
}

var _ API = (*Service)(nil)
