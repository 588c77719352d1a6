package hooktest

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession is a `bb mcp` process of the project, as a client starts it
// for a session, spoken to through the official Go MCP client.
type mcpSession struct {
	p  *project
	cs *sdk.ClientSession
}

func (p *project) startMCP(tb testing.TB, env ...string) *mcpSession {
	tb.Helper()
	cmd := exec.Command(bbPath(), "mcp")
	cmd.Dir = p.dir
	cmd.Env = append(append([]string{}, p.env...), env...)
	c := sdk.NewClient(&sdk.Implementation{Name: "hooktest", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatalf("bb mcp: %v", err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return &mcpSession{p: p, cs: cs}
}

// hook asks bb mcp's hidden hook tool what `bb hook <client> <event>`
// would answer payload (the fields as a client fills the tool's input) and
// returns the text it answered ("" for nothing).
func (m *mcpSession) hook(tb testing.TB, client, event string, payload map[string]any) string {
	tb.Helper()
	args := map[string]any{"bb_client": client, "bb_event": event}
	for k, v := range payload {
		args[k] = v
	}
	r, err := m.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bb_hook", Arguments: args})
	if err != nil {
		tb.Fatalf("bb_hook %s %s: %v", client, event, err)
	}
	if r.IsError || len(r.Content) != 1 {
		tb.Fatalf("bb_hook %s %s: error %v, %d contents", client, event, r.IsError, len(r.Content))
	}
	t, ok := r.Content[0].(*sdk.TextContent)
	if !ok {
		tb.Fatalf("bb_hook %s %s: not text: %T", client, event, r.Content[0])
	}
	if t.Text != "" && !json.Valid([]byte(t.Text)) {
		tb.Fatalf("bb_hook %s %s: text is not one JSON object: %q", client, event, t.Text)
	}
	return t.Text
}

// hookText is a command hook's stdout for payload, as text.
func (p *project) hookText(tb testing.TB, client, event string, payload any) string {
	tb.Helper()
	m, _ := p.hook(tb, nil, client, event, payload)
	if m == nil {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// normal re-encodes a JSON text so two replies compare by content.
func normal(tb testing.TB, s string) string {
	if s == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		tb.Fatalf("not JSON: %q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// A hook answered by bb mcp is the command hook's answer, for the inputs a
// client may send, odd ones included: an edit of a held file (denied, the
// holder named), of a file outside the work tree (nothing), of a huge
// file, with tool_input as JSON text (Claude Code's interpolation) or
// broken; and bb mcp keeps serving the model's own tools after them.
func TestHookThroughMCPAnswersAsTheCommandHook(t *testing.T) {
	p := newProject(t)
	holder := &claudeSession{p: p, id: "held-by"}
	holder.start(t, "startup")
	if r := holder.edit(t, "src/a.go"); r != "" {
		t.Fatalf("the holder's own edit was denied: %s", r)
	}
	s := &claudeSession{p: p, id: "asker"}
	s.start(t, "startup")
	m := p.startMCP(t)
	big := strings.Repeat("x", 1<<20)
	edit := func(path, content string) map[string]any {
		return s.payload("PreToolUse", "tool_name", "Write", "tool_input", map[string]any{"file_path": path, "content": content})
	}
	cases := []struct {
		name    string
		payload map[string]any
		deny    bool
	}{
		{"held file", edit(filepath.Join(p.dir, "src/a.go"), "y"), true},
		{"held file, 1 MiB", edit(filepath.Join(p.dir, "src/a.go"), big), true},
		{"outside the work tree", edit("/tmp/elsewhere/notes.md", "z"), false},
		{"tool_input as JSON text", s.payload("PreToolUse", "tool_name", "Write", "tool_input", `{"file_path":"`+filepath.Join(p.dir, "src/a.go")+`"}`), true},
		{"tool_input broken", s.payload("PreToolUse", "tool_name", "Write", "tool_input", `{"file_path":`), false},
		{"no session", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/tmp/x"}}, false},
	}
	for _, tc := range cases {
		viaMCP := normal(t, m.hook(t, "claude", "PreToolUse", tc.payload))
		cmd := normal(t, p.hookText(t, "claude", "PreToolUse", tc.payload))
		if viaMCP != cmd {
			t.Errorf("%s: bb mcp answered\n%s\nthe command hook\n%s", tc.name, viaMCP, cmd)
		}
		if denied := strings.Contains(viaMCP, `"permissionDecision":"deny"`); denied != tc.deny {
			t.Errorf("%s: denied %v, want %v: %s", tc.name, denied, tc.deny, viaMCP)
		}
		if tc.deny && !strings.Contains(viaMCP, "reserved by") {
			t.Errorf("%s: the denial names no holder: %s", tc.name, viaMCP)
		}
	}
	// Arguments that are not a hook: nothing answered, and the model's
	// tools still work on the same server.
	r, err := m.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bb_hook", Arguments: map[string]any{"cwd": p.dir}})
	if err != nil || r.IsError {
		t.Fatalf("bb_hook without client and event: %v %v", err, r)
	}
	if r, err := m.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bb_summary", Arguments: map[string]any{}}); err != nil || r.IsError {
		t.Fatalf("bb_summary after the hooks: %v %+v", err, r)
	}
	lt, err := m.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		if tl.Name == "bb_hook" {
			t.Fatal("bb mcp offers bb_hook to the model")
		}
	}
}

// Eight sessions, each with its own bb mcp, each sending 16 hook calls at
// once (mail deliveries after tools and edit checks of a held file) while
// mail arrives for all of them: every message reaches its session once,
// and every edit check of the held file is a denial.
func TestHooksThroughMCPConcurrently(t *testing.T) {
	const sessions, calls, mails = 8, 16, 4
	p := newProject(t)
	holder := &claudeSession{p: p, id: "holder"}
	from := holder.start(t, "startup")
	if r := holder.edit(t, "src/a.go"); r != "" {
		t.Fatalf("the holder's own edit was denied: %s", r)
	}
	type sess struct {
		c     *claudeSession
		agent string
		m     *mcpSession
		mu    sync.Mutex
		texts []string
	}
	var ss []*sess
	for i := range sessions {
		c := &claudeSession{p: p, id: fmt.Sprintf("s-%d", i)}
		ss = append(ss, &sess{c: c, agent: c.start(t, "startup"), m: p.startMCP(t)})
	}
	round := func(t *testing.T) (denials, checks int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, s := range ss {
			for j := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var text string
					if j%2 == 0 {
						text = s.m.hook(t, "claude", "PostToolUse", s.c.payload("PostToolUse", "tool_name", "Bash"))
					} else {
						text = s.m.hook(t, "claude", "PreToolUse", s.c.payload("PreToolUse", "tool_name", "Edit",
							"tool_input", map[string]any{"file_path": filepath.Join(p.dir, "src/a.go")}))
						mu.Lock()
						checks++
						if strings.Contains(text, `"permissionDecision":"deny"`) {
							denials++
						}
						mu.Unlock()
					}
					s.mu.Lock()
					s.texts = append(s.texts, text)
					s.mu.Unlock()
				}()
			}
		}
		wg.Wait()
		return denials, checks
	}
	// Mail is sent while the first rounds run.
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for k := range mails {
			for _, s := range ss {
				p.bb(t, nil, "agent", "send", "--from", from, "--to", s.agent, "--bead", "team", "--category", "INFO", "--subject", "note", "--body", fmt.Sprintf("MARK-%s-%d", s.agent, k))
			}
		}
	}()
	for {
		done := false
		select {
		case <-sent:
			done = true
		default:
		}
		if d, c := round(t); d != c {
			t.Fatalf("%d of %d edit checks of the held file were denied", d, c)
		}
		if done {
			break
		}
	}
	round(t) // what arrived after the last round's reads
	for _, s := range ss {
		all := strings.Join(s.texts, "\n")
		for k := range mails {
			mark := fmt.Sprintf("MARK-%s-%d", s.agent, k)
			if n := strings.Count(all, mark); n != 1 {
				t.Errorf("%s got %s %d times, want once", s.agent, mark, n)
			}
		}
		for _, o := range ss {
			if o != s && strings.Contains(all, "MARK-"+o.agent+"-") {
				t.Errorf("%s got %s's mail", s.agent, o.agent)
			}
		}
	}
}

// BenchmarkHookAnswer times one edit check answered by a session's bb mcp
// (its hidden hook tool) and by a `bb hook` process, interleaved, and
// reports the p50 and p99 of each (16 calls at once to bb mcp, as a
// client's parallel tool calls).
//
//	go test ./internal/cli/bb/hooktest -run '^$' -bench HookAnswer -benchtime 20x
func BenchmarkHookAnswer(b *testing.B) {
	p := newProject(b)
	s := &claudeSession{p: p, id: "bench"}
	s.start(b, "startup")
	m := p.startMCP(b)
	payload := s.payload("PreToolUse", "tool_name", "Edit", "tool_input", map[string]any{"file_path": filepath.Join(p.dir, "src/b.go")})
	in, _ := json.Marshal(payload)
	var viaMCP, viaCmd []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t0 := time.Now()
				m.hook(b, "claude", "PreToolUse", payload)
				d := time.Since(t0)
				mu.Lock()
				viaMCP = append(viaMCP, d)
				mu.Unlock()
			}()
		}
		wg.Wait()
		t0 := time.Now()
		if _, errOut, code := p.run(nil, string(in), "hook", "claude", "PreToolUse", "--dir", p.dir); code != 0 {
			b.Fatalf("bb hook: %d %s", code, errOut)
		}
		viaCmd = append(viaCmd, time.Since(t0))
	}
	b.StopTimer()
	pct := func(ds []time.Duration, q float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(viaMCP, 0.5), "mcp-p50-ms")
	b.ReportMetric(pct(viaMCP, 0.99), "mcp-p99-ms")
	b.ReportMetric(pct(viaCmd, 0.5), "command-p50-ms")
	b.ReportMetric(pct(viaCmd, 0.99), "command-p99-ms")
	b.ReportMetric(pct(viaMCP, 0.99)/pct(viaCmd, 0.5), "x-mcp-p99/command-p50")
}
