package boardtest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkCLI measures one real bb process, start to exit, on boards of
// 1k and 100k messages (issue 2 §Speed: median ≤ 5 ms at 100k). Each
// sub-benchmark reports the median wall time as "ms/median" beside Go's
// mean, and the median CPU time (user+system) of the process as
// "cpu-ms/median", which a shared machine disturbs less.
// The caller is an identified agent, so the check-in is included.
//
//	go test ./internal/cli/bb/boardtest -run '^$' -bench CLI -benchtime 200x
func BenchmarkCLI(b *testing.B) {
	boards := map[int]string{}
	parent := b // boards live as long as the whole benchmark
	board := func(b *testing.B, n int) string {
		if dir, ok := boards[n]; ok {
			return dir
		}
		t0 := time.Now()
		dir := initBoard(parent)
		start := time.Now().UTC().Add(-time.Duration(n) * time.Second)
		if err := seedBoardFast(context.Background(), filepath.Join(dir, ".bb", "blackboard.db"), n, start); err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %d messages in %v", n, time.Since(t0).Round(time.Millisecond))
		boards[n] = dir
		return dir
	}
	env := []string{"BB_AGENT_ID=bench-agent"}
	cases := []struct {
		name string
		args []string
	}{
		{"post", []string{"post", "benchmark message", "--tag", "bench"}},
		{"log", []string{"log"}},
		{"log-json", []string{"--json", "log"}},
		{"log-since", []string{"log", "--since", "10m"}},
		{"log-tag", []string{"log", "--tag", "area-7", "--tag", "area-9"}},
		{"log-from", []string{"log", "--from", "agent-03"}},
		{"log-priority", []string{"log", "--priority", "critical"}},
		{"log-ref", []string{"log", "--ref", "gh:issue:42"}},
		{"status", []string{"status"}},
	}
	for _, n := range []int{1_000, 100_000} {
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/%dk", c.name, n/1000), func(b *testing.B) {
				dir := board(b, n)
				durs := make([]time.Duration, 0, b.N)
				cpus := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					cmd := bbCmd(dir, env, c.args...)
					t0 := time.Now()
					out, err := cmd.CombinedOutput()
					durs = append(durs, time.Since(t0))
					cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
					if err != nil {
						b.Fatalf("bb %v: %v\n%s", c.args, err, out)
					}
				}
				b.StopTimer()
				slices.Sort(durs)
				slices.Sort(cpus)
				b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "ms/median")
				b.ReportMetric(float64(cpus[len(cpus)/2].Microseconds())/1000, "cpu-ms/median")
			})
		}
	}
}
