package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/blackboard-hub/bb/internal/server"
)

func TestAPIBoardRoundTrip(t *testing.T) {
	e := newEnv(t)
	var ag map[string]any
	env := e.ok(req{method: "POST", path: "/api/v1/status", agent: "alice", body: `{"task":"Parser","status":"coding","progress":40}`}, &ag)
	if env.Command != "status set" || ag["id"] != "alice" || ag["status"] != "coding" || ag["progress"].(float64) != 40 {
		t.Fatalf("status set: %s %v", env.Command, ag)
	}
	if env.Notices == nil {
		t.Fatalf("identified caller got no notices")
	}
	var board []map[string]any
	e.ok(req{path: "/api/v1/status"}, &board)
	if len(board) != 1 || board[0]["liveness"] != "active" || board[0]["current_task"] != "Parser" {
		t.Fatalf("board: %v", board)
	}
	var one map[string]any
	e.ok(req{path: "/api/v1/status/alice"}, &one)
	if one["id"] != "alice" {
		t.Fatalf("status get: %v", one)
	}

	var m1, m2 map[string]any
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":"hello","tags":["parser"],"priority":"high","refs":["gh:issue:42"]}`}, &m1)
	if m1["id"].(float64) != 1 || m1["from_agent"] != "alice" || m1["priority"] != "high" {
		t.Fatalf("post: %v", m1)
	}
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "bob", body: `{"content":"reply","reply_to":1}`}, &m2)
	if m2["in_reply_to"].(float64) != 1 {
		t.Fatalf("reply: %v", m2)
	}
	var log []map[string]any
	env = e.ok(req{path: "/api/v1/messages?tag=parser"}, &log)
	if env.Command != "log" || len(log) != 1 || log[0]["content"] != "hello" {
		t.Fatalf("log: %v", log)
	}
	var thread []map[string]any
	e.ok(req{path: "/api/v1/messages/1"}, &thread)
	if len(thread) != 2 || thread[1]["content"] != "reply" {
		t.Fatalf("thread: %v", thread)
	}

	var art map[string]any
	e.ok(req{method: "POST", path: "/api/v1/artifacts", agent: "alice", body: `{"path":"docs/a.md","description":"API doc","version":"v2","refs":["gh:issue:42"]}`}, &art)
	if art["path"] != "docs/a.md" || art["produced_by"] != "alice" || art["version"] != "v2" {
		t.Fatalf("artifact add: %v", art)
	}
	var arts []map[string]any
	e.ok(req{path: "/api/v1/artifacts?by=alice"}, &arts)
	if len(arts) != 1 {
		t.Fatalf("artifacts: %v", arts)
	}
	e.ok(req{path: "/api/v1/artifacts/docs/a.md"}, &art)
	if art["description"] != "API doc" {
		t.Fatalf("artifact show: %v", art)
	}
	var refs map[string]json.RawMessage
	e.ok(req{path: "/api/v1/refs/gh:issue:42"}, &refs)
	if !strings.Contains(string(refs["messages"]), `"hello"`) || !strings.Contains(string(refs["artifacts"]), "docs/a.md") {
		t.Fatalf("refs: %s %s", refs["messages"], refs["artifacts"])
	}
	var evs []map[string]any
	e.ok(req{path: "/api/v1/events?type=message.posted"}, &evs)
	if len(evs) != 2 || evs[0]["type"] != "message.posted" {
		t.Fatalf("events: %v", evs)
	}
	e.ok(req{path: "/api/v1/events?after=3&limit=1"}, &evs)
	if len(evs) != 1 || evs[0]["seq"].(float64) != 4 {
		t.Fatalf("events after: %v", evs)
	}
	var sum map[string]any
	e.ok(req{path: "/api/v1/summary"}, &sum)
	if len(sum["active_agents"].([]any)) != 2 || sum["last_event_seq"].(float64) < 4 {
		t.Fatalf("summary: %v", sum)
	}
	e.ok(req{method: "POST", path: "/api/v1/status/clear", agent: "alice"}, &ag)
	if ag["status"] != "idle" {
		t.Fatalf("status clear: %v", ag)
	}
	resp := e.raw(req{path: "/api/v1/export"})
	var x map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&x); err != nil || x["messages"] == nil || x["events"] == nil {
		t.Fatalf("export: %v %v", err, x)
	}
	resp.Body.Close()
}

