package clienttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestQwenCode runs Qwen Code (`qwen -p`, offline against the model
// server) in a project wired by bb install qwen. Facts used, checked
// against @qwen-code/qwen-code 0.24.4 (its bundled docs,
// bundled/qc-helper/docs: configuration/auth.md, features/headless.md,
// features/hooks.md, features/mcp.md, configuration/trusted-folders.md):
// security.auth.selectedType "openai" with OPENAI_API_KEY, OPENAI_BASE_URL
// and OPENAI_MODEL selects an OpenAI-compatible endpoint (Chat
// Completions); --session-id names a new session and --resume takes it
// back; folder trust is off by default, so the project's
// .qwen/settings.json (MCP server, hooks) loads; hooks are Claude Code's
// events and wire format; MCP tools (mcp__<server>__<tool>) are deferred
// and called through the tool_call tool; edit refuses a file not read in
// the session; managed auto-memory (a side request after each turn) is
// turned off with memory.enableManagedAutoMemory.
// https://qwenlm.github.io/qwen-code-docs/en/users/features/hooks.
func TestQwenCode(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "qwen")
	p := newProject(t)
	before := snapshot(t, p.dir)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	p.write(filepath.Join(p.home, ".qwen", "settings.json"), `{"security": {"auth": {"selectedType": "openai"}}, "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true}, "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false}}`)
	p.env = append(p.env, "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.url+"/v1", "OPENAI_MODEL=qwen3-coder-plus", "QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
	hooks := countHooks(t, p)
	p.run("bb", "install", "qwen")
	if out := p.run("bb", "doctor"); !strings.Contains(out, "ok    client qwen mcp") {
		t.Fatalf("bb doctor after bb install qwen:\n%s", out)
	}

	var mu sync.Mutex
	started := map[string]bool{}
	qwen := func(session, step string) {
		sid := fmt.Sprintf("%08x-0000-4000-8000-000000000000", session[0])
		args := []string{"-p", "[session " + session + "] [step " + step + "] go on", "--approval-mode", "yolo", "--output-format", "json"}
		mu.Lock()
		if started[session] {
			args = append(args, "--resume", sid)
		} else {
			args = append(args, "--session-id", sid)
		}
		mu.Unlock()
		out, errOut, err := p.exec(nil, bin, args...)
		if err != nil {
			t.Errorf("qwen %s: %v\n%s\n%s", step, err, out, errOut)
			return
		}
		mu.Lock()
		started[session] = true
		mu.Unlock()
	}
	// tool calls a deferred (MCP) tool through Qwen Code's tool_call.
	tool := func(name string, args map[string]any) turnPart {
		return turnPart{Tool: "tool_call", Input: map[string]any{"name": name, "arguments": args}}
	}

	// Two sessions started at once get two identities.
	idA, idB := startTwo(t, srv, qwen)

	// A's MCP tools act as A: it reserves src/a.go and mails B; holding a
	// file it did not change, A gets the Stop reminder once.
	pl.set("mcp",
		tool("mcp__blackboard__bb_reserve", map[string]any{"scope": "src/a.go", "bead": "bb-1"}),
		tool("mcp__blackboard__bb_send_mail", map[string]any{"agent": idB, "bead": "bb-1", "subject": "a.go", "body": "MAIL-7f3 I am on a.go"}),
	)
	qwen("A", "mcp")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 3 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[1].Body, `\"agent_id\":\"`+idA+`\"`) {
		t.Errorf("bb_reserve's result does not name %s", idA)
		dump(t, "qwen-A-reserve", reqs[1].Body)
	}
	last := reqs[len(reqs)-1].Body
	if n := countInChat(t, last, "You still reserve src/a.go"); n != 1 {
		t.Errorf("Stop reminder in %d messages of A's last request, want once", n)
		dump(t, "qwen-A-last", last)
	}

	// B: the mail reaches its next prompt; mail sent mid-turn arrives after
	// its next tool call; its edit of A's file is denied and the reason,
	// naming A, reaches the model.
	aGo := filepath.Join(p.dir, "src", "a.go")
	pl.set("edit",
		turnPart{Tool: "read_file", Input: map[string]any{"file_path": aGo}},
		turnPart{Tool: "edit", Input: map[string]any{"file_path": aGo, "old_string": "package x", "new_string": "package y"}},
	)
	pl.onFirst("edit", func() {
		sendMidMail(t, p, idA, idB)
	})
	qwen("B", "edit")
	reqs = stepRequests(srv, "B", "edit")
	if len(reqs) < 3 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if n := countInChat(t, reqs[0].Body, "MAIL-7f3"); n != 1 {
		t.Errorf("A's mail is in %d messages of B's next prompt, want once", n)
		dump(t, "qwen-B-prompt", reqs[0].Body)
	}
	if strings.Contains(reqs[0].Body, "MIDMAIL-9c1") || countInChat(t, reqs[1].Body, "MIDMAIL-9c1") != 1 {
		t.Errorf("the mail sent mid-turn did not arrive, once, right after B's next tool call")
		dump(t, "qwen-B-mid", reqs[1].Body)
	}
	if !denialReached(reqs[2].Body, idA) {
		t.Errorf("the denial naming %s did not reach the model", idA)
		dump(t, "qwen-B-denied", reqs[2].Body)
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Errorf("the denied edit changed src/a.go: %q", got)
	}

	// A writes a new file while B mails it: the mail arrives right after
	// the write, once. Qwen Code 0.24.4 drops a PreToolUse hook's
	// additionalContext when it lets the tool run (its scheduler only logs
	// it), so here bb's PostToolUse, which runs for every tool, brings it.
	pl.set("own-edit",
		turnPart{Tool: "write_file", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "c.go"), "content": "package z\n"}},
	)
	pl.onFirst("own-edit", func() { sendMail(t, p, idB, idA, "edit", "EDITMAIL-4d2 go ahead") })
	hooks.since()
	qwen("A", "own-edit")
	t.Logf("own-edit turn ran bb hook %v", hooks.since())
	arrivedRightAfter(t, "qwen-A-own-edit", stepRequests(srv, "A", "own-edit"), "EDITMAIL-4d2", countInChat)
	if got := p.read("src/c.go"); got != "package z\n" {
		t.Errorf("A's new file was not written: %q", got)
	}
	_ = os.Remove(filepath.Join(p.dir, "src", "c.go")) // the model's file, not bb's: gone before the uninstall check

	// bb uninstall puts the project's files back as they were. Qwen Code
	// itself stamps the settings file it read with its format
	// version ("$version"); bb removes its own entries and keeps the
	// client's, so exactly that may be left.
	p.run("bb", "uninstall", "qwen")
	after := snapshot(t, p.dir)
	if left, ok := after[filepath.Join(".qwen", "settings.json")]; ok {
		var doc map[string]any
		if err := json.Unmarshal([]byte(left), &doc); err != nil || len(doc) != 1 || doc["$version"] == nil {
			t.Errorf("bb uninstall qwen left more than Qwen Code's own $version in .qwen/settings.json:\n%s", left)
		}
		delete(after, filepath.Join(".qwen", "settings.json"))
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("bb uninstall qwen left the project changed:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}
