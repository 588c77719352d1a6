package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rpcReply is one JSON-RPC reply as received; ID keeps the id's exact text.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rawRun feeds input to `bb mcp --agent raw-1` in dir, closes stdin and
// waits for the process to exit; it returns the output lines and the exit
// status.
func rawRun(t *testing.T, dir string, input string) ([]string, int) {
	t.Helper()
	cmd := exec.Command(bbBin, "mcp", "--agent", "raw-1")
	cmd.Dir, cmd.Env = dir, bbEnv()
	cmd.Stdin = strings.NewReader(input)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a hang detector, not a speed assertion
		_ = cmd.Process.Kill()
		t.Fatal("bb mcp did not exit after its input ended")
	}
	var lines []string
	for l := range strings.SplitSeq(out.String(), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, cmd.ProcessState.ExitCode()
}

func initLine(version string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
}

// parseReplies decodes single replies and batch replies (flattened, with
// the batch number in order of arrival in batches).
func parseReplies(t *testing.T, lines []string) (single []rpcReply, batches [][]rpcReply) {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, "[") {
			var b []rpcReply
			if err := json.Unmarshal([]byte(l), &b); err != nil {
				t.Fatalf("bad batch reply %q: %v", l, err)
			}
			batches = append(batches, b)
			continue
		}
		var r rpcReply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not a JSON-RPC reply: %q", l)
		}
		single = append(single, r)
	}
	return single, batches
}

// byID indexes replies by the exact text of their id.
func byID(rs []rpcReply) map[string]rpcReply {
	m := map[string]rpcReply{}
	for _, r := range rs {
		m[string(r.ID)] = r
	}
	return m
}

