package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStdioVsMinimal compares one bb mcp tool call that writes
// (bb_post_message: a post plus the caller's check-in) with the floor: a
// minimal MCP server on the same SDK whose only tool inserts one row into
// a SQLite database in WAL mode (testdata/minimal). Both are real child
// processes over stdio driven by the SDK client; each iteration calls
// both, alternating which goes first, so both see the same load.
// Reported: both medians and bb/minimal, and each server process's CPU
// time (user+system, start-up included) per call.
//
//	go test -run '^$' -bench StdioVsMinimal -benchtime 3000x ./internal/mcp/
func BenchmarkStdioVsMinimal(b *testing.B) {
	dir := b.TempDir()
	minimal := filepath.Join(dir, "minimal")
	if out, err := exec.Command("go", "build", "-o", minimal, "./testdata/minimal").CombinedOutput(); err != nil {
		b.Fatalf("build the minimal server: %v\n%s", err, out)
	}
	ini := exec.Command(bbBin, "init")
	ini.Dir, ini.Env = dir, bbEnv()
	if out, err := ini.CombinedOutput(); err != nil {
		b.Fatalf("bb init: %v %s", err, out)
	}
	bb, bbCmd := startMCP(b, dir, bbEnv(), "--agent", "bench-1")
	ctx := context.Background()
	floorCmd := exec.Command(minimal, filepath.Join(dir, "floor.db"))
	floor, err := sdk.NewClient(&sdk.Implementation{Name: "bb-test", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: floorCmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	bbCall := &sdk.CallToolParams{Name: "bb_post_message", Arguments: map[string]any{"content": "bench post"}}
	floorCall := &sdk.CallToolParams{Name: "insert", Arguments: map[string]any{"text": "bench post"}}
	timed := func(cs *sdk.ClientSession, p *sdk.CallToolParams, into *[]time.Duration) {
		t0 := time.Now()
		r, err := cs.CallTool(ctx, p)
		*into = append(*into, time.Since(t0))
		if err != nil || r.IsError {
			b.Fatalf("%s: %v %v", p.Name, err, r)
		}
	}
	var tBB, tFloor []time.Duration
	for range 20 { // warm up both (bb creates the agent on its first call)
		timed(bb, bbCall, &tBB)
		timed(floor, floorCall, &tFloor)
	}
	tBB, tFloor = tBB[:0], tFloor[:0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			timed(floor, floorCall, &tFloor)
			timed(bb, bbCall, &tBB)
		} else {
			timed(bb, bbCall, &tBB)
			timed(floor, floorCall, &tFloor)
		}
	}
	b.StopTimer()
	closeMCP(b, bb, bbCmd)
	if err := floor.Close(); err != nil {
		b.Fatal(err)
	}
	mBB, mFloor := medianOf(tBB), medianOf(tFloor)
	b.ReportMetric(float64(mFloor.Microseconds()), "minimal-µs")
	b.ReportMetric(float64(mBB.Microseconds()), "bb-µs")
	b.ReportMetric(float64(mBB)/float64(mFloor), "bb/minimal")
	calls := time.Duration(b.N + 20)
	if floorCmd.ProcessState != nil {
		cBB, cFloor := cpuOf(bbCmd.ProcessState)/calls, cpuOf(floorCmd.ProcessState)/calls
		b.ReportMetric(float64(cFloor.Microseconds()), "minimal-cpu-µs")
		b.ReportMetric(float64(cBB.Microseconds()), "bb-cpu-µs")
	}
}

// cpuOf is the user and system CPU time of an exited process.
func cpuOf(ps *os.ProcessState) time.Duration { return ps.UserTime() + ps.SystemTime() }

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
