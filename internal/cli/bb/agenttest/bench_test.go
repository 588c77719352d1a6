package agenttest

import (
	"fmt"
	"os/exec"
	"sort"
	"testing"
	"time"
)

// benchProcess runs one bb process per iteration and reports the median
// wall time (ms) and the median CPU time (user+system) of the process
// beside the mean: the machine is shared, so medians are the numbers to
// quote, and CPU time is the least disturbed by other load.
func benchProcess(b *testing.B, setup func(bd *board), args func(i int) []string) {
	bd := newBoard(b)
	setup(bd)
	times := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := args(i)
		cmd := exec.Command(bbPath(), a...)
		cmd.Dir, cmd.Env = bd.dir, bd.env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		times = append(times, time.Since(start))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		if err != nil {
			b.Fatalf("bb %v: %v\n%s", a, err, out)
		}
	}
	b.StopTimer()
	for _, d := range [][]time.Duration{times, cpu} {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	}
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "median-cpu-ms")
}

func registerPair(bd *board) {
	bd.ok("agent", "register", "--name", "sender-1", "--role", "r")
	bd.ok("agent", "register", "--name", "receiver-1", "--role", "r")
}

// BenchmarkAgentSendProcess: one `bb agent send` process (start, open,
// validate, insert message + event, check-in, reply).
func BenchmarkAgentSendProcess(b *testing.B) {
	benchProcess(b, registerPair, func(i int) []string {
		return []string{"--json", "agent", "send", "--from", "sender-1", "--to", "receiver-1", "--bead", "bb-1",
			"--category", "HANDOFF", "--subject", fmt.Sprintf("s%d", i), "--body", "b"}
	})
}

// BenchmarkAgentReserveProcess: one successful `bb agent reserve` process
// (distinct scopes, so every call is a conflict check plus an insert).
func BenchmarkAgentReserveProcess(b *testing.B) {
	benchProcess(b, registerPair, func(i int) []string {
		return []string{"--json", "agent", "reserve", "--agent", "sender-1", "--scope", fmt.Sprintf("src/f%d.go", i), "--bead", "bb-1"}
	})
}

// BenchmarkBaselineProcess is `bb --version`: process start alone, to read
// the two numbers above against on a loaded machine.
func BenchmarkBaselineProcess(b *testing.B) {
	benchProcess(b, func(*board) {}, func(int) []string { return []string{"--version"} })
}

// BenchmarkBoardPostProcess is `bb post`, the board's simplest write, for
// comparison with the bb agent numbers on the same machine and load.
func BenchmarkBoardPostProcess(b *testing.B) {
	benchProcess(b, func(*board) {}, func(i int) []string { return []string{"--as", "poster-1", "post", fmt.Sprintf("m%d", i)} })
}
