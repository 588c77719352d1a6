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
// each server once, rotating which goes first, so all see the same load.
// Reported: the medians, bb/minimal, and each server process's CPU time
// (user+system, start-up included) per call.
//
// With BB_BENCH_BASELINE naming another bb binary (say, one built from
// main), that binary runs too, on a board of its own, and is reported as
// base-µs, base/minimal and base-cpu-µs: a before/after in one run.
//
//	go test -run '^$' -bench StdioVsMinimal -benchtime 3000x ./internal/mcp/
func BenchmarkStdioVsMinimal(b *testing.B) {
	dir := b.TempDir()
	minimal := filepath.Join(dir, "minimal")
	if out, err := exec.Command("go", "build", "-o", minimal, "./testdata/minimal").CombinedOutput(); err != nil {
		b.Fatalf("build the minimal server: %v\n%s", err, out)
	}
	ctx := context.Background()
	type server struct {
		name string
		cs   *sdk.ClientSession
		cmd  *exec.Cmd
		call *sdk.CallToolParams
		t    []time.Duration
	}
	bbServer := func(name, bin string) *server {
		board := filepath.Join(dir, name)
		if err := os.Mkdir(board, 0o755); err != nil {
			b.Fatal(err)
		}
		ini := exec.Command(bin, "init")
		ini.Dir, ini.Env = board, bbEnv()
		if out, err := ini.CombinedOutput(); err != nil {
			b.Fatalf("%s init: %v %s", bin, err, out)
		}
		cmd := exec.Command(bin, "mcp", "--agent", "bench-1")
		cmd.Dir, cmd.Env = board, bbEnv()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bb-test", Version: "1"}, nil).
			Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
		if err != nil {
			b.Fatalf("connect to %s mcp: %v", bin, err)
		}
		return &server{name: name, cs: cs, cmd: cmd,
			call: &sdk.CallToolParams{Name: "bb_post_message", Arguments: map[string]any{"content": "bench post"}}}
	}
	floorCmd := exec.Command(minimal, filepath.Join(dir, "floor.db"))
	floor, err := sdk.NewClient(&sdk.Implementation{Name: "bb-test", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: floorCmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	servers := []*server{{name: "minimal", cs: floor, cmd: floorCmd,
		call: &sdk.CallToolParams{Name: "insert", Arguments: map[string]any{"text": "bench post"}}}, bbServer("bb", bbBin)}
	if base := os.Getenv("BB_BENCH_BASELINE"); base != "" {
		servers = append(servers, bbServer("base", base))
	}
	timed := func(s *server) {
		t0 := time.Now()
		r, err := s.cs.CallTool(ctx, s.call)
		s.t = append(s.t, time.Since(t0))
		if err != nil || r.IsError {
			b.Fatalf("%s: %v %v", s.name, err, r)
		}
	}
	const warmUp = 20 // bb creates the agent on its first call
	for range warmUp {
		for _, s := range servers {
			timed(s)
		}
	}
	for _, s := range servers {
		s.t = s.t[:0]
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range servers {
			timed(servers[(i+j)%len(servers)])
		}
	}
	b.StopTimer()
	for _, s := range servers {
		if err := s.cs.Close(); err != nil {
			b.Fatalf("closing %s: %v", s.name, err)
		}
	}
	floorMedian := medianOf(servers[0].t)
	for _, s := range servers {
		m := medianOf(s.t)
		b.ReportMetric(float64(m.Microseconds()), s.name+"-µs")
		if s.name != "minimal" {
			b.ReportMetric(float64(m)/float64(floorMedian), s.name+"/minimal")
		}
		if s.cmd.ProcessState != nil {
			cpu := s.cmd.ProcessState.UserTime() + s.cmd.ProcessState.SystemTime()
			b.ReportMetric(float64((cpu / time.Duration(b.N+warmUp)).Microseconds()), s.name+"-cpu-µs")
		}
	}
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