// The API's data equals what bb --json prints for the same board.
func TestAPIMatchesCLIJSON(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "--as", "alice", "post", "same shape", "--tag", "t1", "--ref", "gh:pr:7")
	cli := run(t, e.dir, "--json", "log")
	var cliEnv envelope
	if err := json.Unmarshal([]byte(cli), &cliEnv); err != nil {
		t.Fatal(err)
	}
	apiEnv := e.ok(req{path: "/api/v1/messages"}, nil)
	if string(compact(t, cliEnv.Data)) != string(compact(t, apiEnv.Data)) || cliEnv.Command != apiEnv.Command {
		t.Fatalf("cli %s %s\napi %s %s", cliEnv.Command, cliEnv.Data, apiEnv.Command, apiEnv.Data)
	}
}

func compact(t *testing.T, b []byte) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

func TestAPIErrors(t *testing.T) {
	e := newEnv(t)
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":"one"}`}, nil)
	big := `{"content":"` + strings.Repeat("x", server.MaxBodyBytes) + `"}`
	cases := []struct {
		name   string
		r      req
		status int
		code   string
		field  string
	}{
		{"empty content", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":"  "}`}, 400, "INVALID_INPUT", "content"},
		{"bad priority", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":"x","priority":"urgent"}`}, 400, "INVALID_INPUT", "priority"},
		{"bad ref", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":"x","refs":["nope"]}`}, 400, "INVALID_REF_FORMAT", ""},
		{"unknown field", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"contnt":"x"}`}, 400, "INVALID_INPUT", "contnt"},
		{"wrong type", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":5}`}, 400, "INVALID_INPUT", "content"},
		{"not json", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":`}, 400, "INVALID_INPUT", ""},
		{"two values", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":"x"} {}`}, 400, "INVALID_INPUT", ""},
		{"no content type", req{method: "POST", path: "/api/v1/messages", agent: "a", header: map[string]string{"Content-Type": "text/plain"}, body: `{"content":"x"}`}, 400, "INVALID_INPUT", ""},
		{"too large", req{method: "POST", path: "/api/v1/messages", agent: "a", body: big}, 413, "INVALID_INPUT", ""},
		{"bad agent header", req{path: "/api/v1/status", agent: "has space"}, 400, "INVALID_IDENTITY", ""},
		{"reply-to missing", req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":"x","reply_to":99}`}, 404, "NOT_FOUND", ""},
		{"thread missing", req{path: "/api/v1/messages/99"}, 404, "NOT_FOUND", ""},
		{"thread bad id", req{path: "/api/v1/messages/abc"}, 400, "INVALID_INPUT", "id"},
		{"status missing", req{path: "/api/v1/status/nobody"}, 404, "NOT_FOUND", ""},
		{"status set no task", req{method: "POST", path: "/api/v1/status", agent: "a", body: `{}`}, 400, "INVALID_INPUT", "task"},
		{"status bad progress", req{method: "POST", path: "/api/v1/status", agent: "a", body: `{"task":"t","progress":101}`}, 400, "INVALID_INPUT", "progress"},
		{"artifact traversal", req{method: "POST", path: "/api/v1/artifacts", agent: "a", body: `{"path":"../x","description":"d"}`}, 400, "PATH_TRAVERSAL", "path"},
		{"artifact missing", req{path: "/api/v1/artifacts/none.md"}, 404, "NOT_FOUND", ""},
		{"bad limit", req{path: "/api/v1/messages?limit=-1"}, 400, "INVALID_INPUT", "limit"},
		{"bad since", req{path: "/api/v1/messages?since=forever"}, 400, "INVALID_INPUT", ""},
		{"bad after", req{path: "/api/v1/events?after=x"}, 400, "INVALID_INPUT", "after"},
		{"bad ref query", req{path: "/api/v1/refs/nope"}, 400, "INVALID_REF_FORMAT", ""},
		{"unknown endpoint", req{path: "/api/v1/nothing"}, 404, "NOT_FOUND", ""},
		{"wrong method", req{method: "DELETE", path: "/api/v1/messages"}, 404, "NOT_FOUND", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, env := e.do(c.r)
			if status != c.status || env.OK || env.Error == nil || env.Error.Code != c.code {
				t.Fatalf("got %d %+v %+v, want %d %s", status, env, env.Error, c.status, c.code)
			}
			if c.field != "" && env.Error.Field != c.field {
				t.Fatalf("field %q, want %q (%s)", env.Error.Field, c.field, env.Error.Message)
			}
			if env.Error.Message == "" || strings.Contains(env.Error.Message, "sql") {
				t.Fatalf("bad message %q", env.Error.Message)
			}
		})
	}
	// Nothing was written by any failing request.
	var log []map[string]any
	e.ok(req{path: "/api/v1/messages"}, &log)
	if len(log) != 1 {
		t.Fatalf("failed requests wrote messages: %v", log)
	}
}

func TestAPIIdempotency(t *testing.T) {
	e := newEnv(t)
	h := map[string]string{server.RequestIDHeader: "req-1"}
	var a, b map[string]any
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "alice", header: h, body: `{"content":"once"}`}, &a)
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "alice", header: h, body: `{"content":"once"}`}, &b)
	if a["uuid"] != b["uuid"] {
		t.Fatalf("retry made a new message: %v %v", a, b)
	}
	status, env := e.do(req{method: "POST", path: "/api/v1/status", agent: "alice", header: h, body: `{"task":"t"}`})
	if status != http.StatusConflict || env.Error.Code != "IDEMPOTENCY_KEY_COLLISION" {
		t.Fatalf("collision: %d %+v", status, env.Error)
	}
	var log []map[string]any
	e.ok(req{path: "/api/v1/messages"}, &log)
	if len(log) != 1 {
		t.Fatalf("messages: %d", len(log))
	}
}

