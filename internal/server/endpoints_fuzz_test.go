package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// fuzzEndpoints are the request bodies the server reads: every POST of the
// API, the dashboard's forms and MCP.
var fuzzEndpoints = []struct {
	path, contentType string
	envelope          bool
}{
	{"/api/v1/status", "application/json", true},
	{"/api/v1/status/clear", "application/json", true},
	{"/api/v1/messages", "application/json", true},
	{"/api/v1/artifacts", "application/json", true},
	{"/api/v1/command", "application/json", true},
	{"/api/v1/rpc/Post", "application/json", true},
	{"/api/v1/rpc/Reserve", "application/json", true},
	{"/api/v1/rpc/Push", "application/json", true},
	{"/ui/post", "application/x-www-form-urlencoded", false},
	{"/ui/identity", "application/x-www-form-urlencoded", false},
	{"/ui/read/1", "application/x-www-form-urlencoded", false},
	{"/ui/ack/1", "application/x-www-form-urlencoded", false},
	{"/mcp", "application/json", false},
}

// FuzzEndpointBodies: whatever the body of whichever endpoint, the server
// answers below 500, an API endpoint answers with the JSON envelope, and no
// reply shows a Go-internal message.
func FuzzEndpointBodies(f *testing.F) {
	for i := range fuzzEndpoints {
		for _, s := range []string{``, `{}`, `{"content":"hi"}`, `{"args":["log"]}`, `{"status":"coding","progress":200}`,
			`content=hi&priority=high`, `agent=amber-otter`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `[`, "\xff\xfe", `{"path":"../x"}`} {
			f.Add(uint8(i), s)
		}
	}
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		ep := fuzzEndpoints[int(which)%len(fuzzEndpoints)]
		r, _ := http.NewRequest("POST", e.http.URL+ep.path, strings.NewReader(body))
		r.Header.Set("Content-Type", ep.contentType)
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("X-BB-Agent", "fuzz-agent")
		resp, err := e.http.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %q: %d %s", ep.path, body, resp.StatusCode, b)
		}
		for _, internal := range []string{"strconv.", "http: ", "runtime error", "goroutine ", "(SQLSTATE", "sql: "} {
			if strings.Contains(string(b), internal) {
				t.Fatalf("%s %q: Go internals in the reply: %s", ep.path, body, b)
			}
		}
		if ep.envelope {
			var env struct {
				OK    *bool           `json:"ok"`
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(b, &env); err != nil || env.OK == nil {
				t.Fatalf("%s %q: not an envelope: %d %s", ep.path, body, resp.StatusCode, b)
			}
		}
	})
}
