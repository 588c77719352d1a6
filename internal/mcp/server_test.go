package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

var t0 = time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)

// newService opens a fresh board in a temp project directory.
func newService(t *testing.T) app.API {
	t.Helper()
	return openBoard(t, t.TempDir(), hub.FixedClock{T: t0})
}

// openBoard opens (creating it when missing) the board of project dir.
func openBoard(t testing.TB, dir string, clock hub.Clock) app.API {
	t.Helper()
	b, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), Create: true, ProjectRoot: dir, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b.API
}

func newServer(t *testing.T, svc app.API, o Options) *Server {
	t.Helper()
	s, err := New(svc, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect opens a new client session on s over the in-memory transport.
func connect(t *testing.T, s *Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func text(r *sdk.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ok calls a tool that must succeed and decodes its structured content.
func ok(t *testing.T, cs *sdk.ClientSession, name string, args any) map[string]any {
	t.Helper()
	r := callTool(t, cs, name, args)
	if r.IsError {
		t.Fatalf("%s(%v): unexpected error: %s", name, args, text(r))
	}
	var m map[string]any
	b, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: structured content is not an object: %s", name, b)
	}
	// The text content carries the same JSON.
	var fromText map[string]any
	if err := json.Unmarshal([]byte(r.Content[0].(*sdk.TextContent).Text), &fromText); err != nil {
		t.Fatalf("%s: first text content is not the JSON reply: %v", name, err)
	}
	return m
}

// fail calls a tool that must fail with code and returns the message.
func fail(t *testing.T, cs *sdk.ClientSession, name string, args any, code hub.Code) string {
	t.Helper()
	r := callTool(t, cs, name, args)
	if !r.IsError {
		t.Fatalf("%s(%v): expected %s, got success: %s", name, args, code, text(r))
	}
	b, _ := json.Marshal(r.StructuredContent)
	var body struct {
		Error ErrorBody `json:"error"`
	}
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code != string(code) {
		t.Fatalf("%s(%v): want code %s, got structured %s / text %q", name, args, code, b, text(r))
	}
	if !strings.HasPrefix(text(r), string(code)+": ") {
		t.Fatalf("%s: text must start with the code: %q", name, text(r))
	}
	if body.Error.Message == "" || strings.Contains(body.Error.Message, "\n") {
		t.Fatalf("%s: message must be one non-empty line: %q", name, body.Error.Message)
	}
	return body.Error.Message
}

func TestIdentityRequiredThenIdentify(t *testing.T) {
	s := newServer(t, newService(t), Options{})
	cs := connect(t, s)
	msg := fail(t, cs, "bb_post_message", map[string]any{"content": "hello"}, hub.CodeIdentityRequired)
	if !strings.Contains(msg, "bb_identify") {
		t.Fatalf("hint must name bb_identify: %q", msg)
	}
	fail(t, cs, "bb_set_status", map[string]any{"status": "coding"}, hub.CodeIdentityRequired)
	fail(t, cs, "bb_register_artifact", map[string]any{"path": "a", "description": "d"}, hub.CodeIdentityRequired)
	// Reads work anonymously.
	ok(t, cs, "bb_get_status", nil)
	ok(t, cs, "bb_summary", nil)

	got := ok(t, cs, "bb_identify", map[string]any{"agent_id": "claude-1"})
	if got["agent_id"] != "claude-1" || got["source"] != "identify" {
		t.Fatalf("identify: %v", got)
	}
	// Same id again is a no-op; another id is refused.
	ok(t, cs, "bb_identify", map[string]any{"agent_id": "claude-1"})
	fail(t, cs, "bb_identify", map[string]any{"agent_id": "codex-2"}, hub.CodeInvalidInput)
	m := ok(t, cs, "bb_post_message", map[string]any{"content": "hello"})
	if m["from_agent"] != "claude-1" {
		t.Fatalf("post as identified agent: %v", m)
	}
	// Bad ids are refused with the identity code.
	cs2 := connect(t, s)
	fail(t, cs2, "bb_identify", map[string]any{"agent_id": "has space"}, hub.CodeInvalidIdentity)
	fail(t, cs2, "bb_identify", map[string]any{"agent_id": strings.Repeat("x", 65)}, hub.CodeInvalidIdentity)
	fail(t, cs2, "bb_identify", map[string]any{"agent_id": ""}, hub.CodeInvalidIdentity)
	// Identity is per session.
	ok(t, cs2, "bb_identify", map[string]any{"agent_id": "codex-2"})
	if m := ok(t, cs2, "bb_post_message", map[string]any{"content": "x"}); m["from_agent"] != "codex-2" {
		t.Fatalf("second session: %v", m)
	}
}

func TestOriginalToolNamesAreAliases(t *testing.T) {
	cs := connect(t, newServer(t, newService(t), Options{}))
	ok(t, cs, "identify", map[string]any{"agent_id": "old-client"})
	if m := ok(t, cs, "post_message", map[string]any{"content": "via the old name"}); m["from_agent"] != "old-client" {
		t.Fatalf("post_message alias: %v", m)
	}
	if got := ok(t, cs, "read_messages", nil)["messages"].([]any); len(got) != 1 {
		t.Fatalf("read_messages alias: %v", got)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "send", Arguments: map[string]any{}}); err == nil {
		t.Fatal("only the nine seed tools have plain aliases")
	}
}

func TestIdentityPrecedence(t *testing.T) {
	svc := newService(t)
	fixed := connect(t, newServer(t, svc, Options{Agent: "flag-agent", EnvAgent: "env-agent"}))
	if m := ok(t, fixed, "bb_post_message", map[string]any{"content": "x"}); m["from_agent"] != "flag-agent" {
		t.Fatalf("--agent must win over BB_AGENT_ID: %v", m)
	}
	msg := fail(t, fixed, "bb_identify", map[string]any{"agent_id": "other"}, hub.CodeInvalidInput)
	if !strings.Contains(msg, "--agent") {
		t.Fatalf("message must say the identity is fixed by --agent: %q", msg)
	}
	if m := ok(t, fixed, "bb_identify", map[string]any{"agent_id": "flag-agent"}); m["source"] != "flag" {
		t.Fatalf("identify with the fixed id: %v", m)
	}

	env := connect(t, newServer(t, svc, Options{EnvAgent: "env-agent"}))
	if m := ok(t, env, "bb_post_message", map[string]any{"content": "x"}); m["from_agent"] != "env-agent" {
		t.Fatalf("BB_AGENT_ID: %v", m)
	}
	msg = fail(t, env, "bb_identify", map[string]any{"agent_id": "other"}, hub.CodeInvalidInput)
	if !strings.Contains(msg, "BB_AGENT_ID") {
		t.Fatalf("message must name BB_AGENT_ID: %q", msg)
	}
	if m := ok(t, env, "bb_identify", map[string]any{"agent_id": "env-agent"}); m["source"] != "env" {
		t.Fatalf("identify with the env id: %v", m)
	}

	if _, err := New(svc, Options{Agent: "bad id"}); !hub.IsCode(err, hub.CodeInvalidIdentity) {
		t.Fatalf("invalid --agent must be refused: %v", err)
	}
	if _, err := New(svc, Options{Tools: "some"}); !hub.IsCode(err, hub.CodeInvalidInput) {
		t.Fatalf("unknown profile must be refused: %v", err)
	}
}

func TestNotInitialized(t *testing.T) {
	var ready atomic.Bool
	svc := newService(t)
	s := newServer(t, nil, Options{Agent: "claude-1", Open: func(context.Context) (Roles, error) {
		if !ready.Load() {
			return nil, hub.Errorf(hub.CodeNotInitialized, "No blackboard found. Run 'bb init' to create one.")
		}
		return svc, nil
	}})
	cs := connect(t, s)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		msg := fail(t, cs, tl.Name, map[string]any{}, hub.CodeNotInitialized)
		if !strings.Contains(msg, "bb init") {
			t.Fatalf("%s: hint must say bb init: %q", tl.Name, msg)
		}
	}
	// Once the board exists the running server uses it.
	ready.Store(true)
	ok(t, cs, "bb_post_message", map[string]any{"content": "now it works"})
}

func TestValidationErrors(t *testing.T) {
	svc := newService(t)
	cs := connect(t, newServer(t, svc, Options{Agent: "claude-1"}))
	cases := []struct {
		tool  string
		args  map[string]any
		code  hub.Code
		field string
	}{
		// Errors name the tool's parameter, whatever the core calls the field.
		{"bb_post_message", map[string]any{}, hub.CodeInvalidInput, "content"},                         // content missing
		{"bb_post_message", map[string]any{"content": "x", "bogus": 1}, hub.CodeInvalidInput, "bogus"}, // unknown argument
		{"bb_post_message", map[string]any{"content": 42}, hub.CodeInvalidInput, "content"},            // wrong type
		{"bb_post_message", map[string]any{"content": "  "}, hub.CodeInvalidInput, "content"},          // empty
		{"bb_post_message", map[string]any{"content": "x", "priority": "urgent"}, hub.CodeInvalidInput, "priority"},
		{"bb_post_message", map[string]any{"content": "x", "refs": []string{"gh:42"}}, hub.CodeInvalidRefFormat, "refs"},
		{"bb_post_message", map[string]any{"content": "x", "tags": []string{"a b"}}, hub.CodeInvalidInput, "tags"},
		{"bb_post_message", map[string]any{"content": "x", "reply_to": 999}, hub.CodeNotFound, ""},
		{"bb_post_message", map[string]any{"content": strings.Repeat("x", hub.MaxMessageLen+1)}, hub.CodeInvalidInput, "content"},
		{"bb_set_status", map[string]any{"status": "sleeping"}, hub.CodeInvalidInput, "status"},
		{"bb_set_status", map[string]any{"progress": 101}, hub.CodeInvalidInput, "progress"},
		{"bb_set_status", map[string]any{"progress": "40"}, hub.CodeInvalidInput, "progress"}, // one type: integer
		{"bb_set_status", map[string]any{"current_task": strings.Repeat("t", hub.MaxTaskLen+1)}, hub.CodeInvalidInput, "current_task"},
		{"bb_read_messages", map[string]any{"since": "10x"}, hub.CodeInvalidInput, "since"},
		{"bb_read_messages", map[string]any{"ref": "a:b"}, hub.CodeInvalidRefFormat, "ref"},
		{"bb_read_messages", map[string]any{"replies_to": 7}, hub.CodeNotFound, ""},
		{"bb_read_messages", map[string]any{"thread": 7}, hub.CodeNotFound, ""}, // the earlier name
		{"bb_read_messages", map[string]any{"limit": -1}, hub.CodeInvalidInput, "limit"},
		{"bb_read_messages", map[string]any{"limit": hub.MaxLogLimit + 1}, hub.CodeInvalidInput, "limit"}, // refused, never capped
		{"bb_read_messages", map[string]any{"cursor": "x"}, hub.CodeInvalidInput, "cursor"},
		{"bb_register_artifact", map[string]any{"path": "../etc/passwd", "description": "x"}, hub.CodePathTraversal, "path"},
		{"bb_register_artifact", map[string]any{"path": "/etc/passwd", "description": "x"}, hub.CodePathTraversal, "path"},
		{"bb_register_artifact", map[string]any{"path": "a.txt"}, hub.CodeInvalidInput, "description"},
		{"bb_list_artifacts", map[string]any{"path": "nope.txt"}, hub.CodeNotFound, ""},
		{"bb_list_artifacts", map[string]any{"limit": hub.MaxArtifactsLimit + 1}, hub.CodeInvalidInput, "limit"},
		{"bb_find_refs", map[string]any{"ref": "x"}, hub.CodeInvalidRefFormat, "ref"},
		{"bb_get_status", map[string]any{"agent": "ghost"}, hub.CodeNotFound, ""},
		{"bb_get_status", map[string]any{"agent_id": "ghost"}, hub.CodeNotFound, ""}, // the earlier name
		{"bb_events", map[string]any{"cursor": "-1"}, hub.CodeInvalidInput, "cursor"},
		{"bb_events", map[string]any{"limit": hub.MaxEventsLimit + 1}, hub.CodeInvalidInput, "limit"},
		{"bb_inbox", map[string]any{"limit": hub.MaxInboxLimit + 1}, hub.CodeInvalidInput, "limit"},
		{"bb_resume", map[string]any{"focus": "nope"}, hub.CodeNotFound, ""}, // as bb_task_begin
		{"bb_task_begin", map[string]any{"id": "nope"}, hub.CodeNotFound, ""},
		{"bb_reserve", map[string]any{"scope": "x", "bead": "b", "ttl_minutes": 2}, hub.CodeInvalidArgs, "ttl_minutes"},
	}
	for _, c := range cases {
		r := callTool(t, cs, c.tool, c.args)
		b, _ := json.Marshal(r.StructuredContent)
		var body struct {
			Error ErrorBody `json:"error"`
		}
		_ = json.Unmarshal(b, &body)
		if !r.IsError || body.Error.Code != string(c.code) || (c.field != "" && body.Error.Field != c.field) {
			t.Errorf("%s %v: want %s (field %q), got isError=%v %s", c.tool, c.args, c.code, c.field, r.IsError, b)
		}
	}
	// null means "not given".
	if m := ok(t, cs, "bb_read_messages", map[string]any{"since": nil, "tags": nil, "limit": nil}); len(m["messages"].([]any)) != 0 {
		t.Fatalf("null arguments: %v", m)
	}
	// Nothing was written by the failed calls.
	msgs, err := svc.Log(context.Background(), hub.LogQuery{})
	if err != nil || len(msgs) != 0 {
		t.Fatalf("failed calls wrote messages: %v %v", msgs, err)
	}
}

func TestBoardTools(t *testing.T) {
	svc := newService(t)
	if err := os.WriteFile(filepath.Join(svc.Root(), "spec.md"), []byte("# spec"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, svc, Options{})
	a := connect(t, s)
	b := connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent_id": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent_id": "bob"})

	st := ok(t, a, "bb_set_status", map[string]any{"current_task": "parser", "progress": 40, "status": "coding"})
	if st["id"] != "alice" || st["status"] != "coding" || st["progress"] != float64(40) {
		t.Fatalf("set_status: %v", st)
	}
	ok(t, b, "bb_set_status", map[string]any{"status": "blocked", "blockers": "waiting for parser"})
	agents := ok(t, a, "bb_get_status", nil)["agents"].([]any)
	if len(agents) != 2 {
		t.Fatalf("get_status: %v", agents)
	}
	one := ok(t, a, "bb_get_status", map[string]any{"agent_id": "bob"})["agents"].([]any)[0].(map[string]any)
	if one["blockers"] != "waiting for parser" || one["liveness"] != "active" {
		t.Fatalf("get_status bob: %v", one)
	}

	m1 := ok(t, a, "bb_post_message", map[string]any{"content": "parser landed", "tags": []string{"parser"}, "priority": "high", "refs": []string{"gh:issue:42"}})
	id1 := m1["id"].(float64)
	m2 := ok(t, b, "bb_post_message", map[string]any{"content": "thanks", "reply_to": id1})
	if m2["in_reply_to"] != id1 {
		t.Fatalf("reply: %v", m2)
	}
	if refs := m1["refs"].([]any); refs[0].(map[string]any)["ref"] != float64(42) {
		t.Fatalf("numeric ref must be a number: %v", refs)
	}
	all := ok(t, a, "bb_read_messages", nil)["messages"].([]any)
	if len(all) != 2 || all[0].(map[string]any)["content"] != "thanks" {
		t.Fatalf("read_messages newest first: %v", all)
	}
	tagged := ok(t, a, "bb_read_messages", map[string]any{"tags": []string{"parser"}})["messages"].([]any)
	if len(tagged) != 1 {
		t.Fatalf("tag filter: %v", tagged)
	}
	high := ok(t, a, "bb_read_messages", map[string]any{"priority": "high"})["messages"].([]any)
	if len(high) != 1 {
		t.Fatalf("priority filter: %v", high)
	}
	from := ok(t, a, "bb_read_messages", map[string]any{"from_agent": "bob", "since": "1h", "limit": 5})["messages"].([]any)
	if len(from) != 1 {
		t.Fatalf("from filter: %v", from)
	}
	thread := ok(t, a, "bb_read_messages", map[string]any{"thread": id1})["messages"].([]any)
	if len(thread) != 2 || thread[1].(map[string]any)["content"] != "thanks" {
		t.Fatalf("thread: %v", thread)
	}

	art := ok(t, a, "bb_register_artifact", map[string]any{"path": "spec.md", "description": "the spec", "version": "v1", "refs": []string{"gh:issue:42"}})
	if art["created"] != true || art["produced_by"] != "alice" || art["version"] != "v1" {
		t.Fatalf("register: %v", art)
	}
	again := ok(t, b, "bb_register_artifact", map[string]any{"path": "spec.md", "description": "the spec, reviewed"})
	if again["created"] != false || again["produced_by"] != "bob" {
		t.Fatalf("re-register is an upsert: %v", again)
	}
	arts := ok(t, a, "bb_list_artifacts", map[string]any{"by": "bob"})["artifacts"].([]any)
	if len(arts) != 1 {
		t.Fatalf("list_artifacts: %v", arts)
	}
	if got := ok(t, a, "bb_list_artifacts", map[string]any{"path": "spec.md"})["artifacts"].([]any); len(got) != 1 {
		t.Fatalf("list_artifacts path: %v", got)
	}
	refs := ok(t, a, "bb_find_refs", map[string]any{"ref": "gh:issue:42"})
	if len(refs["messages"].([]any)) != 1 || len(refs["artifacts"].([]any)) != 0 {
		// bob's re-registration dropped the ref from the artifact.
		t.Fatalf("find_refs: %v", refs)
	}
	sum := ok(t, a, "bb_summary", nil)
	if len(sum["high_priority_messages"].([]any)) != 1 || len(sum["recent_artifacts"].([]any)) != 1 {
		t.Fatalf("summary: %v", sum)
	}
	// Each agent once; a blocked one says so in its status.
	seen := map[string]int{}
	for _, x := range sum["agents"].([]any) {
		ag := x.(map[string]any)
		seen[ag["id"].(string)]++
		if ag["id"] == "bob" && ag["status"] != "blocked" {
			t.Fatalf("bob: %v", ag)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("agent %s listed %d times", id, n)
		}
	}
	if _, ok := sum["blocked_agents"]; ok {
		t.Fatal("summary lists agents once, in agents")
	}
}