// Concurrent posts go through the group committer: every request gets its
// own message, numbers are unique and nothing is lost.
func TestAPIConcurrentPosts(t *testing.T) {
	e := newEnv(t)
	const clients, each = 20, 10
	var wg sync.WaitGroup
	seen := make(chan float64, clients*each)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				body := `{"content":"m"}`
				if i == 3 {
					body = `{"content":"bad","reply_to":100000}` // fails alone
				}
				status, env := e.do(req{method: "POST", path: "/api/v1/messages", agent: "agent-" + string(rune('a'+c)), body: body})
				if i == 3 {
					if status != 404 {
						t.Errorf("bad reply-to: %d", status)
					}
					continue
				}
				if status != 200 || env.Notices == nil {
					t.Errorf("post: %d %+v", status, env.Error)
					continue
				}
				var m map[string]any
				_ = json.Unmarshal(env.Data, &m)
				seen <- m["id"].(float64)
			}
		}(c)
	}
	wg.Wait()
	close(seen)
	ids := map[float64]bool{}
	for id := range seen {
		if ids[id] {
			t.Fatalf("duplicate id %v", id)
		}
		ids[id] = true
	}
	if len(ids) != clients*(each-1) {
		t.Fatalf("got %d messages, want %d", len(ids), clients*(each-1))
	}
	var evs []map[string]any
	e.ok(req{path: "/api/v1/events?type=message.posted&limit=1000"}, &evs)
	if len(evs) != clients*(each-1) {
		t.Fatalf("events: %d", len(evs))
	}
}

// POST /api/v1/command runs any board command and replies exactly what
// bb --json prints.
func TestAPICommand(t *testing.T) {
	e := newEnvWithCommands(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	var sent map[string]any
	env := e.ok(req{method: "POST", path: "/api/v1/command", agent: "amber-otter",
		body: `{"args":["agent","send","--from","amber-otter","--to","cobalt-harbor","--bead","bb-1","--category","HANDOFF","--subject","Review","--body","Please review"]}`}, &sent)
	if env.Command != "agent send" || sent["category"] != "HANDOFF" {
		t.Fatalf("send: %s %v", env.Command, sent)
	}
	cli := run(t, e.dir, "--json", "agent", "inbox", "--agent", "cobalt-harbor")
	var cliEnv envelope
	_ = json.Unmarshal([]byte(cli), &cliEnv)
	api := e.ok(req{method: "POST", path: "/api/v1/command", body: `{"args":["agent","inbox","--agent","cobalt-harbor"]}`}, nil)
	if string(compact(t, cliEnv.Data)) != string(compact(t, api.Data)) {
		t.Fatalf("inbox differs:\ncli %s\napi %s", cliEnv.Data, api.Data)
	}
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"args":["init"]}`, 400, "INVALID_INPUT"},
		{`{"args":[]}`, 400, "INVALID_INPUT"},
		{`{"args":["events","--follow"]}`, 400, "INVALID_INPUT"},
		{`{"args":["log","--dir","/"]}`, 400, "INVALID_INPUT"},
		{`{"args":["agent","ack","--agent","amber-otter","--message","` + sent["message_id"].(string) + `"]}`, 403, "ACK_FORBIDDEN"},
		{`{"args":["agent","show","--agent","nobody"]}`, 404, "AGENT_NOT_FOUND"},
		{`{"args":["log","--bogus"]}`, 400, "INVALID_ARGS"},
	} {
		status, env := e.do(req{method: "POST", path: "/api/v1/command", body: c.body})
		if status != c.status || env.Error == nil || env.Error.Code != c.code {
			t.Errorf("%s: %d %+v, want %d %s", c.body, status, env.Error, c.status, c.code)
		}
	}
}
