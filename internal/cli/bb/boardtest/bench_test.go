package boardtest

import (
	"context"
	"fmt"
	"os"
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

// sizeBoards keeps the boards of BenchmarkCLIBoardSize across the runs the
// testing package makes of it (b.N = 1, then the real count), so the 100k
// board is seeded once; TestMain's clean-up does not know them, so they
// are removed by removeSizeBoards.
var sizeBoards = map[int]string{}

func removeSizeBoards() {
	for _, d := range sizeBoards {
		_ = os.RemoveAll(d)
	}
}

// BenchmarkCLIBoardSize interleaves, in every iteration, `bb --version`
// (the cost of starting the process at all), `bb post` and `bb log` on a
// 1k and on a 100k board, so that a shared machine's changing load hits
// every variant alike. It reports the median wall and CPU time of each:
// post and log must not grow with the board.
//
//	go test ./internal/cli/bb/boardtest -run '^$' -bench CLIBoardSize -benchtime 100x
func BenchmarkCLIBoardSize(b *testing.B) {
	dirs := sizeBoards
	for _, n := range []int{1_000, 100_000} {
		if dirs[n] != "" {
			continue
		}
		dir, err := os.MkdirTemp("", "bb-bench-")
		if err != nil {
			b.Fatal(err)
		}
		if out, err := bbCmd(dir, nil, "init").CombinedOutput(); err != nil {
			b.Fatalf("bb init: %v\n%s", err, out)
		}
		t0 := time.Now()
		if err := seedBoardFast(context.Background(), filepath.Join(dir, ".bb", "blackboard.db"), n, time.Now().UTC().Add(-time.Duration(n)*time.Second)); err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %d messages in %v", n, time.Since(t0).Round(time.Millisecond))
		dirs[n] = dir
	}
	type variant struct {
		name string
		dir  string
		args []string
	}
	vs := []variant{{"version", dirs[1_000], []string{"--version"}}}
	for _, n := range []int{1_000, 100_000} {
		vs = append(vs,
			variant{fmt.Sprintf("post-%dk", n/1000), dirs[n], []string{"post", "benchmark message", "--tag", "bench"}},
			variant{fmt.Sprintf("log-%dk", n/1000), dirs[n], []string{"log"}})
	}
	wall := make([][]time.Duration, len(vs))
	cpu := make([][]time.Duration, len(vs))
	env := []string{"BB_AGENT_ID=bench-agent"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, v := range vs {
			cmd := bbCmd(v.dir, env, v.args...)
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			wall[k] = append(wall[k], time.Since(t0))
			if err != nil {
				b.Fatalf("bb %v: %v\n%s", v.args, err, out)
			}
			cpu[k] = append(cpu[k], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	b.StopTimer()
	for k, v := range vs {
		slices.Sort(wall[k])
		slices.Sort(cpu[k])
		b.ReportMetric(float64(wall[k][len(wall[k])/2].Microseconds())/1000, v.name+"-ms")
		b.ReportMetric(float64(cpu[k][len(cpu[k])/2].Microseconds())/1000, v.name+"-cpu-ms")
	}
}
