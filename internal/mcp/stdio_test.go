package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/testkit"
)

// bbBin is the real bb binary, built once for this package's tests.
var bbBin string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb"}, Built: func(dir string) { bbBin = filepath.Join(dir, "bb") }})
}

// bbEnv is a clean environment for the binary (no inherited BB_*).
func bbEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BB_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// runBB runs the CLI in dir and returns stdout; it fails the test on a
// non-zero exit.
func runBB(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bbBin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("bb %v: %v\nstdout: %s\nstderr: %s", args, err, out.String(), errb.String())
	}
	return out.String()
}

func initBoard(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runBB(t, dir, bbEnv(), "init")
	return dir
}

// startMCP starts `bb mcp args…` in dir and connects the SDK client to it.
func startMCP(t testing.TB, dir string, env []string, args ...string) (*sdk.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bbBin, append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bb-test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to bb mcp: %v (stderr: %s)", err, stderr.String())
	}
	return cs, cmd
}

// closeMCP closes stdin and checks that the server exited 0 by itself.
func closeMCP(t testing.TB, cs *sdk.ClientSession, cmd *exec.Cmd) {
	t.Helper()
	if err := cs.Close(); err != nil {
		t.Fatalf("closing the session: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("bb mcp did not exit 0 after stdin closed: %v", cmd.ProcessState)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("bb mcp had to be killed: %v", ws.Signal())
	}
}

func TestStdioRoundTripWithCLI(t *testing.T) {
	dir := initBoard(t)
	cs, cmd := startMCP(t, dir, bbEnv(), "--agent", "claude-1")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) < 10 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	if init := cs.InitializeResult(); init.ServerInfo.Name != "blackboard" || init.Capabilities.Tools == nil {
		t.Fatalf("initialize: %+v", init)
	}

	// MCP → CLI.
	ok(t, cs, "bb_post_message", map[string]any{"content": "posted over MCP", "tags": []string{"mcp"}})
	var log struct {
		Data []struct {
			FromAgent string   `json:"from_agent"`
			Content   string   `json:"content"`
			Tags      []string `json:"tags"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(runBB(t, dir, bbEnv(), "log", "--json")), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Data) != 1 || log.Data[0].FromAgent != "claude-1" || log.Data[0].Content != "posted over MCP" || log.Data[0].Tags[0] != "mcp" {
		t.Fatalf("bb log after MCP post: %+v", log)
	}

	// CLI → MCP (and the notice that comes with it).
	runBB(t, dir, bbEnv(), "--as", "codex-2", "post", "posted from the CLI", "--priority", "high")
	r := callTool(t, cs, "bb_read_messages", map[string]any{"from_agent": "codex-2"})
	msgs := ok(t, cs, "bb_read_messages", map[string]any{"from_agent": "codex-2"})["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["content"] != "posted from the CLI" || msgs[0].(map[string]any)["priority"] != "high" {
		t.Fatalf("MCP read after CLI post: %v", msgs)
	}
	if !strings.Contains(text(r), "notice: 1 unread board post") {
		t.Fatalf("the CLI post must be noticed: %q", text(r))
	}

	// Status set over MCP is what bb status shows.
	ok(t, cs, "bb_set_status", map[string]any{"current_task": "wire MCP", "status": "coding", "progress": 50})
	out := runBB(t, dir, bbEnv(), "status", "--json")
	if !strings.Contains(out, `"current_task": "wire MCP"`) {
		t.Fatalf("bb status after MCP set_status: %s", out)
	}
	closeMCP(t, cs, cmd)
}

func TestStdioIdentityPrecedence(t *testing.T) {
	dir := initBoard(t)
	post := func(env []string, args ...string) string {
		cs, cmd := startMCP(t, dir, env, args...)
		defer closeMCP(t, cs, cmd)
		return ok(t, cs, "bb_post_message", map[string]any{"content": "who am I"})["from_agent"].(string)
	}
	if got := post(bbEnv("BB_AGENT_ID=env-1"), "--agent", "flag-1"); got != "flag-1" {
		t.Errorf("--agent > BB_AGENT_ID: got %s", got)
	}
	if got := post(bbEnv("BB_AGENT_ID=env-1")); got != "env-1" {
		t.Errorf("BB_AGENT_ID: got %s", got)
	}
	cs, cmd := startMCP(t, dir, bbEnv())
	fail(t, cs, "bb_post_message", map[string]any{"content": "x"}, "IDENTITY_REQUIRED")
	ok(t, cs, "bb_identify", map[string]any{"agent_id": "late-1"})
	if got := ok(t, cs, "bb_post_message", map[string]any{"content": "x"})["from_agent"]; got != "late-1" {
		t.Errorf("bb_identify: got %v", got)
	}
	closeMCP(t, cs, cmd)

	// An invalid fixed identity is refused at start (exit 1, stderr).
	bad := exec.Command(bbBin, "mcp", "--agent", "bad id")
	bad.Dir, bad.Env = dir, bbEnv()
	var stderr bytes.Buffer
	bad.Stderr = &stderr
	if err := bad.Run(); bad.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "INVALID_IDENTITY") {
		t.Fatalf("bb mcp --agent 'bad id': %v %q", err, stderr.String())
	}
}

func TestStdioNotInitializedThenInit(t *testing.T) {
	dir := t.TempDir()
	cs, cmd := startMCP(t, dir, bbEnv(), "--agent", "claude-1")
	msg := fail(t, cs, "bb_summary", nil, "NOT_INITIALIZED")
	if !strings.Contains(msg, "bb init") {
		t.Fatalf("hint: %q", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, ".bb")); err == nil {
		t.Fatal("bb mcp must never create the board")
	}
	runBB(t, dir, bbEnv(), "init")
	ok(t, cs, "bb_summary", nil)
	closeMCP(t, cs, cmd)
}

// rawSession runs bb mcp with the given input lines and returns its
// output lines once it has exited by itself (stdin closed after the input).
func rawSession(t *testing.T, dir string, lines ...string) []string {
	t.Helper()
	out, code := rawRun(t, dir, strings.Join(lines, "\n")+"\n")
	if code != 0 {
		t.Fatalf("bb mcp exited with status %d", code)
	}
	return out
}

const initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestStdioRawProtocol(t *testing.T) {
	dir := initBoard(t)
	out := rawSession(t, dir,
		initReq,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bb_post_message","arguments":{"content":"raw"}}}`,
	)
	// One reply per request, none for the notification, and the call made
	// just before stdin closed was answered and committed.
	ids := map[float64]json.RawMessage{}
	for _, l := range out {
		var r struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not JSON-RPC: %q", l)
		}
		if r.Error != nil {
			t.Fatalf("error reply: %s", l)
		}
		ids[r.ID] = r.Result
	}
	if len(out) != 3 || ids[1] == nil || ids[2] == nil || ids[3] == nil {
		t.Fatalf("want replies to ids 1,2,3 only, got %d lines: %v", len(out), out)
	}
	if !strings.Contains(string(ids[1]), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize reply: %s", ids[1])
	}
	if !strings.Contains(runBB(t, dir, bbEnv(), "log", "--json"), `"content": "raw"`) {
		t.Fatal("the last call before end of input was not committed")
	}
}

