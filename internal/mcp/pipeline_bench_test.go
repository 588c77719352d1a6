package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The pipelining benchmarks compare, in one interleaved run, the per-call
// latency of tool calls sent one at a time (sequential: send, wait for the
// reply, send the next) with calls sent without waiting (pipelined: all
// written at once on stdio; concurrent POSTs over HTTP). They report both
// and the ratio pipelined/sequential: ≤ 1 means a call costs no more when
// the client does not wait. Each round is `round` calls of each kind; the
// call is bb_post_message (a write transaction plus the check-in).
//
//	go test ./internal/mcp -run '^$' -bench 'Pipeline' -benchtime 10x
const round = 50

func postLine(id int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bb_post_message","arguments":{"content":"bench %d"}}}`+"\n", id, id)
}

func reportRatio(b *testing.B, seq, pipe time.Duration, calls int) {
	s := float64(seq.Microseconds()) / float64(calls)
	p := float64(pipe.Microseconds()) / float64(calls)
	b.ReportMetric(s, "seq-µs/call")
	b.ReportMetric(p, "pipe-µs/call")
	b.ReportMetric(p/s, "pipe/seq")
}

func BenchmarkStdioPipeline(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command(bbBin, "init", "--dir", dir).CombinedOutput(); err != nil {
		b.Fatalf("bb init: %v %s", err, out)
	}
	cmd := exec.Command(bbBin, "mcp", "--agent", "bench-1")
	cmd.Dir, cmd.Env = dir, bbEnv()
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	out := bufio.NewReaderSize(outPipe, 1<<20)
	readReply := func() {
		line, err := out.ReadBytes('\n')
		if err != nil || !bytes.Contains(line, []byte(`"result"`)) || bytes.Contains(line, []byte(`"isError":true`)) {
			b.Fatalf("reply %q: %v", line, err)
		}
	}
	_, _ = io.WriteString(in, initLine("2025-06-18"))
	readReply()
	id := 1
	var seq, pipe time.Duration
	var seqCPU, pipeCPU int64
	pid := cmd.Process.Pid
	b.ResetTimer()
	for range b.N {
		c0, _ := cpuTicks(pid)
		start := time.Now()
		for range round {
			_, _ = in.Write(postLine(id))
			id++
			readReply()
		}
		seq += time.Since(start)
		c1, _ := cpuTicks(pid)
		seqCPU += c1 - c0

		var buf bytes.Buffer
		for range round {
			buf.Write(postLine(id))
			id++
		}
		start = time.Now()
		go func(p []byte) { _, _ = in.Write(p) }(buf.Bytes())
		for range round {
			readReply()
		}
		pipe += time.Since(start)
		c2, _ := cpuTicks(pid)
		pipeCPU += c2 - c1
	}
	b.StopTimer()
	reportRatio(b, seq, pipe, b.N*round)
	// The server's CPU time per call in each mode (clock ticks of 10 ms,
	// summed over the run): what a call costs the server, whatever the load.
	b.ReportMetric(float64(seqCPU)*10000/float64(b.N*round), "seq-server-cpu-µs/call")
	b.ReportMetric(float64(pipeCPU)*10000/float64(b.N*round), "pipe-server-cpu-µs/call")
}

func BenchmarkHTTPPipeline(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command(bbBin, "init", "--dir", dir).CombinedOutput(); err != nil {
		b.Fatalf("bb init: %v %s", err, out)
	}
	serve := exec.Command(bbBin, "--json", "serve", "--addr", "127.0.0.1:0")
	serve.Dir, serve.Env = dir, bbEnv()
	stdout, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = serve.Process.Signal(syscall.SIGINT); _ = serve.Wait() }()
	var started struct {
		Data struct {
			MCP string `json:"mcp"`
		} `json:"data"`
	}
	if err := json.NewDecoder(stdout).Decode(&started); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: round}}
	post := func(sid string, body []byte) (string, []byte) {
		req, _ := http.NewRequest(http.MethodPost, started.Data.MCP, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(AgentHeader, "bench-1")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return "", nil
		}
		defer resp.Body.Close()
		rb, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			b.Errorf("%d %s", resp.StatusCode, rb)
		}
		return resp.Header.Get("Mcp-Session-Id"), rb
	}
	sid, _ := post("", []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`))
	post(sid, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	check := func(rb []byte) {
		if !bytes.Contains(rb, []byte(`"result"`)) || bytes.Contains(rb, []byte(`"isError":true`)) {
			b.Errorf("reply %s", rb)
		}
	}
	id := 1
	var seq, pipe time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		for range round {
			_, rb := post(sid, bytes.TrimSpace(postLine(id)))
			id++
			check(rb)
		}
		seq += time.Since(start)

		start = time.Now()
		var wg sync.WaitGroup
		for range round {
			body := bytes.TrimSpace(postLine(id))
			id++
			wg.Go(func() { _, rb := post(sid, body); check(rb) })
		}
		wg.Wait()
		pipe += time.Since(start)
	}
	b.StopTimer()
	reportRatio(b, seq, pipe, b.N*round)
}
