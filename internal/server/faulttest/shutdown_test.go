package faulttest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM under load: bb serve stops accepting, answers every request in
// progress with what was done, closes the event stream and MCP's stream
// cleanly and exits 0 — long before its 10 s drain limit. Every post it
// acknowledged is stored once, and no post it stored was answered as a
// failure or left without an answer.
func TestSIGTERMUnderLoadAnswersEveryCommittedPost(t *testing.T) {
	dir := initBoard(t)
	env := baseEnv(dir)
	srv := startServe(t, dir, env, 30*time.Second)

	// A live event stream and an MCP session's stream: both must end
	// with a clean end of stream.
	streamEnd := follow(t, srv.url+"/api/v1/events/stream", nil)
	mcpEnd := follow(t, srv.url+"/mcp", map[string]string{"Mcp-Session-Id": mcpSession(t, srv.url), "Accept": "text/event-stream"})

	d := newDriver(srv.url, 16, false)
	done := make(chan struct{})
	go func() { d.run(context.Background()); close(done) }()
	d.waitAcked(t, 300, 20*time.Second, "before SIGTERM")

	code, took := srv.stop(t, syscall.SIGTERM, 15*time.Second)
	<-done
	if code != 0 {
		t.Errorf("bb serve exited %d after SIGTERM, want 0", code)
	}
	// Nothing holds the drain up to its limit (the stream is closed at
	// once and posts take milliseconds): bb serve says so on stderr below
	// ("every request answered", not "stopped after the drain limit"),
	// which a loaded machine cannot make true or false by being slow.
	for name, end := range map[string]chan error{"event stream": streamEnd, "MCP stream": mcpEnd} {
		select {
		case err := <-end:
			if !errors.Is(err, io.EOF) {
				t.Errorf("%s ended with %v, want a clean end of stream", name, err)
			}
		case <-time.After(30 * time.Second): // a hang guard, not a measure
			t.Errorf("%s still open after the server exited", name)
		}
	}
	stderr := srv.stderr.String()
	if !strings.Contains(stderr, "stopped: every request answered") {
		t.Errorf("stderr does not say the drain finished:\n%s", stderr)
	}

	db := stored(t, dir, env)
	checkAcknowledged(t, d.out, db)
	erred, unanswered := 0, 0
	for c := range d.out.failed {
		if db[c] > 0 {
			erred++
			t.Errorf("post %q was stored but answered with an error", c)
		}
	}
	for c := range d.out.cut {
		if db[c] > 0 {
			unanswered++
			t.Errorf("post %q was stored but its connection was cut without an answer", c)
		}
	}
	t.Logf("%d posts acknowledged, %d answered with an error (%v), %d cut; %d stored; %d committed-but-errored, %d committed-but-unanswered; stopped in %s",
		len(d.out.acked), len(d.out.failed), d.out.codes, len(d.out.cut), len(db), erred, unanswered, took.Round(time.Millisecond))
}

// follow opens a stream (GET url with headers) and reports how it ended.
func follow(t *testing.T, url string, headers map[string]string) chan error {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	end := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			if _, err := r.ReadString('\n'); err != nil {
				end <- err
				return
			}
		}
	}()
	return end
}

// mcpSession starts an MCP session over streamable HTTP and returns its id.
func mcpSession(t *testing.T, base string) string {
	t.Helper()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"faulttest","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("MCP initialize: %s, session %q", resp.Status, sid)
	}
	if resp := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode/100 != 2 {
		t.Fatalf("MCP initialized: %s", resp.Status)
	}
	return sid
}
