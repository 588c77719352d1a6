// Package storetest is the behavioural suite every hub.Store backend must
// pass (SQLite, PostgreSQL). It drives the store through hub.Service where a
// use case exists, and through hub.Tx directly for the primitives that only
// other surfaces use, then asserts on what a fresh read returns.
//
// Adding a group: write `func testXxx(t *testing.T, open Opener)` in a new
// file of this package and add one line to groups() below. Each sub-test
// opens its own empty store.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Opener returns a new, empty, migrated store. The suite closes it when the
// test ends (closing twice must be harmless).
type Opener func(t *testing.T) hub.Store

type group struct {
	name string
	run  func(t *testing.T, open Opener)
}

// groups lists the domains of the suite, one file each.
func groups() []group {
	return []group{
		{"Agents", testAgents},
		{"Messages", testMessages},
		{"Speaker", testSpeaker},
		{"Receipts", testReceipts},
		{"Inbox", testInbox},
		{"Artifacts", testArtifacts},
		{"Refs", testRefs},
		{"Events", testEvents},
		{"EventLimit", testEventLimit},
		{"Idempotency", testIdempotency},
		{"IdempotentRequests", testIdempotencyRequests},
		{"Transactions", testTransactions},
		{"Search", testSearch},
		{"SearchIndex", testSearchIndex},
		{"Leases", testLeases},
		{"Retention", testRetention},
		{"RetentionUnderLoad", testRetentionUnderLoad},
	}
}

// Run runs every group of the suite against the backend open returns.
func Run(t *testing.T, open func(t *testing.T) hub.Store) {
	for _, g := range groups() {
		t.Run(g.name, func(t *testing.T) { g.run(t, open) })
	}
}

// T0 is the suite's starting time (BB_NOW-style fixed clock).
func T0() time.Time { return time.Date(2026, 11, 21, 22, 0, 0, 123456000, time.UTC) }

// Clock is a settable clock for the suite.
type Clock struct{ T time.Time }

// Now returns the current fake time.
func (c *Clock) Now() time.Time { return c.T }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.T = c.T.Add(d) }

// Fixture is one fresh store with a service over it.
type Fixture struct {
	T     *testing.T
	Ctx   context.Context
	Store hub.Store
	Svc   *hub.Service
	Clock *Clock
}

// New opens a fresh store and wraps it in a service whose clock starts at T0.
// The project root is a temporary directory (for artifact paths).
func New(t *testing.T, open Opener) *Fixture {
	t.Helper()
	st := open(t)
	t.Cleanup(func() { _ = st.Close() })
	c := &Clock{T: T0()}
	svc := hub.NewService(st, c, t.TempDir())
	return &Fixture{T: t, Ctx: context.Background(), Store: st, Svc: svc, Clock: c}
}

// Read runs fn in a read transaction and fails the test on error.
func (f *Fixture) Read(fn func(tx hub.Tx) error) {
	f.T.Helper()
	if err := f.Store.Read(f.Ctx, fn); err != nil {
		f.T.Fatalf("read: %v", err)
	}
}

// Write runs fn in a write transaction and fails the test on error.
func (f *Fixture) Write(fn func(tx hub.Tx) error) {
	f.T.Helper()
	if err := f.Store.Write(f.Ctx, fn); err != nil {
		f.T.Fatalf("write: %v", err)
	}
}

// Post posts a broadcast through the service and fails the test on error.
func (f *Fixture) Post(in hub.PostInput) hub.Message {
	f.T.Helper()
	m, err := f.Svc.Post(f.Ctx, in)
	if err != nil {
		f.T.Fatalf("post %+v: %v", in, err)
	}
	return m
}

// Events returns the whole timeline.
func (f *Fixture) Events() []hub.Event {
	f.T.Helper()
	var evs []hub.Event
	f.Read(func(tx hub.Tx) (err error) { evs, err = tx.ListEvents(f.Ctx, hub.EventFilter{}); return })
	return evs
}

// Ok fails the test when err is not nil.
func Ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// WantCode fails the test unless err carries code.
func WantCode(t *testing.T, err error, code hub.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %s, got nil", code)
	}
	if got := hub.CodeOf(err); got != code {
		t.Fatalf("want error %s, got %s (%v)", code, got, err)
	}
}

func seqs(ms []hub.Message) []int64 {
	out := make([]int64, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Seq)
	}
	return out
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameTime(a, b time.Time) bool { return a.Equal(b) }

func ptr[T any](v T) *T { return &v }
