package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/storetest"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

// follower collects the seqs a follower of a service's timeline receives
// (backlog from 0, then live).
type follower struct {
	mu     sync.Mutex
	got    []int64
	cancel context.CancelFunc
	done   chan error
}

func follow(t *testing.T, svc *hub.Service) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fl := &follower{cancel: cancel, done: make(chan error, 1)}
	started := make(chan struct{})
	go func() {
		fl.done <- svc.Follow(ctx, hub.FollowInput{Backlog: true, Started: func(int64) error { close(started); return nil }},
			func(e hub.Event) error {
				fl.mu.Lock()
				fl.got = append(fl.got, e.Seq)
				fl.mu.Unlock()
				return nil
			})
	}()
	select {
	case <-started:
	case err := <-fl.done:
		t.Fatalf("follow: %v", err)
	}
	return fl
}

func (fl *follower) seen() []int64 {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return slices.Clone(fl.got)
}

// stop ends the follower and returns what it saw.
func (fl *follower) stop(t *testing.T) []int64 {
	t.Helper()
	fl.cancel()
	if err := <-fl.done; err != nil {
		t.Errorf("follow: %v", err)
	}
	return fl.seen()
}

// until waits (up to 10 s) for the follower to have seen n events, then a
// little longer (a duplicate would arrive meanwhile), and stops it.
func (fl *follower) until(t *testing.T, n int) []int64 {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); len(fl.seen()) < n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	return fl.stop(t)
}

