package clienttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var briefRe = regexp.MustCompile(`You are agent ([a-z0-9][a-z0-9._-]*) on this project's board`)

// sessionRequests are the recorded requests of one session, in order.
func sessionRequests(srv *modelServer, session string) []modelRequest {
	var out []modelRequest
	for _, r := range srv.Requests() {
		if r.Session == session {
			out = append(out, r)
		}
	}
	return out
}

// identityOf is the agent id the session brief gave the session.
func identityOf(t *testing.T, srv *modelServer, session string) string {
	t.Helper()
	for _, r := range sessionRequests(srv, session) {
		if m := briefRe.FindStringSubmatch(r.Body); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no session brief reached the model in session %s", session)
	return ""
}

// stepRequests are the requests of a session whose latest prompt is step.
func stepRequests(srv *modelServer, session, step string) []modelRequest {
	var out []modelRequest
	for _, r := range sessionRequests(srv, session) {
		if s, _ := progress(r.API, r.Body); s == step {
			out = append(out, r)
		}
	}
	return out
}

// TestClaudeCode runs Claude Code (-p, offline against the model server)
// in a project wired by bb install claude. Facts used, checked against
// @anthropic-ai/claude-code 2.1.328: ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY select the server; DISABLE_TELEMETRY,
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC and DISABLE_AUTOUPDATER keep it
// off the network; ~/.claude.json marks onboarding done and the project
// trusted with its .mcp.json server enabled; `-p --output-format json`
// prints the session_id that `--resume` takes; MCP tools are deferred
// behind ToolSearch ("select:<name>").
// https://docs.claude.com/en/docs/claude-code/settings (environment
// variables), https://docs.claude.com/en/docs/claude-code/cli-reference,
// https://docs.claude.com/en/docs/claude-code/hooks.
//
// TestClaudeCode runs it with the hooks answered by the session's bb mcp
// (what bb install claude writes for this version), TestClaudeCodeCommandHooks
// with a bb process per hook event (what it writes for a Claude Code
// before 2.1.118).
func TestClaudeCode(t *testing.T) { testClaudeCode(t, "--hook-type", "mcp") }

func TestClaudeCodeCommandHooks(t *testing.T) { testClaudeCode(t, "--hook-type", "command") }

func testClaudeCode(t *testing.T, installArgs ...string) {
	t.Parallel()
	bin := clientBin(t, "claude")
	p := newProject(t)
	before := snapshot(t, p.dir)
	p.run("bb", append([]string{"install", "claude"}, installArgs...)...)
	trustClaude(p, p.dir)
	// (Command hooks are "outdated" where the installed Claude Code takes
	// mcp_tool hooks, so doctor's exit status is not asked here.)
	if out, _, _ := p.exec(nil, "bb", "doctor"); !strings.Contains(out, "ok    client claude trust") {
		t.Fatalf("bb doctor does not see Claude Code's trust:\n%s", out)
	}

	pl := newPlans()
	srv := newModelServer(t, pl.script)
	env := claudeEnv(srv)
	var mu sync.Mutex
	sessionIDs := map[string]string{}
	claude := func(session, step string) {
		args := []string{"-p", "[session " + session + "] [step " + step + "] go on", "--output-format", "json",
			"--permission-mode", "acceptEdits", "--allowedTools", "mcp__blackboard,Read,Bash"}
		mu.Lock()
		if id := sessionIDs[session]; id != "" {
			args = append(args, "--resume", id)
		}
		mu.Unlock()
		out, errOut, err := p.exec(env, bin, args...)
		var res struct {
			SessionID string `json:"session_id"`
			IsError   bool   `json:"is_error"`
			Result    string `json:"result"`
		}
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.IsError {
			t.Errorf("claude %s: %v\n%s\n%s", step, err, out, errOut)
			return
		}
		mu.Lock()
		sessionIDs[session] = res.SessionID
		mu.Unlock()
	}

	// Two sessions started at once get two identities.
	idA, idB := startTwo(t, srv, claude)

	// A's MCP tools act as A: asked to become B, it is refused (the
	// refusal reaches the model) and stays A; it reserves src/a.go and
	// mails B. Holding a file it did not change, A gets the Stop reminder,
	// once.
	pl.set("mcp",
		turnPart{Tool: "ToolSearch", Input: map[string]any{"query": "select:mcp__blackboard__bb_identify,mcp__blackboard__bb_reserve,mcp__blackboard__bb_send_mail"}},
		turnPart{Tool: "mcp__blackboard__bb_identify", Input: map[string]any{"agent": idB}},
		turnPart{Tool: "mcp__blackboard__bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}},
		turnPart{Tool: "mcp__blackboard__bb_send_mail", Input: map[string]any{"agent": idB, "bead": "bb-1", "subject": "a.go", "body": "MAIL-7f3 I am on a.go"}},
	)
	claude("A", "mcp")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 5 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if refusal := refusalRe(idA, idB); !refusal.MatchString(reqs[2].Body) {
		t.Errorf("the refusal of bb_identify %s did not reach the model (want %s)", idB, refusal)
		dump(t, "claude-A-identify", reqs[2].Body)
	}
	last := reqs[len(reqs)-1].Body
	if !strings.Contains(last, `\"holder\":\"`+idA+`\"`) && !strings.Contains(last, idA) {
		t.Errorf("the reservation's result does not name %s", idA)
	}
	assertHolder(t, p, "src/a.go", idA)
	// Claude Code shows a Stop hook's block twice (a user message and a
	// system block), so the reminder is counted in the user messages.
	if n := countInMessages(t, last, "user", "You still reserve src/a.go"); n != 1 {
		t.Errorf("Stop reminder in %d user messages of A's last request, want once", n)
		dump(t, "claude-A-last", last)
	}

	// B: the mail arrives with its next prompt; mail sent while B is
	// mid-turn arrives after its next tool call; its edit of A's file is
	// denied and the reason, naming A, reaches the model.
	pl.set("edit",
		turnPart{Tool: "Read", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "b.go")}},
		turnPart{Tool: "Edit", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "a.go"), "old_string": "package x", "new_string": "package y"}},
	)
	pl.onFirst("edit", func() {
		sendMidMail(t, p, idA, idB)
	})
	claude("B", "edit")
	reqs = stepRequests(srv, "B", "edit")
	if len(reqs) < 3 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[0].Body, "MAIL-7f3") {
		t.Errorf("A's mail did not reach B's next prompt")
	} else if !markedAsPeer(reqs[0].Body, idA, "MAIL-7f3 I am on a.go") {
		t.Errorf("A's mail reached B's model without the mark of another agent's words, fenced")
		dump(t, "claude-B-marked", reqs[0].Body)
	}
	if strings.Contains(reqs[0].Body, "MIDMAIL-9c1") || !strings.Contains(reqs[1].Body, "MIDMAIL-9c1") {
		t.Errorf("the mail sent mid-turn did not arrive right after B's next tool call")
	}
	if !denialReached(reqs[2].Body, idA) {
		t.Errorf("the denial naming %s did not reach the model", idA)
		for i, r := range reqs {
			dump(t, fmt.Sprintf("claude-B-edit-%d", i), r.Body)
		}
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Errorf("the denied edit changed src/a.go: %q", got)
	}
	claude("B", "again")
	reqs = stepRequests(srv, "B", "again")
	if len(reqs) == 0 {
		t.Fatal("step again: no request")
	}
	final := reqs[len(reqs)-1].Body
	dump(t, "claude-B-final", final)
	for _, mail := range []string{"MAIL-7f3", "MIDMAIL-9c1"} {
		if n := strings.Count(final, mail); n != 1 {
			t.Errorf("%s is %d times in B's conversation, want exactly once", mail, n)
		}
	}

	// A edits the file it holds while B mails it: the edit's PreToolUse
	// hook brings the mail (Claude Code runs bb's PostToolUse for the
	// other tools only), right after the edit, once.
	pl.set("own-edit",
		turnPart{Tool: "Edit", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "a.go"), "old_string": "package x", "new_string": "package z"}},
		turnPart{Tool: "Read", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "b.go")}},
	)
	pl.onFirst("own-edit", func() { sendMail(t, p, idB, idA, "edit", "EDITMAIL-4d2 go ahead") })
	claude("A", "own-edit")
	reqs = stepRequests(srv, "A", "own-edit")
	if len(reqs) < 3 {
		t.Fatalf("step own-edit: %d requests", len(reqs))
	}
	if strings.Contains(reqs[0].Body, "EDITMAIL-4d2") || !strings.Contains(reqs[1].Body, "EDITMAIL-4d2") {
		t.Errorf("the mail sent mid-turn did not arrive right after A's edit")
		for i, r := range reqs {
			dump(t, fmt.Sprintf("claude-A-own-edit-%d", i), r.Body)
		}
	}
	if n := strings.Count(reqs[len(reqs)-1].Body, "EDITMAIL-4d2"); n != 1 {
		t.Errorf("EDITMAIL-4d2 is %d times in A's conversation, want exactly once", n)
	}
	if got := p.read("src/a.go"); got != "package z\n" {
		t.Errorf("A's edit of its own file did not happen: %q", got)
	}

	// A commits its change with its shell tool: the git guard, run by git
	// under Claude Code, knows it is A (Claude Code sources the
	// $CLAUDE_ENV_FILE bb's SessionStart wrote, so BB_AGENT_ID is set in
	// A's shell), and A's own reservation of src/a.go does not refuse A's
	// commit.
	p.run("bb", "guard", "install")
	pl.set("commit", turnPart{Tool: "Bash", Input: map[string]any{"command": "git commit -qam 'A changes a.go'", "description": "Commit the change"}})
	committedInStep(t, p, srv, claude, "commit", "claude-A-commit", "A changes a.go")
	p.write("src/a.go", "package x\n") // the model's edit, not bb's: undone before the uninstall check

	// bb uninstall removes exactly what bb install added. Claude Code
	// itself records the approved .mcp.json server in
	// .claude/settings.local.json: that stays, bb's hooks go.
	p.run("bb", "uninstall", "claude")
	after := snapshot(t, p.dir)
	if local, ok := after[filepath.Join(".claude", "settings.local.json")]; ok {
		var m map[string]any
		if err := json.Unmarshal([]byte(local), &m); err != nil || len(m) != 1 || m["enabledMcpjsonServers"] == nil {
			t.Errorf("after bb uninstall, .claude/settings.local.json holds more than Claude Code's own approval:\n%s", local)
		}
		delete(after, filepath.Join(".claude", "settings.local.json"))
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("bb uninstall claude left the project changed:\nbefore %v\nafter  %v", keys(before), keys(after))
		for k, v := range after {
			if before[k] != v {
				t.Logf("%s:\n%s", k, v)
			}
		}
	}
}

