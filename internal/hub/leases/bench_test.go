package leases_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

func board(b *testing.B) (*hub.Service, *leases.Service) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	k := hub.NewService(st, nil, b.TempDir())
	for _, a := range []string{"agent-one", "agent-two"} {
		if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: a, Role: "dev"}); err != nil {
			b.Fatal(err)
		}
	}
	return k, leases.New(k)
}

// BenchmarkAcquireVsReserve is one acquire and one release of a lock,
// against one reserve and one release of a file scope (bb agent reserve),
// on the same SQLite board, in the same run: the goal is a ratio
// of at most 1.2.
func BenchmarkAcquireVsReserve(b *testing.B) {
	ctx := context.Background()
	k, l := board(b)
	b.Run("lease", func(b *testing.B) {
		for range b.N {
			if _, err := l.AcquireLease(ctx, leases.AcquireInput{Agent: "agent-one", Name: "deploy:staging"}); err != nil {
				b.Fatal(err)
			}
			if _, err := l.ReleaseLease(ctx, leases.ReleaseInput{Agent: "agent-one", Name: "deploy:staging"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reserve", func(b *testing.B) {
		for range b.N {
			if _, err := k.Reserve(ctx, hub.ReserveInput{Agent: "agent-one", Scope: "src/a.go", Wd: k.ProjectRoot, BeadID: "bb-1"}); err != nil {
				b.Fatal(err)
			}
			if _, err := k.Release(ctx, "agent-one", k.ProjectRoot, "src/a.go"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReleaseToGrant is the time from a holder's release returning
// to the waiter's grant returning (the waiter queued with --wait, woken
// by the release's event).
func BenchmarkReleaseToGrant(b *testing.B) {
	ctx := context.Background()
	_, l := board(b)
	if _, err := l.AcquireLease(ctx, leases.AcquireInput{Agent: "agent-one", Name: "build"}); err != nil {
		b.Fatal(err)
	}
	holder, waiter := "agent-one", "agent-two"
	var total time.Duration
	for range b.N {
		got := make(chan time.Time, 1)
		queued := make(chan struct{})
		go func() {
			// Queued once the first try was refused: the event feed
			// starts before it.
			go func() {
				for {
					st, _ := l.LeaseStatus(ctx, "build")
					if len(st.Waiters) == 1 {
						close(queued)
						return
					}
					time.Sleep(100 * time.Microsecond)
				}
			}()
			if _, err := l.AcquireLease(ctx, leases.AcquireInput{Agent: waiter, Name: "build", Wait: time.Minute}); err != nil {
				b.Error(err)
			}
			got <- time.Now()
		}()
		<-queued
		if _, err := l.ReleaseLease(ctx, leases.ReleaseInput{Agent: holder, Name: "build"}); err != nil {
			b.Fatal(err)
		}
		released := time.Now()
		total += (<-got).Sub(released)
		holder, waiter = waiter, holder
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-release-to-grant")
}
