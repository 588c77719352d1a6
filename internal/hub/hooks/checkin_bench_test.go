package hooks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// BenchmarkCommandTransactions measures, in one process on one SQLite
// board, what the transactions folded for one-shot commands cost each way,
// the two ways alternating in every iteration so that the board's growth
// and the machine's load hit both alike (statements stay prepared here, so
// only the transactions' own cost differs):
//
//   - post: a post and its caller's check-in as two write transactions,
//     or as one (hub.WithCheckIn);
//   - hook: a hook's turn event as a session read then a delivery read,
//     or as one read (DeliverToSession).
//
// It reports each way's mean (…-us) and folded/separate ("x-…").
//
//	go test ./internal/hub -run '^$' -bench CommandTransactions -benchtime 2000x
func BenchmarkCommandTransactions(b *testing.B) {
	ctx := context.Background()
	svc, _ := hookBoard(b, nil)
	registerWorkers(b, svc, "alice", "bob")
	in := hooks.SessionInput{Client: "claude", SessionID: "bench"}
	if _, err := svc.ResolveSession(ctx, in); err != nil {
		b.Fatal(err)
	}
	ways := map[string]func(i int) error{
		"post-two-writes": func(i int) error {
			if _, err := svc.Post(ctx, hub.PostInput{From: "alice", Content: fmt.Sprint("p ", i)}); err != nil {
				return err
			}
			_, err := svc.CheckIn(ctx, "alice")
			return err
		},
		"post-one-write": func(i int) error {
			cctx, slot := hub.WithCheckIn(ctx, func() string { return "alice" })
			if _, err := svc.Post(cctx, hub.PostInput{From: "alice", Content: fmt.Sprint("p ", i)}); err != nil {
				return err
			}
			if _, ok := slot.NoticesFor("alice"); !ok {
				return fmt.Errorf("no check-in")
			}
			return nil
		},
		"hook-two-reads": func(int) error {
			r, err := svc.ResolveSession(ctx, in)
			if err != nil {
				return err
			}
			_, err = svc.DeliverNew(ctx, r.AgentID)
			return err
		},
		"hook-one-read": func(int) error {
			_, err := svc.DeliverToSession(ctx, in)
			return err
		},
	}
	order := []string{"post-two-writes", "post-one-write", "hook-two-reads", "hook-one-read"}
	us := alternate(b, order, ways)
	b.ReportMetric(us("post-one-write")/us("post-two-writes"), "x-post")
	b.ReportMetric(us("hook-one-read")/us("hook-two-reads"), "x-hook")
}

// alternate runs each way of ways once per iteration, in the order of
// order rotated by one each iteration (so that the board's growth and the
// machine's load hit every way alike), reports each way's mean as
// "<name>-us" and returns the mean of a way in µs.
func alternate(b *testing.B, order []string, ways map[string]func(i int) error) (us func(name string) float64) {
	spent := map[string]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for k := range order {
			name := order[(k+i)%len(order)]
			t := time.Now()
			if err := ways[name](i); err != nil {
				b.Fatal(name, err)
			}
			spent[name] += time.Since(t)
		}
	}
	b.StopTimer()
	us = func(name string) float64 { return float64(spent[name].Microseconds()) / float64(b.N) }
	for _, name := range order {
		b.ReportMetric(us(name), name+"-us")
	}
	return us
}

// registerWorkers registers agents with the role worker.
func registerWorkers(tb testing.TB, svc *app.Service, ids ...string) {
	tb.Helper()
	for _, id := range ids {
		if _, _, err := svc.RegisterAgent(context.Background(), hub.RegisterInput{ID: id, Role: "worker"}); err != nil {
			tb.Fatal(err)
		}
	}
}