// TestClaudeCodeSessionID proves that Claude Code's MCP server and hooks
// are tied by the session id Claude Code hands to both
// ($CLAUDE_CODE_SESSION_ID in the MCP server's environment, session_id in
// the hook payload; see internal/procid/session.go), not only by the
// process walk: the hooks run through a wrapper that is not a shell
// (timeout), so the walk from a hook stops at the wrapper and never meets
// the MCP server's client process. The MCP tools still act as the
// session's agent, and bb_identify of another id is refused.
func TestClaudeCodeSessionID(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "claude")
	p := newProject(t)
	p.run("bb", "install", "claude")
	trustClaude(p, p.dir)
	settings := filepath.Join(".claude", "settings.local.json")
	wrapped := strings.ReplaceAll(p.read(settings), `"command": "bb hook claude`, `"command": "timeout 60 bb hook claude`)
	if !strings.Contains(wrapped, "timeout 60 bb hook claude SessionStart") {
		t.Fatalf("no hook command to wrap in %s:\n%s", settings, wrapped)
	}
	p.write(settings, wrapped)
	p.run("bb", "agent", "register", "--name", "other-agent", "--role", "review")

	pl := newPlans()
	srv := newModelServer(t, pl.script)
	pl.set("wrapped",
		turnPart{Tool: "ToolSearch", Input: map[string]any{"query": "select:mcp__blackboard__bb_identify,mcp__blackboard__bb_reserve"}},
		turnPart{Tool: "mcp__blackboard__bb_identify", Input: map[string]any{"agent": "other-agent"}},
		turnPart{Tool: "mcp__blackboard__bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}},
	)
	out, errOut, err := p.exec(claudeEnv(srv), bin, "-p", "[session W] [step wrapped] go on", "--output-format", "json",
		"--permission-mode", "acceptEdits", "--allowedTools", "mcp__blackboard,Read")
	if err != nil || !strings.Contains(out, `"is_error":false`) {
		t.Fatalf("claude: %v\n%s\n%s", err, out, errOut)
	}
	me := identityOf(t, srv, "W")
	reqs := stepRequests(srv, "W", "wrapped")
	if len(reqs) < 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if re := refusalRe(me, "other-agent"); !re.MatchString(reqs[2].Body) {
		t.Errorf("the refusal of bb_identify other-agent did not reach the model (want %s)", re)
		dump(t, "claude-W-identify", reqs[2].Body)
	}
	assertHolder(t, p, "src/a.go", me)
}