func TestNoticesAndCheckIn(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a, b := connect(t, s), connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent_id": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent_id": "bob"})
	ok(t, b, "bb_post_message", map[string]any{"content": "look at this"})
	r := callTool(t, a, "bb_get_status", nil)
	if !strings.Contains(text(r), "notice: 1 unread board post (bb_read_messages)") {
		t.Fatalf("notice text missing: %q", text(r))
	}
	meta, _ := json.Marshal(r.Meta["bb/notices"])
	if string(meta) != `{"addressed":0,"board":1,"changed":true,"unread":1}` {
		t.Fatalf("notices in _meta: %s", meta)
	}
	// Told once: the same notices again carry no text.
	if r := callTool(t, a, "bb_get_status", nil); strings.Contains(text(r), "notice:") {
		t.Fatalf("unchanged notice repeated: %q", text(r))
	}
	// Reading the board clears the notice.
	ok(t, a, "bb_read_messages", nil)
	if r := callTool(t, a, "bb_summary", nil); strings.Contains(text(r), "notice:") {
		t.Fatalf("notice after reading: %q", text(r))
	}
	// Identified calls refresh last_seen (creating the agent).
	later := openBoard(t, svc.Root(), hub.FixedClock{T: t0.Add(10 * time.Minute)})
	s2 := newServer(t, later, Options{Agent: "carol"})
	ok(t, connect(t, s2), "bb_summary", nil)
	v, err := later.AgentStatus(context.Background(), "carol")
	if err != nil || !v.LastSeen.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("check-in must set last_seen: %v %v", v, err)
	}
}

