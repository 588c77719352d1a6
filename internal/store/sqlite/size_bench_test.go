package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
)

// Size does not matter (BENCHMARKS.md, "Board size"): the reads every agent
// makes all day cost the same on a board of 1,000 messages as on one of
// BB_BENCH_MESSAGES (default 1,000,000, a tenth of them broadcasts).
//
//	BB_BENCH_MESSAGES=1000000 go test ./internal/store/sqlite -run '^$' -bench BoardSize -benchtime 200x
//
// Both boards are seeded once per run (internal/testkit/bigboard) into a
// temporary directory removed when the run ends; with BB_BENCH_BOARDS=dir
// they are kept in dir and reused by later runs (bigboard.Template: a kept
// board is migrated once, and a change of the seeded layout gets new
// files). Every
// iteration runs each read on both boards, in alternating order, so load on
// a shared machine hits both alike; the benchmark reports each read's median
// on each board and the ratio big/small.

// benchNow is the present of the seeded boards.
var benchNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

var boards struct {
	sync.Mutex
	dir   string
	paths map[int]string
}

func benchMessages() int {
	n := 1_000_000
	if v := os.Getenv("BB_BENCH_MESSAGES"); v != "" {
		fmt.Sscan(v, &n)
	}
	return n
}

func openForSeed(path string) (*sql.DB, func() error, error) {
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true})
	if err != nil {
		return nil, nil, err
	}
	return st.SQL(), st.Close, nil
}

// seededBoard returns the template board of n messages (n/10 broadcasts),
// seeding it the first time it is asked for.
func seededBoard(b *testing.B, n int) string {
	boards.Lock()
	defer boards.Unlock()
	if p := boards.paths[n]; p != "" {
		return p
	}
	if boards.dir == "" {
		dir, err := os.MkdirTemp("", "bb-size-bench-")
		if err != nil {
			b.Fatal(err)
		}
		boards.dir, boards.paths = dir, map[int]string{}
	}
	t0 := time.Now()
	p, err := bigboard.Template(context.Background(), boards.dir, bigboard.Spec{Messages: n, Broadcasts: n / 10, Now: benchNow}, openForSeed)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("board of %d messages (%d broadcasts) ready in %s", n, n/10, time.Since(t0).Round(time.Millisecond))
	boards.paths[n] = p
	return p
}

// boardService opens a copy of the template board of n messages.
func boardService(b *testing.B, n int) *app.Service {
	dir := b.TempDir()
	p := filepath.Join(dir, "bb.db")
	if err := bigboard.CopyFile(seededBoard(b, n), p); err != nil {
		b.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), p, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return app.New(hub.NewService(st, hub.FixedClock{T: benchNow}, dir))
}

// sizeReads are the reads measured, each returning how many items it found
// (which must be the same on both boards: only the history differs).
var sizeReads = []struct {
	name string
	run  func(ctx context.Context, s *app.Service) (int, error)
}{
	{"agent-inbox", func(ctx context.Context, s *app.Service) (int, error) {
		items, err := s.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader})
		return len(items), err
	}},
	{"agent-inbox-unread", func(ctx context.Context, s *app.Service) (int, error) {
		items, err := s.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, State: hub.StateUnread})
		return len(items), err
	}},
	{"agent-inbox-read", func(ctx context.Context, s *app.Service) (int, error) {
		items, err := s.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, State: hub.StateRead})
		return len(items), err
	}},
	{"agent-inbox-acked", func(ctx context.Context, s *app.Service) (int, error) {
		// Acks are rare (the 1k board holds 5 for the reader): a page of 5.
		items, err := s.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, State: hub.StateAcked, Limit: 5})
		return len(items), err
	}},
	{"agent-inbox-mail", func(ctx context.Context, s *app.Service) (int, error) {
		items, err := s.Inbox(ctx, hub.InboxQuery{Agent: bigboard.Reader, MailOnly: true, Limit: 20})
		return len(items), err
	}},
	{"agent-mail-read", func(ctx context.Context, s *app.Service) (int, error) {
		rows, err := s.ReadAgentMail(ctx, agentmail.MailReadInput{Agent: bigboard.MailReader, Limit: 20, NoMarkRead: true})
		return len(rows), err
	}},
	{"agent-mail-status", func(ctx context.Context, s *app.Service) (int, error) {
		rows, err := s.AgentMailStatus(ctx, bigboard.MailReader, "")
		return len(rows), err
	}},
	{"log", func(ctx context.Context, s *app.Service) (int, error) {
		ms, err := s.Log(ctx, hub.LogQuery{Reader: bigboard.Reader})
		return len(ms), err
	}},
	{"check-in", func(ctx context.Context, s *app.Service) (int, error) {
		n, err := s.CheckIn(ctx, bigboard.Reader)
		return int(n.Unread + n.AcksOwed), err
	}},
	{"hook-deliver", func(ctx context.Context, s *app.Service) (int, error) {
		d, err := s.DeliverNew(ctx, bigboard.Reader)
		return len(d.Delivered) + 1, err
	}},
	{"hook-deliver-hook-only", func(ctx context.Context, s *app.Service) (int, error) {
		d, err := s.DeliverNew(ctx, bigboard.HookReader)
		return len(d.Delivered) + 1, err
	}},
}

func BenchmarkBoardSize(b *testing.B) {
	ctx := context.Background()
	sizes := []int{1_000, benchMessages()}
	svcs := []*app.Service{boardService(b, sizes[0]), boardService(b, sizes[1])}
	// The first delivery writes what is new; every later one finds nothing
	// new, the steady state measured.
	for _, s := range svcs {
		for _, a := range []string{bigboard.Reader, bigboard.HookReader} {
			if _, err := s.DeliverNew(ctx, a); err != nil {
				b.Fatal(err)
			}
		}
	}
	times := make([][2][]time.Duration, len(sizeReads))
	found := make([][2]int, len(sizeReads))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for k, r := range sizeReads {
			for j := range 2 {
				j = (j + i) % 2
				t0 := time.Now()
				n, err := r.run(ctx, svcs[j])
				times[k][j] = append(times[k][j], time.Since(t0))
				if err != nil {
					b.Fatalf("%s on %d messages: %v", r.name, sizes[j], err)
				}
				found[k][j] = n
			}
		}
	}
	b.StopTimer()
	for k, r := range sizeReads {
		if found[k][0] != found[k][1] {
			b.Errorf("%s found %d items on %d messages but %d on %d", r.name, found[k][0], sizes[0], found[k][1], sizes[1])
		}
		var med [2]time.Duration
		for j := range 2 {
			slices.Sort(times[k][j])
			med[j] = times[k][j][len(times[k][j])/2]
		}
		b.ReportMetric(float64(med[0].Microseconds()), r.name+"-small-µs")
		b.ReportMetric(float64(med[1].Microseconds()), r.name+"-big-µs")
		b.ReportMetric(float64(med[1])/float64(med[0]), r.name+"-big/small")
	}
}