// refusalRe matches, in a request body (JSON, the tool result quoted once
// more or not), the core's refusal of bb_identify other in session me.
func refusalRe(me, other string) *regexp.Regexp {
	q := `\\*"`
	return regexp.MustCompile(`this session is ` + q + regexp.QuoteMeta(me) + q + `.{0,80}cannot become ` + q + regexp.QuoteMeta(other) + q + `; keep working as ` + regexp.QuoteMeta(me))
}

// assertHolder checks on the board that scope is reserved by agent.
func assertHolder(t *testing.T, p *project, scope, agent string) {
	t.Helper()
	out := p.run("bb", "agent", "status", "--json")
	var env struct {
		Data struct {
			Reservations []struct {
				Agent string `json:"agent_id"`
				Scope string `json:"scope"`
			} `json:"reservations"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("bb agent status --json: %v\n%s", err, out)
	}
	for _, r := range env.Data.Reservations {
		if strings.HasSuffix(r.Scope, scope) {
			if r.Agent != agent {
				t.Errorf("on the board, %s is reserved by %s, want %s", scope, r.Agent, agent)
			}
			return
		}
	}
	t.Errorf("on the board, %s is not reserved:\n%s", scope, out)
}

// trustClaude writes the private ~/.claude.json of a project: onboarding
// done, and each of dirs trusted with its .mcp.json server enabled.
func trustClaude(p *project, dirs ...string) {
	projects := map[string]any{}
	for _, d := range dirs {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"blackboard"}}
	}
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": projects})
	p.write(filepath.Join(p.home, ".claude.json"), string(cfg))
}

// claudeEnv points Claude Code at the model server and keeps it off the
// network.
func claudeEnv(srv *modelServer) []string {
	return []string{"ANTHROPIC_BASE_URL=" + srv.url, "ANTHROPIC_API_KEY=sk-ant-test", "DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// dump writes a request body where a failing test's reader finds it.
func dump(t *testing.T, name, body string) {
	dir := os.Getenv("BB_CLIENTTEST_DUMP")
	if dir == "" {
		return
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, []byte(body), 0o644); err == nil {
		t.Logf("request written to %s", path)
	}
}

// countInMessages counts the messages of role in an Anthropic request
// whose content holds text.
func countInMessages(t *testing.T, body, role, text string) int {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range req.Messages {
		if m.Role == role && strings.Contains(string(m.Content), text) {
			n++
		}
	}
	return n
}
