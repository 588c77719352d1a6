package clienttest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// countInChat counts the messages of a Chat Completions request whose
// content holds text.
func countInChat(t *testing.T, body, text string) int {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range req.Messages {
		if strings.Contains(chatText(m.Content), text) {
			n++
		}
	}
	return n
}

// TestCopilotCLI runs GitHub Copilot CLI (`copilot -p`, offline against
// the model server) in a project wired by bb install copilot. Facts used,
// checked against @github/copilot 1.0.102 (`copilot help environment`,
// `copilot help config`, `copilot mcp --help`): COPILOT_OFFLINE=true skips
// GitHub authentication and every network access, and needs a custom
// provider, COPILOT_PROVIDER_BASE_URL (BYOK), here speaking Chat
// Completions (COPILOT_PROVIDER_WIRE_API=completions); COPILOT_HOME holds
// config.json, whose trustedFolders gate the repository's hooks and
// workspace MCP servers (bb install copilot --trust records it);
// --session-id names a new session and resumes it later; MCP tools are
// named <server>-<tool>; a sessionStart or postToolUse hook's
// additionalContext reaches the model, a preToolUse deny reaches it as the
// tool's error, and an agentStop block becomes the next prompt.
// https://docs.github.com/en/copilot/reference/hooks-reference.
func TestCopilotCLI(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "copilot")
	p := newProject(t)
	before := snapshot(t, p.dir)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	p.env = append(p.env, "COPILOT_HOME="+filepath.Join(p.home, ".copilot"), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+srv.url+"/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_PROVIDER_API_KEY=test", "COPILOT_MODEL=gpt-5.4")
	hooks := countHooks(t, p)

	var mu sync.Mutex
	started := map[string]bool{}
	copilot := func(session, step string) {
		// Copilot takes --session-id both to name a new session and to
		// resume one.
		sid := fmt.Sprintf("%08x-0000-4000-8000-000000000000", session[0])
		out, errOut, err := p.exec(nil, bin, "-p", "[session "+session+"] [step "+step+"] go on", "--allow-all-tools",
			"--output-format", "json", "--session-id", sid, "--no-auto-update")
		if err != nil || !strings.Contains(out, `"exitCode":0`) {
			t.Errorf("copilot %s: %v\n%s\n%s", step, err, out, errOut)
			return
		}
		mu.Lock()
		started[session] = true
		mu.Unlock()
	}

	// Installed in a folder Copilot does not trust: it runs without bb's
	// hooks and MCP server, and bb install and bb doctor say so.
	if _, errOut, _ := p.exec(nil, "bb", "install", "copilot"); !strings.Contains(errOut, "is not a trusted folder") {
		t.Fatalf("bb install copilot did not warn about the untrusted folder:\n%s", errOut)
	}
	if out, _, err := p.exec(nil, "bb", "doctor"); err == nil || !strings.Contains(out, "FAIL  client copilot trust") {
		t.Fatalf("bb doctor did not fail on Copilot's trust: %v\n%s", err, out)
	}
	copilot("U", "untrusted")
	if r := sessionRequests(srv, "U"); len(r) == 0 || strings.Contains(r[0].Body, "[Blackboard]") || strings.Contains(r[0].Body, "blackboard-bb_") {
		t.Fatalf("an untrusted folder's hooks or MCP server were loaded (or no request came)")
	}
	if out := p.run("bb", "install", "copilot", "--trust"); !strings.Contains(out, "trust: recorded") {
		t.Fatalf("bb install copilot --trust:\n%s", out)
	}
	if out := p.run("bb", "doctor"); !strings.Contains(out, "ok    client copilot trust") || !strings.Contains(out, "ok    client copilot mcp") {
		t.Fatalf("bb doctor after --trust:\n%s", out)
	}

	// Two sessions started at once get two identities.
	idA, idB := startTwo(t, srv, copilot)

	// A's MCP tools act as A: it reserves src/a.go and mails B; holding a
	// file it did not change, A gets the agentStop reminder once.
	pl.set("mcp",
		turnPart{Tool: "blackboard-bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}},
		turnPart{Tool: "blackboard-bb_send_mail", Input: map[string]any{"agent": idB, "bead": "bb-1", "subject": "a.go", "body": "MAIL-7f3 I am on a.go"}},
	)
	copilot("A", "mcp")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 3 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[1].Body, `\"agent_id\":\"`+idA+`\"`) {
		t.Errorf("bb_reserve's result does not name %s", idA)
		dump(t, "copilot-A-reserve", reqs[1].Body)
	}
	all := sessionRequests(srv, "A")
	if n := countInChat(t, all[len(all)-1].Body, "You still reserve src/a.go"); n != 1 {
		t.Errorf("agentStop reminder in %d messages of A's last request, want once", n)
		dump(t, "copilot-A-last", all[len(all)-1].Body)
	}

	// B: the mail reaches its next prompt (the resumed session's
	// sessionStart); mail sent mid-turn arrives after its next tool call
	// (postToolUse); its edit of A's file is denied and the reason, naming
	// A, reaches the model.
	pl.set("edit",
		turnPart{Tool: "view", Input: map[string]any{"path": filepath.Join(p.dir, "src", "b.go")}},
		turnPart{Tool: "edit", Input: map[string]any{"path": filepath.Join(p.dir, "src", "a.go"), "old_str": "package x", "new_str": "package y"}},
	)
	pl.onFirst("edit", func() {
		sendMidMail(t, p, idA, idB)
	})
	copilot("B", "edit")
	reqs = stepRequests(srv, "B", "edit")
	if len(reqs) < 3 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if n := countInChat(t, reqs[0].Body, "MAIL-7f3"); n != 1 {
		t.Errorf("A's mail is in %d messages of B's next prompt, want once", n)
		dump(t, "copilot-B-prompt", reqs[0].Body)
	}
	if strings.Contains(reqs[0].Body, "MIDMAIL-9c1") || countInChat(t, reqs[1].Body, "MIDMAIL-9c1") != 1 {
		t.Errorf("the mail sent mid-turn did not arrive, once, right after B's next tool call")
		dump(t, "copilot-B-mid", reqs[1].Body)
	}
	if !denialReached(reqs[2].Body, idA) {
		t.Errorf("the denial naming %s did not reach the model", idA)
		dump(t, "copilot-B-denied", reqs[2].Body)
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Errorf("the denied edit changed src/a.go: %q", got)
	}

	// A edits the file it holds while B mails it: the edit's preToolUse
	// hook brings the mail (bb's postToolUse runs for the other tools
	// only), right after the edit, once; the turn starts no postToolUse.
	// Copilot gives gpt-5.4 one file tool, the freeform apply_patch.
	pl.set("own-edit",
		turnPart{Tool: "apply_patch", Custom: true, Raw: "*** Begin Patch\n*** Update File: " + filepath.Join(p.dir, "src", "a.go") + "\n@@\n-package x\n+package z\n*** End Patch\n"},
	)
	pl.onFirst("own-edit", func() { sendMail(t, p, idB, idA, "edit", "EDITMAIL-4d2 go ahead") })
	hooks.since()
	copilot("A", "own-edit")
	ran := hooks.since()
	t.Logf("own-edit turn ran bb hook %v", ran)
	arrivedRightAfter(t, "copilot-A-own-edit", stepRequests(srv, "A", "own-edit"), "EDITMAIL-4d2", countInChat)
	if countOf(ran, "preToolUse") != 1 || countOf(ran, "postToolUse") != 0 {
		t.Errorf("a turn of one edit ran bb hook %v, want one preToolUse and no postToolUse", ran)
	}
	if got := p.read("src/a.go"); got != "package z\n" {
		t.Errorf("A's edit of its own file did not happen: %q", got)
	}
	p.write("src/a.go", "package x\n") // the model's edit, not bb's: undone before the uninstall check

	// bb uninstall puts the project's files back as they were.
	p.run("bb", "uninstall", "copilot")
	if after := snapshot(t, p.dir); !reflect.DeepEqual(before, after) {
		t.Errorf("bb uninstall copilot left the project changed:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}