// storedSeqs is every event seq in the database, in order.
func storedSeqs(t *testing.T, svc *hub.Service) []int64 {
	t.Helper()
	var out []int64
	err := hubtest.StoreOf(svc).Read(context.Background(), func(tx hub.Tx) error {
		evs, err := tx.ListEvents(context.Background(), hub.EventFilter{})
		for _, e := range evs {
			out = append(out, e.Seq)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The ordering argument as a test: writers whose transactions commit out
// of the order they began in — a slow writer holding its transaction open
// while others commit, before and after taking the write lock, with
// ordered (late lock) and plain (lock at BEGIN) writes mixed over two
// connection pools — never make a follower skip or repeat an event: the
// follower's sequence is exactly the stored timeline.
func TestFollowerNeverSkipsOutOfOrderCommits(t *testing.T) {
	url := migrated(t)
	a, b, f := open(t, url), open(t, url), open(t, url)
	clock := &storetest.Clock{T: storetest.T0()}
	svcF := hub.NewService(f, clock, t.TempDir())
	fl := follow(t, svcF)
	ctx := context.Background()
	ev := func(name string) *hub.Event { return &hub.Event{Type: "test." + name, CreatedAt: clock.T} }

	// 1. A slow ordered writer reads, queues its event, and waits with its
	// transaction open; a writer on the other pool commits meanwhile.
	release := make(chan struct{})
	holding := make(chan struct{})
	slow := make(chan error, 1)
	go func() {
		slow <- a.Write(hub.OrderAtCommit(ctx), func(tx hub.Tx) error {
			if _, err := tx.LastEventSeq(ctx); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, ev("slow-late")); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	for i := range 3 {
		if err := b.Write(hub.OrderAtCommit(ctx), func(tx hub.Tx) error { return tx.AppendEvent(ctx, ev(fmt.Sprint("fast-", i))) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Write(ctx, func(tx hub.Tx) error { return tx.AppendEvent(ctx, ev("fast-plain")) }); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}

	// 2. A slow writer holding the write lock (its event already sent):
	// the others wait for it, and commit after it.
	release, holding = make(chan struct{}), make(chan struct{})
	go func() {
		slow <- a.Write(hub.OrderAtCommit(ctx), func(tx hub.Tx) error {
			if err := tx.AppendEvent(ctx, ev("slow-locked")); err != nil {
				return err
			}
			if _, err := tx.LastEventSeq(ctx); err != nil { // sends the queued lock and event
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	fast := make(chan error, 1)
	go func() {
		fast <- b.Write(hub.OrderAtCommit(ctx), func(tx hub.Tx) error { return tx.AppendEvent(ctx, ev("after-lock")) })
	}()
	select {
	case err := <-fast:
		t.Fatalf("a writer committed while another held the write lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	if err := <-fast; err != nil {
		t.Fatal(err)
	}

	// 3. Many writers on both pools, ordered and plain, each pausing at
	// random inside its transaction, with messages (numbers must stay
	// gapless) and events.
	var wg sync.WaitGroup
	errs := make(chan error, 8*12)
	for w := range 8 {
		st := hubtest.StoreOf([]*hub.Service{hub.NewService(a, clock, ""), hub.NewService(b, clock, "")}[w%2])
		wg.Go(func() {
			for i := range 12 {
				wctx := ctx
				if (w+i)%3 != 0 {
					wctx = hub.OrderAtCommit(ctx)
				}
				errs <- st.Write(wctx, func(tx hub.Tx) error {
					if _, err := tx.LastEventSeq(ctx); err != nil {
						return err
					}
					time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
					m := &hub.Message{UUID: fmt.Sprintf("m-%d-%d", w, i), From: "w", To: hub.Broadcast, Body: "x", CreatedAt: clock.T}
					if err := tx.InsertMessage(ctx, m); err != nil {
						return err
					}
					if err := tx.AppendEvent(ctx, ev("stress")); err != nil {
						return err
					}
					time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
					return nil
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	want := storedSeqs(t, svcF)
	got := fl.until(t, len(want))
	// slow-late, 3 fast, fast-plain, slow-locked, after-lock, 8×12 stress
	if n := 1 + 3 + 1 + 1 + 1 + 96; len(want) != n {
		t.Errorf("%d events stored, want %d", len(want), n)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the follower saw %d events %v,\nthe timeline holds %d: %v", len(got), got, len(want), want)
	}
	var n, maxSeq, distinct int
	if err := a.SQL().QueryRow(`SELECT COUNT(*), MAX(seq), COUNT(DISTINCT seq) FROM messages`).Scan(&n, &maxSeq, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != 96 || maxSeq != 96 || distinct != 96 {
		t.Errorf("messages: %d rows, max number %d, %d distinct; want 96 each (gapless)", n, maxSeq, distinct)
	}
}

// Idle, with three followers open, a server sends PostgreSQL nothing but
// the safety poll: it waits on LISTEN/NOTIFY. A commit made elsewhere
// still reaches the followers at once.
func TestIdleFollowersSendNothing(t *testing.T) {
	url := migrated(t)
	st, other := open(t, url), open(t, url)
	clock := &storetest.Clock{T: storetest.T0()}
	svc := hub.NewService(st, clock, t.TempDir())
	var fls []*follower
	for range 3 {
		fls = append(fls, follow(t, svc))
	}
	time.Sleep(500 * time.Millisecond) // listening, first catch-up done
	before := st.Stats()
	const quiet = 3 * time.Second
	time.Sleep(quiet)
	after := st.Stats()
	tx, stmts := after.Transactions-before.Transactions, after.Statements-before.Statements
	t.Logf("idle for %s with 3 followers: %d transactions, %d statements", quiet, tx, stmts)
	// The safety poll (hub.FeedSafetyPoll, 30 s) may fall in the window
	// once: one read transaction.
	if tx > 1 || stmts > 3 {
		t.Errorf("idle for %s: %d transactions and %d statements, want at most the one safety poll", quiet, tx, stmts)
	}
	sent := time.Now()
	if err := other.Write(context.Background(), func(tx hub.Tx) error {
		return tx.AppendEvent(context.Background(), &hub.Event{Type: "test.wake", CreatedAt: clock.T})
	}); err != nil {
		t.Fatal(err)
	}
	for time.Since(sent) < 2*time.Second && st.Stats().Transactions == after.Transactions {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	for _, fl := range fls {
		if got := fl.until(t, 1); len(got) != 1 {
			t.Errorf("a follower saw %v after a commit elsewhere, want the one event", got)
		}
	}
	if time.Since(sent) >= 2*time.Second {
		t.Error("a commit made through another pool did not wake the feed within 2s")
	}
}
