// Package hubtest holds what the tests of the kernel (internal/hub) and of
// its applications (hooks, agentmail, overview) share: a fresh SQLite
// board whose clock the test moves, and a store that counts the
// transactions a call opens. Only tests import it.
package hubtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// T0 is the time a Board starts at.
var T0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// Clock is a clock the test sets (T).
type Clock struct{ T time.Time }

// Now implements hub.Clock.
func (c *Clock) Now() time.Time { return c.T }

// Board opens a fresh SQLite board at T0 with project root /proj; env
// answers the service's environment (nil: empty).
func Board(t testing.TB, env map[string]string) (*hub.Service, *Clock) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &Clock{T: T0}
	svc := hub.NewService(st, clk, "/proj")
	svc.Env = func(k string) string { return env[k] }
	return svc, clk
}

// CountingStore counts the transactions a service opens.
type CountingStore struct {
	hub.Store
	Reads, Writes int
}

// Read counts and runs a read transaction.
func (c *CountingStore) Read(ctx context.Context, fn func(hub.Tx) error) error {
	c.Reads++
	return c.Store.Read(ctx, fn)
}

// Write counts and runs a write transaction.
func (c *CountingStore) Write(ctx context.Context, fn func(hub.Tx) error) error {
	c.Writes++
	return c.Store.Write(ctx, fn)
}

// Counting returns svc over a CountingStore, and that store: the calls a
// test makes through the returned service are counted.
func Counting(svc *hub.Service) (*hub.Service, *CountingStore) {
	var cs *CountingStore
	counted := svc.WithStore(func(st hub.Store) hub.Store {
		cs = &CountingStore{Store: st}
		return cs
	})
	return counted, cs
}

// StoreOf is the store under svc, for a test that reads or writes rows
// directly.
func StoreOf(svc *hub.Service) hub.Store {
	var st hub.Store
	svc.WithStore(func(s hub.Store) hub.Store {
		st = s
		return s
	})
	return st
}
