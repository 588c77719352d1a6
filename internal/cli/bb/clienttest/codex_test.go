package clienttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// countInInput counts the input items of an OpenAI Responses request that
// hold text.
func countInInput(t *testing.T, body, text string) int {
	t.Helper()
	var req struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range req.Input {
		if strings.Contains(string(it), text) {
			n++
		}
	}
	return n
}

// TestCodexCLI runs Codex CLI (`codex exec --json`, offline against the
// model server) in a project wired by bb install codex. Facts used,
// checked against @openai/codex 0.169.0: CODEX_HOME holds config.toml,
// whose model_provider names a [model_providers.<id>] table with base_url
// and wire_api = "responses" (the key from the env_key variable); `codex
// exec --json` prints thread.started with the thread_id that `codex exec
// resume <id>` takes; project hooks run only once the project and each
// hook are trusted (bb install codex --trust records both through Codex's
// app-server); MCP tools are deferred behind the client-executed
// tool_search (a tool_search_call item, answered by a tool_search_output
// listing the server's tools as the namespace "mcp__blackboard"), and
// called as function calls with that namespace; edits are the custom tool
// apply_patch. https://developers.openai.com/codex/config-reference,
// https://developers.openai.com/codex/noninteractive,
// https://developers.openai.com/codex/hooks.
func TestCodexCLI(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "codex")
	p := newProject(t)
	before := snapshot(t, p.dir)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	codexHome := filepath.Join(p.home, ".codex")
	p.write(filepath.Join(codexHome, "config.toml"), `model = "gpt-5.5"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = "`+srv.url+`/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
`)
	p.env = append(p.env, "CODEX_HOME="+codexHome, "SCRIPTED_API_KEY=test",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	hooks := countHooks(t, p)

	var mu sync.Mutex
	threads := map[string]string{}
	codex := func(session, step string) {
		prompt := "[session " + session + "] [step " + step + "] go on"
		// bb_reserve is annotated destructive, and Codex asks before a
		// destructive MCP tool unless its approval mode says otherwise;
		// codex exec cannot ask ("MCP tool call requires approval, but
		// approval policy is never").
		approve := `mcp_servers.blackboard.default_tools_approval_mode="approve"`
		args := []string{"exec", "--json", "-c", approve, prompt}
		if step == "untrusted" {
			// The project's layer (and so the server) is not loaded yet.
			args = []string{"exec", "--json", prompt}
		}
		mu.Lock()
		if id := threads[session]; id != "" {
			args = []string{"exec", "resume", "--json", "-c", approve, id, prompt}
		}
		mu.Unlock()
		if step == "commit" {
			// Codex's default sandbox mounts the work tree read-only for
			// commands (git cannot write .git); a user who lets Codex
			// commit runs it without one.
			args = append([]string{args[0], "-c", `sandbox_mode="danger-full-access"`}, args[1:]...)
		}
		out, errOut, err := p.exec(nil, bin, args...)
		if err != nil {
			t.Errorf("codex %s: %v\n%s\n%s", step, err, out, errOut)
			return
		}
		for _, line := range strings.Split(out, "\n") {
			var ev struct {
				Type     string `json:"type"`
				ThreadID string `json:"thread_id"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "thread.started" {
				mu.Lock()
				threads[session] = ev.ThreadID
				mu.Unlock()
			}
		}
	}

	// Installed but not trusted: Codex runs none of bb's hooks, and both
	// bb install and bb doctor say so.
	_, errOut, err := p.exec(nil, "bb", "install", "codex")
	if err != nil || !strings.Contains(errOut, "not trusted") {
		t.Fatalf("bb install codex did not warn about Codex's trust: %v\n%s", err, errOut)
	}
	if out, _, err := p.exec(nil, "bb", "doctor"); err == nil || !strings.Contains(out, "FAIL  client codex trust") {
		t.Fatalf("bb doctor did not fail on Codex's trust: %v\n%s", err, out)
	}
	codex("U", "untrusted")
	if r := sessionRequests(srv, "U"); len(r) == 0 || strings.Contains(r[0].Body, "[Blackboard]") {
		t.Fatalf("an untrusted project's hooks ran (or no request came)")
	}
	// bb install codex --trust records the trust through Codex itself.
	if out := p.run("bb", "install", "codex", "--trust"); !strings.Contains(out, "trust: recorded") {
		t.Fatalf("bb install codex --trust:\n%s", out)
	}
	if out := p.run("bb", "doctor"); !strings.Contains(out, "ok    client codex trust") {
		t.Fatalf("bb doctor after --trust:\n%s", out)
	}

	// Two sessions started at once get two identities.
	idA, idB := startTwo(t, srv, codex)

	// A's MCP tools act as A: asked to become B, it is refused (the
	// refusal reaches the model) and stays A; it reserves src/a.go and
	// mails B; holding a file it did not change, A gets the Stop reminder
	// once.
	search := turnPart{Item: map[string]any{"type": "tool_search_call", "execution": "client", "status": "completed", "arguments": map[string]any{"query": "blackboard identify reserve mail summary"}}}
	pl.set("mcp", search,
		turnPart{Tool: "mcp__blackboard.bb_identify", Input: map[string]any{"agent": idB}},
		turnPart{Tool: "mcp__blackboard.bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}},
		turnPart{Tool: "mcp__blackboard.bb_send_mail", Input: map[string]any{"agent": idB, "bead": "bb-1", "subject": "a.go", "body": "MAIL-7f3 I am on a.go"}},
	)
	codex("A", "mcp")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 5 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if re := refusalRe(idA, idB); !re.MatchString(reqs[2].Body) {
		t.Errorf("the refusal of bb_identify %s did not reach the model (want %s)", idB, re)
		dump(t, "codex-A-identify", reqs[2].Body)
	}
	last := reqs[len(reqs)-1].Body
	if !strings.Contains(reqs[3].Body, `\"agent_id\":\"`+idA) && !strings.Contains(reqs[3].Body, idA) {
		t.Errorf("bb_reserve's result does not name %s", idA)
	}
	assertHolder(t, p, "src/a.go", idA)
	if n := countInInput(t, last, "You still reserve src/a.go"); n != 1 {
		t.Errorf("Stop reminder in %d input items of A's last request, want once", n)
		dump(t, "codex-A-last", last)
	}

	// B: the mail reaches its next prompt; mail sent mid-turn arrives after
	// its next tool call; its apply_patch of A's file is denied and the
	// reason, naming A, reaches the model.
	pl.set("edit", search,
		turnPart{Tool: "mcp__blackboard.bb_check_scope", Input: map[string]any{"scope": "src/b.go"}},
		turnPart{Tool: "apply_patch", Custom: true, Raw: "*** Begin Patch\n*** Update File: src/a.go\n@@\n-package x\n+package y\n*** End Patch\n"},
	)
	pl.onFirst("edit", func() {
		sendMidMail(t, p, idA, idB)
	})
	codex("B", "edit")
	reqs = stepRequests(srv, "B", "edit")
	if len(reqs) < 4 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[0].Body, "MAIL-7f3") {
		t.Errorf("A's mail did not reach B's next prompt")
	}
	if strings.Contains(reqs[1].Body, "MIDMAIL-9c1") || !strings.Contains(reqs[2].Body, "MIDMAIL-9c1") {
		t.Errorf("the mail sent mid-turn did not arrive right after B's next tool call")
		for i, r := range reqs {
			dump(t, "codex-B-edit-"+string(rune('0'+i)), r.Body)
		}
	}
	if !denialReached(reqs[3].Body, idA) {
		t.Errorf("the denial naming %s did not reach the model", idA)
		dump(t, "codex-B-denied", reqs[3].Body)
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Errorf("the denied patch changed src/a.go: %q", got)
	}
	codex("B", "again")
	reqs = stepRequests(srv, "B", "again")
	if len(reqs) == 0 {
		t.Fatal("step again: no request")
	}
	final := reqs[len(reqs)-1].Body
	for _, mail := range []string{"MAIL-7f3", "MIDMAIL-9c1"} {
		if n := countInInput(t, final, mail); n != 1 {
			t.Errorf("%s is in %d input items of B's conversation, want exactly once", mail, n)
			dump(t, "codex-B-final", final)
		}
	}

	// A patches the file it holds while B mails it: the patch's PreToolUse
	// hook brings the mail (bb's PostToolUse runs for the other tools
	// only, its matcher spelled without look-around for Codex's regex
	// engine), right after the patch, once; the turn starts no PostToolUse.
	pl.set("own-edit",
		turnPart{Tool: "apply_patch", Custom: true, Raw: "*** Begin Patch\n*** Update File: src/a.go\n@@\n-package x\n+package z\n*** End Patch\n"},
	)
	pl.onFirst("own-edit", func() { sendMail(t, p, idB, idA, "edit", "EDITMAIL-4d2 go ahead") })
	hooks.since()
	codex("A", "own-edit")
	ran := hooks.since()
	t.Logf("own-edit turn ran bb hook %v", ran)
	arrivedRightAfter(t, "codex-A-own-edit", stepRequests(srv, "A", "own-edit"), "EDITMAIL-4d2", countInInput)
	if countOf(ran, "PreToolUse") != 1 || countOf(ran, "PostToolUse") != 0 {
		t.Errorf("a turn of one patch ran bb hook %v, want one PreToolUse and no PostToolUse", ran)
	}
	if got := p.read("src/a.go"); got != "package z\n" {
		t.Errorf("A's patch of its own file did not happen: %q", got)
	}

	// A commits its change with its shell tool (exec_command) and the git
	// guard installed. Codex sets no BB_AGENT_ID in its shell, so the
	// guard finds A's session through the process tree (git's hook, git,
	// the shells, Codex): A's own reservation of src/a.go does not refuse
	// A's commit (with the guard of the previous release it did, naming A
	// itself as the holder).
	// --absolute: Codex runs commands in a login shell, whose PATH comes
	// from the (empty) test home's profile, without the test's bb.
	p.run("bb", "guard", "install", "--absolute")
	pl.set("commit", turnPart{Tool: "exec_command", Input: map[string]any{"cmd": "git commit -qam 'A changes a.go'; echo rc=$?"}})
	committedInStep(t, p, srv, codex, "commit", "codex-A-commit", "A changes a.go")
	p.write("src/a.go", "package x\n") // the model's edit, not bb's: undone before the uninstall check

	// bb uninstall puts the project's files back as they were.
	p.run("bb", "uninstall", "codex")
	if after := snapshot(t, p.dir); !reflect.DeepEqual(before, after) {
		t.Errorf("bb uninstall codex left the project changed:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}
