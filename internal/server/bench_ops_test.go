package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/housekeeping"
	"github.com/blackboard-hub/bb/internal/loadgen"
	"github.com/blackboard-hub/bb/internal/server"
)

// benchRounds runs rounds of the serve bench load in ABBA order (neither
// mode always first, or always on the larger board), calling around(mode) before each round
// and the function it returns after it, and returns each mode's reports.
func benchRounds(b *testing.B, rounds int, per time.Duration, url func(mode int) string, around func(mode int) func()) [2][]loadgen.Report {
	var reps [2][]loadgen.Report
	for r := 0; r < rounds; r++ {
		mode := [4]int{0, 1, 1, 0}[r%4]
		done := around(mode)
		rep, err := loadgen.Run(context.Background(), loadgen.Config{URL: url(mode), Clients: 50, Duration: per})
		done()
		if err != nil {
			b.Fatal(err)
		}
		if rep.Errors != 0 {
			b.Fatalf("%d errors: %s", rep.Errors, rep.FirstErrorMsg)
		}
		reps[mode] = append(reps[mode], rep)
	}
	return reps
}

func postsPerSec(reps []loadgen.Report) float64 {
	var n int64
	var d time.Duration
	for _, r := range reps {
		n += r.Posts
		d += r.Duration
	}
	return float64(n) / d.Seconds()
}

func medianP99(reps []loadgen.Report) time.Duration {
	var p []time.Duration
	for _, r := range reps {
		p = append(p, r.WriteP99)
	}
	slices.Sort(p)
	if len(p)%2 == 0 {
		return (p[len(p)/2-1] + p[len(p)/2]) / 2
	}
	return p[len(p)/2]
}

func initBoardB(b *testing.B) string {
	dir := b.TempDir()
	if out, err := exec.Command(bbBin, "--dir", dir, "init").CombinedOutput(); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	return dir
}

// BenchmarkObservabilityCost is issue 37's first cost rule: posts/s of the
// serve bench load with the request metrics and a JSON log line per
// request (written to a file, /metrics scraped every second) ÷ the same
// server without its observation, in interleaved rounds over one board
// (the request budget is off in both: the load's anonymous reads share
// one).
// Reported: on/off (goal ≥ 0.95).
func BenchmarkObservabilityCost(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := initBoardB(b)
		svc := openBoard(b, dir, nil)
		logf, err := os.Create(filepath.Join(b.TempDir(), "requests.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		defer logf.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		start := func(cfg server.Config, unobserved bool) *httptest.Server {
			srv, err := server.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			srv.Start(ctx)
			h := srv.Handler()
			if unobserved {
				h = srv.HandlerUnobserved()
			}
			hs := httptest.NewServer(h)
			b.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
			return hs
		}
		on := start(server.Config{Service: svc, Log: slog.New(slog.NewJSONHandler(logf, nil)), RequestLog: true, Rate: -1}, false)
		off := start(server.Config{Service: svc, Rate: -1}, true)
		urls := [2]string{off.URL, on.URL}
		if aa() {
			urls[1] = off.URL
		}
		reps := benchRounds(b, 8, 2*time.Second, func(m int) string { return urls[m] }, func(mode int) func() {
			if mode == 0 {
				return func() {}
			}
			// A scraper on the observed server, every second.
			sctx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				t := time.NewTicker(time.Second)
				defer t.Stop()
				for {
					select {
					case <-sctx.Done():
						return
					case <-t.C:
						if resp, err := http.Get(on.URL + server.MetricsPath); err == nil {
							_, _ = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}
				}
			}()
			return func() { stop(); <-done }
		})
		offR, onR := postsPerSec(reps[0]), postsPerSec(reps[1])
		fi, _ := logf.Stat()
		b.ReportMetric(offR, "off-posts/s")
		b.ReportMetric(onR, "on-posts/s")
		b.ReportMetric(onR/offR, "on/off")
		b.Logf("off %.0f posts/s, on %.0f posts/s: on/off %.3f; %d bytes of JSON request log", offR, onR, onR/offR, fi.Size())
	}
}

// BenchmarkRetentionWriteP99 is issue 37's second cost rule: the write p99
// of the serve bench load while retention removes a backlog of old events
// in its batches, back to back ÷ without it, in interleaved rounds over
// one board. Reported: with/without (goal ≤ 1.1). BB_BENCH_RETAIN_BATCH
// sets the batch size (default housekeeping.RetainBatch).
func BenchmarkRetentionWriteP99(b *testing.B) {
	const backlog = 400_000
	for i := 0; i < b.N; i++ {
		dir := initBoardB(b)
		if err := seedOldEvents(filepath.Join(dir, ".bb", "blackboard.db"), backlog); err != nil {
			b.Fatal(err)
		}
		svc := openBoard(b, dir, nil)
		if _, err := svc.SetConfig(context.Background(), "operator", hub.ConfigRetentionEvents, "1d"); err != nil {
			b.Fatal(err)
		}
		r, ok := svc.(interface {
			Retain(ctx context.Context, batch int) (housekeeping.RetainReport, error)
		})
		if !ok {
			b.Fatal("the board has no retention")
		}
		hs := newServerB(b, svc)
		var removed, batches int64
		reps := benchRounds(b, 8, 2*time.Second, func(int) string { return hs.URL }, func(mode int) func() {
			if mode == 0 || aa() {
				return func() {}
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				rep, err := r.Retain(ctx, benchBatch())
				removed += rep.Events
				batches += int64(rep.Batches)
				if err == nil && !aa() {
					b.Error("retention removed the whole backlog within the rounds: seed a larger one")
				}
			}()
			return func() { stop(); <-done }
		})
		without, with := medianP99(reps[0]), medianP99(reps[1])
		b.ReportMetric(float64(without)/1e6, "without-p99-ms")
		b.ReportMetric(float64(with)/1e6, "with-p99-ms")
		b.ReportMetric(float64(with)/float64(without), "with/without")
		b.ReportMetric(postsPerSec(reps[1])/postsPerSec(reps[0]), "posts-with/without")
		b.Logf("write p99 without %.1f ms, with %.1f ms: %.3f; %d events removed in %d batches meanwhile", float64(without)/1e6, float64(with)/1e6, float64(with)/float64(without), removed, batches)
	}
}

// newServerB serves svc for a benchmark, as bb serve does.
func newServerB(b *testing.B, svc app.API) *httptest.Server {
	srv, err := server.New(server.Config{Service: svc, Rate: -1})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(func() { hs.CloseClientConnections(); hs.Close(); cancel() })
	return hs
}

// seedOldEvents inserts n timeline events from sixty days ago, directly.
func seedOldEvents(path string, n int) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	old := time.Now().UTC().Add(-60 * 24 * time.Hour).Format("2006-01-02T15:04:05.000000+00:00")
	_, err = db.Exec(fmt.Sprintf(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d)
		INSERT INTO events (id, type, agent, message, payload, created_at) SELECT 'old-' || x, 'message.posted', 'seed', 'an old post', '{}', ? FROM c`, n), old)
	return err
}

// aa is $BB_BENCH_AA=1: the A/A control of the cost benchmarks (the same
// server, no retention, in both halves), the harness's own noise.
func aa() bool { return os.Getenv("BB_BENCH_AA") == "1" }

// benchBatch is $BB_BENCH_RETAIN_BATCH, else 0 (RetainBatch).
func benchBatch() int {
	n, _ := strconv.Atoi(os.Getenv("BB_BENCH_RETAIN_BATCH"))
	return n
}