func TestEventsCursor(t *testing.T) {
	svc := newService(t)
	cs := connect(t, newServer(t, svc, Options{Agent: "alice"}))
	for i := 0; i < 3; i++ {
		ok(t, cs, "bb_post_message", map[string]any{"content": "m"})
	}
	first := ok(t, cs, "bb_events", map[string]any{"limit": 2, "types": []string{hub.EventMessagePosted}})
	if len(first["events"].([]any)) != 2 || first["more"] != true {
		t.Fatalf("first page: %v", first)
	}
	next := ok(t, cs, "bb_events", map[string]any{"cursor": first["next_cursor"], "types": []string{hub.EventMessagePosted}})
	if len(next["events"].([]any)) != 1 || next["more"] != false {
		t.Fatalf("second page: %v", next)
	}
	empty := ok(t, cs, "bb_events", map[string]any{"cursor": next["next_cursor"], "types": []string{hub.EventMessagePosted}})
	if len(empty["events"].([]any)) != 0 || empty["next_cursor"] != next["next_cursor"] {
		t.Fatalf("caught up: %v", empty)
	}
}

// modelVisible returns the tools of a profile and the size in bytes of
// what a model reads of them: name, description and input schema of each
// tool, as compact JSON.
func modelVisible(t *testing.T, profile string) ([]*sdk.Tool, int) {
	t.Helper()
	cs := connect(t, newServer(t, newService(t), Options{Tools: profile}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, tl := range res.Tools {
		b, _ := json.Marshal(map[string]any{"name": tl.Name, "description": tl.Description, "input_schema": tl.InputSchema})
		size += len(b)
	}
	return res.Tools, size
}

// approxTokens is the estimator used for every token figure of this
// package (docs/mcp.md, BENCHMARKS.md): one token per 4 bytes of JSON,
// rounded up.
func approxTokens(bytes int) int { return (bytes + 3) / 4 }

// TestToolsListIsCheap bounds what the tool definitions cost a model's
// context: ≤ 1.2k tokens for the core profile, ≤ 2.9k for all tools (2.5k
// until bb_wait, 74 tokens, and the three lease tools, about 260, joined
// them).
func TestToolsListIsCheap(t *testing.T) {
	all, allBytes := modelVisible(t, ProfileAll)
	core, coreBytes := modelVisible(t, ProfileCore)
	t.Logf("model-visible tools/list: all = %d tools, %d bytes ≈ %d tokens; core = %d tools, %d bytes ≈ %d tokens",
		len(all), allBytes, approxTokens(allBytes), len(core), coreBytes, approxTokens(coreBytes))
	if approxTokens(allBytes) > 2900 {
		t.Errorf("all tools: ≈%d tokens, budget 2.9k", approxTokens(allBytes))
	}
	if approxTokens(coreBytes) > 1200 {
		t.Errorf("core tools: ≈%d tokens, budget 1.2k", approxTokens(coreBytes))
	}
	var names []string
	for _, tl := range all {
		names = append(names, tl.Name)
	}
	want := []string{"bb_ack", "bb_check_scope", "bb_events", "bb_find_refs", "bb_get_status", "bb_identify", "bb_inbox",
		"bb_lease_acquire", "bb_lease_list", "bb_lease_release", "bb_list_artifacts", "bb_memory_get", "bb_memory_set", "bb_post_message", "bb_read_messages", "bb_register_artifact",
		"bb_release", "bb_reserve", "bb_resume", "bb_search", "bb_send_mail", "bb_set_status", "bb_summary", "bb_task_begin",
		"bb_task_complete", "bb_task_create", "bb_task_list", "bb_wait"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools: got %v\nwant %v", names, want)
	}
}

// TestToolSchemasEveryClientAccepts: one JSON type per property (clients
// backed by some models reject type arrays, and form-based clients
// convert by type), a description on every parameter, the core's rules as
// enum/minimum/maximum/maxLength, truthful annotations, and the same
// name and type for a parameter across tools.
func TestToolSchemasEveryClientAccepts(t *testing.T) {
	tools, _ := modelVisible(t, ProfileAll)
	types := map[string]string{} // parameter → its type across tools
	for _, tl := range tools {
		if tl.Description == "" || strings.Contains(tl.Description, "\n") || tl.OutputSchema == nil {
			t.Errorf("%s: needs a one-line description and an output schema", tl.Name)
		}
		b, _ := json.Marshal(tl.InputSchema)
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(b, &in)
		for name, p := range in.Properties {
			typ, isString := p["type"].(string)
			if !isString || typ == "" {
				t.Errorf("%s.%s: type must be one JSON type, got %v", tl.Name, name, p["type"])
			}
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s.%s: no description", tl.Name, name)
			}
			if prev, seen := types[name]; seen && prev != typ && !(name == "priority" && tl.Name == "bb_task_create") {
				t.Errorf("%s.%s is %s, elsewhere %s", tl.Name, name, typ, prev)
			}
			types[name] = typ
			for _, banned := range []string{"agent_id", "from_agent", "by", "to", "since_seq", "thread_id"} {
				if name == banned {
					t.Errorf("%s.%s: the agent parameter is called agent everywhere (cursor for paging)", tl.Name, name)
				}
			}
		}
		a := tl.Annotations
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint == nil {
			t.Errorf("%s: annotations must say openWorldHint false and destructiveHint: %+v", tl.Name, a)
		}
	}
	find := func(tool, param string) map[string]any {
		for _, tl := range tools {
			if tl.Name == tool {
				b, _ := json.Marshal(tl.InputSchema)
				var in struct {
					Properties map[string]map[string]any `json:"properties"`
				}
				_ = json.Unmarshal(b, &in)
				return in.Properties[param]
			}
		}
		t.Fatalf("no tool %s", tool)
		return nil
	}
	if p := find("bb_set_status", "progress"); p["minimum"] != 0.0 || p["maximum"] != 100.0 {
		t.Errorf("progress range: %v", p)
	}
	if p := find("bb_set_status", "status"); len(p["enum"].([]any)) != len(hub.AgentStatuses) {
		t.Errorf("status enum: %v", p)
	}
	if p := find("bb_read_messages", "limit"); p["maximum"] != float64(hub.MaxLogLimit) {
		t.Errorf("limit maximum: %v", p)
	}
	if p := find("bb_post_message", "content"); p["maxLength"] != float64(hub.MaxMessageLen) {
		t.Errorf("content maxLength: %v", p)
	}
	// Annotations: reads are read-only; what marks mail or posts read is not.
	ann := map[string]*sdk.ToolAnnotations{}
	for _, tl := range tools {
		ann[tl.Name] = tl.Annotations
	}
	for _, name := range []string{"bb_summary", "bb_get_status", "bb_events", "bb_list_artifacts", "bb_task_list", "bb_memory_get", "bb_check_scope", "bb_find_refs"} {
		if !ann[name].ReadOnlyHint {
			t.Errorf("%s is read-only", name)
		}
	}
	for _, name := range []string{"bb_read_messages", "bb_inbox", "bb_post_message", "bb_send_mail", "bb_set_status", "bb_resume"} {
		if ann[name].ReadOnlyHint || *ann[name].DestructiveHint {
			t.Errorf("%s writes without destroying anything: %+v", name, ann[name])
		}
	}
	if !*ann["bb_memory_set"].DestructiveHint || !ann["bb_memory_set"].IdempotentHint {
		t.Error("bb_memory_set replaces a value: destructive and idempotent")
	}
}

// BenchmarkInMemoryToolCall is the server's own cost of one identified
// tool call (bb_get_status of one agent plus the check-in), without
// process and pipe overhead.
func BenchmarkInMemoryToolCall(b *testing.B) {
	b.Run("get_status", func(b *testing.B) {
		benchInMemory(b, &sdk.CallToolParams{Name: "bb_get_status", Arguments: map[string]any{"agent_id": "bench-1"}})
	})
	b.Run("post_message", func(b *testing.B) {
		benchInMemory(b, &sdk.CallToolParams{Name: "bb_post_message", Arguments: map[string]any{"content": "bench post"}})
	})
}

// benchInMemory times one tool call on a board opened as bb mcp opens it
// (a long-lived process).
func benchInMemory(b *testing.B, p *sdk.CallToolParams) {
	dir := b.TempDir()
	board, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"),
		Create: true, ProjectRoot: dir, LongLived: true})
	if err != nil {
		b.Fatal(err)
	}
	defer board.Close()
	s, err := New(board.API, Options{Agent: "bench-1"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ct, sst := sdk.NewInMemoryTransports()
	if _, err := s.SDK().Connect(ctx, sst, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, p); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r, err := cs.CallTool(ctx, p); err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

// TestConcurrentSessions: many sessions of one server identify and post
// concurrently; every post is attributed to its own session's agent.
func TestConcurrentSessions(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	const sessions, posts = 8, 10
	errs := make(chan error, sessions*posts)
	done := make(chan struct{})
	for i := 0; i < sessions; i++ {
		cs := connect(t, s)
		id := fmt.Sprintf("agent-%d", i)
		go func() {
			defer func() { done <- struct{}{} }()
			if r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bb_identify", Arguments: map[string]any{"agent_id": id}}); err != nil || r.IsError {
				errs <- fmt.Errorf("identify %s: %v %v", id, err, r)
				return
			}
			var wg sync.WaitGroup
			for j := 0; j < posts; j++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bb_post_message", Arguments: map[string]any{"content": id}})
					if err != nil || r.IsError {
						errs <- fmt.Errorf("post %s: %v %v", id, err, r)
					}
				}()
			}
			wg.Wait()
		}()
	}
	for i := 0; i < sessions; i++ {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	msgs, err := svc.Log(context.Background(), hub.LogQuery{Limit: 100})
	if err != nil || len(msgs) != sessions*posts {
		t.Fatalf("want %d messages, got %d (%v)", sessions*posts, len(msgs), err)
	}
	for _, m := range msgs {
		if m.From != m.Body {
			t.Fatalf("message %q attributed to %s", m.Body, m.From)
		}
	}
}