func TestStdioSignalShutdown(t *testing.T) {
	dir := initBoard(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cs, cmd := startMCP(t, dir, bbEnv(), "--agent", "sig-1")
		ok(t, cs, "bb_post_message", map[string]any{"content": "before " + sig.String()})
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_ = cs.Close()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
			t.Fatalf("%v: bb mcp must exit 0, got %v", sig, cmd.ProcessState)
		}
	}
}

// BenchmarkStdioToolCall measures one tool call (bb_get_status by an
// identified agent: a read plus the check-in write) through a running
// `bb mcp` over stdio. Run with -benchtime=10000x; it reports the median
// and p99 latency and the server's resident memory.
func BenchmarkStdioToolCall(b *testing.B) {
	dir := b.TempDir()
	init := exec.Command(bbBin, "init")
	init.Dir, init.Env = dir, bbEnv()
	if out, err := init.CombinedOutput(); err != nil {
		b.Fatalf("bb init: %v %s", err, out)
	}
	cs, cmd := startMCP(b, dir, bbEnv(), "--agent", "bench-1")
	defer closeMCP(b, cs, cmd)
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "bb_get_status", Arguments: map[string]any{"agent_id": "bench-1"}}
	if _, err := cs.CallTool(ctx, params); err != nil { // warm up (creates the agent)
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	cpu0, _ := cpuTicks(cmd.Process.Pid)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := cs.CallTool(ctx, params)
		lat = append(lat, time.Since(start))
		if err != nil || r.IsError {
			b.Fatalf("call %d: %v %v", i, err, r)
		}
	}
	b.StopTimer()
	if cpu1, err := cpuTicks(cmd.Process.Pid); err == nil {
		// Server CPU time per call: what the call costs, whatever the load.
		b.ReportMetric(float64(cpu1-cpu0)*10000/float64(b.N), "server-cpu-µs/op")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "median-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	if rss, err := vmRSS(cmd.Process.Pid); err == nil {
		b.ReportMetric(float64(rss)/1024, "server-RSS-MB")
	}
}

// cpuTicks reads the user+system CPU time of pid in clock ticks (1/100 s).
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var u, k int64
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat")
	}
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &k)
	return u + k, nil
}

// vmRSS reads the resident set size (KiB) of pid from /proc.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int64
			_, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d kB", &kb)
			return kb, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

// TestStdioRemoteBoard: with BB_SERVER, bb mcp acts on a bb serve's board
// (an agent on another machine), not on a local one.
func TestStdioRemoteBoard(t *testing.T) {
	board := initBoard(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.Command(bbBin, "--dir", board, "-q", "serve", "--addr", addr)
	srv.Env = bbEnv()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() })
	for i := 0; ; i++ { // wait for the listener (hang detector, not a speed assertion)
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 500 {
			t.Fatalf("bb serve did not listen on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	elsewhere := t.TempDir() // no board here
	cs, cmd := startMCP(t, elsewhere, bbEnv("BB_SERVER=http://"+addr), "--agent", "remote-1")
	ok(t, cs, "bb_post_message", map[string]any{"content": "from another machine"})
	ok(t, cs, "bb_reserve", map[string]any{"scope": "src/*", "bead": "t-1"})
	if chk := ok(t, cs, "bb_check_scope", map[string]any{"scope": "src/a.go"}); chk["held"] != true {
		t.Fatalf("check_scope over the remote API: %v", chk)
	}
	closeMCP(t, cs, cmd)
	if out := runBB(t, board, bbEnv(), "log", "--json"); !strings.Contains(out, `"content": "from another machine"`) || !strings.Contains(out, `"from_agent": "remote-1"`) {
		t.Fatalf("the post must be on the served board: %s", out)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ".bb")); err == nil {
		t.Fatal("no local board may be created")
	}
}