// TestStdioMalformedLinesKeepTheSession: every malformed line gets a
// JSON-RPC error (-32700 for what is not JSON, -32600 for what is not a
// valid request) and the session goes on; ids are echoed exactly.
func TestStdioMalformedLinesKeepTheSession(t *testing.T) {
	dir := initBoard(t)
	big := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("x", 16<<20) + `"}}`
	input := initLine("2025-06-18") + strings.Join([]string{
		`{not json`,                                            // -32700
		`{"id":10,"method":"ping"}`,                            // no jsonrpc: -32600, id 10
		`{"jsonrpc":"1.0","id":11,"method":"ping"}`,            // wrong jsonrpc: -32600, id 11
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,       // object id: -32600, id null
		"\ufeff" + `{"jsonrpc":"2.0","id":12,"method":"ping"}`, // BOM: accepted
		`{"jsonrpc":"2.0","id":13,"method":"ping"} trailing`,   // trailing garbage: -32700
		`[{"jsonrpc":"2.0","id":14,"method":"ping"}]`,          // batch in 2025-06-18: -32600
		big, // 16 MiB line: -32600
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, // ids echoed exactly
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"s-1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":15,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":16,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":17,"method":"ping"}`, // still alive at the end
	}, "\n") + "\n"
	lines, code := rawRun(t, dir, input)
	if code != 0 {
		t.Fatalf("exit status %d after a clean end of input", code)
	}
	single, batches := parseReplies(t, lines)
	if len(batches) != 0 {
		t.Fatalf("no batch reply expected: %v", batches)
	}
	ids := byID(single)
	wantErr := map[string]int{"10": -32600, "11": -32600, "15": -32600, "16": -32601}
	for id, c := range wantErr {
		if r, ok := ids[id]; !ok || r.Error == nil || r.Error.Code != c {
			t.Errorf("id %s: want error %d, got %+v", id, c, r)
		}
	}
	for _, id := range []string{"0", "12", "1.5", "12345678901234567890", `"s-1"`, "17"} {
		if r, ok := ids[id]; !ok || r.Error != nil || r.Result == nil {
			t.Errorf("id %s: want a result echoed with the exact id, got %+v (all: %v)", id, r, lines)
		}
	}
	// Replies with id null, in order: parse error, object id, trailing
	// garbage, batch refused, line too long.
	var nulls []int
	for _, r := range single {
		if string(r.ID) == "null" {
			nulls = append(nulls, r.Error.Code)
		}
	}
	if fmt.Sprint(nulls) != "[-32700 -32600 -32700 -32600 -32600]" {
		t.Errorf("null-id errors: got %v", nulls)
	}
	if len(single) != 1+len(wantErr)+5+5 {
		t.Errorf("got %d replies, want %d: %v", len(single), 1+len(wantErr)+5+5, lines)
	}
}

// TestStdioBatches: in a protocol version with batches, a batch is
// answered as one array without entries for its notifications; a batch of
// notifications only gets no reply; invalid members get their error in
// place.
func TestStdioBatches(t *testing.T) {
	dir := initBoard(t)
	for _, v := range []string{"2024-11-05", "2025-03-26"} {
		input := initLine(v) + strings.Join([]string{
			`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}},{"jsonrpc":"2.0","id":2.5,"method":"tools/list"}]`,
			`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}}]`,
			`[1,{"jsonrpc":"2.0","id":"c","method":"ping"}]`,
			`[]`,
			`{"jsonrpc":"2.0","id":"end","method":"ping"}`,
		}, "\n") + "\n"
		lines, code := rawRun(t, dir, input)
		if code != 0 {
			t.Fatalf("%s: exit status %d", v, code)
		}
		single, batches := parseReplies(t, lines)
		if len(batches) != 2 {
			t.Fatalf("%s: want 2 batch replies, got %d lines", v, len(lines))
		}
		// Batches are answered when complete: in any order.
		if len(batches[0]) == 2 && string(batches[0][0].ID) == "null" {
			batches[0], batches[1] = batches[1], batches[0]
		}
		b0 := byID(batches[0])
		if len(batches[0]) != 2 || b0[`"a"`].Result == nil || b0["2.5"].Result == nil {
			t.Errorf("%s: first batch: want replies to \"a\" and 2.5 only, got %d", v, len(batches[0]))
		}
		if len(batches[1]) != 2 || batches[1][0].Error == nil || batches[1][0].Error.Code != -32600 || string(batches[1][1].ID) != `"c"` {
			t.Errorf("%s: mixed batch: %+v", v, batches[1])
		}
		ids := byID(single)
		if r := ids["null"]; r.Error == nil || r.Error.Code != -32600 {
			t.Errorf("%s: empty batch must be -32600: %v", v, lines)
		}
		if ids[`"end"`].Result == nil || len(single) != 3 {
			t.Errorf("%s: want replies to initialize, the empty batch and end: %v", v, lines)
		}
	}
}

// TestStdioBeforeInitialize: a request before initialize gets -32600 with
// its id; ping is allowed.
func TestStdioBeforeInitialize(t *testing.T) {
	dir := initBoard(t)
	lines, code := rawRun(t, dir, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	single, _ := parseReplies(t, lines)
	ids := byID(single)
	if r := ids["1"]; r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "initialize") {
		t.Errorf("tools/list before initialize: %v", lines)
	}
	if ids["2"].Result == nil {
		t.Errorf("ping before initialize: %v", lines)
	}
}

// TestStdioEndOfInputAnswersEverything: 300 pipelined posts followed by
// the end of input are all answered and committed, and the exit status is
// 0; the docs promise that `printf … | bb mcp` answers every request.
func TestStdioEndOfInputAnswersEverything(t *testing.T) {
	dir := initBoard(t)
	var in strings.Builder
	in.WriteString(initLine("2025-06-18"))
	const n = 300
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bb_post_message","arguments":{"content":"p%d"}}}`+"\n", i, i)
	}
	lines, code := rawRun(t, dir, in.String())
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	single, _ := parseReplies(t, lines)
	ids := byID(single)
	for i := 1; i <= n; i++ {
		r := ids[fmt.Sprint(i)]
		if r.Result == nil || strings.Contains(string(r.Result), `"isError":true`) {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
	// Committed: the newest message on the board is the 300th.
	var log struct {
		Data []struct {
			ID int `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(runBB(t, dir, bbEnv(), "log", "--json", "--limit", "1")), &log); err != nil || len(log.Data) != 1 || log.Data[0].ID != n {
		t.Fatalf("want message %d committed, got %+v (%v)", n, log.Data, err)
	}
}

// TestStdioAbnormalEndExitsNonZero: when stdout is gone the server cannot
// answer; it must not report success.
func TestStdioAbnormalEndExitsNonZero(t *testing.T) {
	dir := initBoard(t)
	cmd := exec.Command(bbBin, "mcp", "--agent", "raw-1")
	cmd.Dir, cmd.Env = dir, bbEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = stdout.Close() // the client went away
	_, _ = stdin.Write([]byte(initLine("2025-06-18")))
	_ = stdin.Close()
	err = cmd.Wait()
	if err == nil || cmd.ProcessState.Success() {
		t.Fatalf("bb mcp must exit non-zero when it cannot write its replies, got %v", cmd.ProcessState)
	}
}
