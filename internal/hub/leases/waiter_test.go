package leases_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// reusedPIDs is a host where every pid runs: the pid of a waiter that
// died was given to another process.
type reusedPIDs struct{}

func (reusedPIDs) Host() string      { return "build-host" }
func (reusedPIDs) PortFree(int) bool { return true }
func (reusedPIDs) Alive(int) bool    { return true }
func (reusedPIDs) PID() int          { return 4242 }

// TestDeadWaiterWithReusedPIDIsPassedOver: a waiter whose process died
// while its pid now names another process still holds its place until
// it has not been heard from for 30 seconds; then a free lock goes to
// the next caller instead of waiting for the dead one's whole wait.
func TestDeadWaiterWithReusedPIDIsPassedOver(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := &hubtest.Clock{T: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	k := hub.NewService(st, clock, t.TempDir())
	for _, a := range []string{"holder-1", "ghost-1", "late-1"} {
		if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: a, Role: "dev"}); err != nil {
			t.Fatal(err)
		}
	}
	l := leases.NewOn(k, reusedPIDs{})
	if _, err := l.AcquireLease(ctx, leases.AcquireInput{Agent: "holder-1", Name: "deploy"}); err != nil {
		t.Fatal(err)
	}
	// The ghost queued for an hour and died without leaving the queue.
	ghostWaits(t, ctx, st, clock.Now(), "ghost-1", "deploy")
	if _, err := l.ReleaseLease(ctx, leases.ReleaseInput{Agent: "holder-1", Name: "deploy"}); err != nil {
		t.Fatal(err)
	}
	clock.T = clock.T.Add(20 * time.Second)
	_, err = l.AcquireLease(ctx, leases.AcquireInput{Agent: "late-1", Name: "deploy"})
	if code := hub.CodeOf(err); code != leases.CodeLeaseConflict {
		t.Fatalf("20 s after the ghost was heard: %v (code %q), want %s: its place is kept", err, code, leases.CodeLeaseConflict)
	}
	clock.T = clock.T.Add(11 * time.Second)
	g, err := l.AcquireLease(ctx, leases.AcquireInput{Agent: "late-1", Name: "deploy"})
	if err != nil {
		t.Fatalf("31 s after the ghost was heard: %v, want the grant", err)
	}
	if g.Lease.Agent != "late-1" {
		t.Fatalf("granted to %q", g.Lease.Agent)
	}
}

// ghostWaits puts agent in name's queue for an hour, as a waiting
// process writes it, and never writes again: the process was killed.
func ghostWaits(t *testing.T, ctx context.Context, st hub.Store, now time.Time, agent, name string) {
	t.Helper()
	err := st.Write(ctx, func(tx hub.Tx) error {
		ltx := tx.(leases.Tx)
		rec, err := ltx.LeaseRecord(ctx, name)
		if err != nil {
			return err
		}
		rec.QueueSeq++
		if err := ltx.PutLeaseRecord(ctx, rec); err != nil {
			return err
		}
		return ltx.PutWaiter(ctx, &leases.Waiter{Name: name, Agent: agent, Seq: rec.QueueSeq, Host: "build-host", PID: 4242,
			Since: now, Until: now.Add(time.Hour), HeardAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
}