// A session whose identity comes from its client's hooks (bb hook mapped
// the client's process to an agent) cannot take another through
// bb_identify, and its instructions name its id (issue 28).
func TestHookIdentityCannotChange(t *testing.T) {
	svc := newService(t)
	res, err := svc.ResolveSession(context.Background(), hooks.SessionInput{Client: "claude", SessionID: "s-1", ClientPID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	me := res.AgentID
	cs := connect(t, newServer(t, svc, Options{ClientPID: 4242}))
	if !strings.Contains(cs.InitializeResult().Instructions, "Your agent id is "+me) {
		t.Fatalf("instructions do not name %s: %q", me, cs.InitializeResult().Instructions)
	}
	msg := fail(t, cs, "bb_identify", map[string]any{"agent": "someone-else"}, hub.CodeForbidden)
	if !strings.Contains(msg, me) {
		t.Fatalf("refusal must name the session's id %s: %q", me, msg)
	}
	if m := ok(t, cs, "bb_identify", map[string]any{"agent": me}); m["source"] != "hook" || m["agent_id"] != me {
		t.Fatalf("identify with the hook's id: %v", m)
	}
	if m := ok(t, cs, "bb_post_message", map[string]any{"content": "x"}); m["from_agent"] != me {
		t.Fatalf("post: %v", m)
	}
}
