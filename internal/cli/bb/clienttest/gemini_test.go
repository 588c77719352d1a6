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

// countInParts counts the parts of a Gemini request that hold text.
func countInParts(t *testing.T, body, text string) int {
	t.Helper()
	var req struct {
		Contents []struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if strings.Contains(string(p), text) {
				n++
			}
		}
	}
	return n
}

// TestGeminiCLI runs Gemini CLI (-p, offline against the model server) in
// a project wired by bb install gemini. Facts used, checked against
// @google/gemini-cli 0.61.0: GEMINI_API_KEY with
// security.auth.selectedType "gemini-api-key" in ~/.gemini/settings.json,
// and GOOGLE_GEMINI_BASE_URL pointing at the server; a fixed -m model
// (the default router makes extra calls); a project's settings (MCP
// server, hooks) load only in a trusted folder (bb install gemini --trust
// writes ~/.gemini/trustedFolders.json); --session-id starts a session
// that --resume takes back; MCP tools are named mcp_<server>_<tool>; a
// hook's context is prepended to the prompt inside <hook_context>.
// https://geminicli.com/docs/get-started/authentication,
// https://geminicli.com/docs/cli/trusted-folders,
// https://geminicli.com/docs/cli/headless, https://geminicli.com/docs/hooks/reference.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "gemini")
	p := newProject(t)
	before := snapshot(t, p.dir)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	// Session cleanup off: at start Gemini deletes every chat file of the
	// project that has no resumable content yet, which includes the file a
	// session started at the same moment has just created (its metadata
	// line only); that session's --resume then fails ("Invalid session
	// identifier"). general.sessionRetention is on by default in 0.61
	// (bundle: cleanupExpiredSessions, identifySessionsToDelete).
	p.write(filepath.Join(p.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}, "general": {"disableAutoUpdate": true, "sessionRetention": {"enabled": false}}}`)
	p.env = append(p.env, "GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL="+srv.url)
	hooks := countHooks(t, p)

	var mu sync.Mutex
	started := map[string]bool{}
	sessionID := func(s string) string { return fmt.Sprintf("%08x-0000-4000-8000-000000000000", s[0]) } // Gemini names its chat file after the first 8 digits
	gemini := func(session, step string) {
		args := []string{"-p", "[session " + session + "] [step " + step + "] go on", "-m", "gemini-2.5-flash",
			"--output-format", "json", "--approval-mode", "yolo"}
		mu.Lock()
		if started[session] {
			args = append(args, "--resume", sessionID(session))
		} else {
			args = append(args, "--session-id", sessionID(session))
		}
		mu.Unlock()
		out, errOut, err := p.exec(nil, bin, args...)
		if err != nil {
			t.Errorf("gemini %s: %v\n%s\n%s", step, err, out, errOut)
			return
		}
		mu.Lock()
		started[session] = true
		mu.Unlock()
	}

	// Installed in an untrusted folder: Gemini ignores the project's
	// settings, and bb install and bb doctor say so.
	if _, errOut, _ := p.exec(nil, "bb", "install", "gemini"); !strings.Contains(errOut, "is not a trusted folder") {
		t.Fatalf("bb install gemini did not warn about the untrusted folder:\n%s", errOut)
	}
	// Gemini CLI 0.61 refuses a headless run in an untrusted folder.
	if out, errOut, err := p.exec(nil, bin, "-p", "[session U] [step untrusted] go on", "-m", "gemini-2.5-flash"); err == nil || !strings.Contains(errOut, "not running in a trusted directory") {
		t.Fatalf("gemini ran in an untrusted folder: %v\n%s%s", err, out, errOut)
	}
	if out := p.run("bb", "install", "gemini", "--trust"); !strings.Contains(out, "trust: recorded") {
		t.Fatalf("bb install gemini --trust:\n%s", out)
	}
	if out := p.run("bb", "doctor"); !strings.Contains(out, "ok    client gemini trust") {
		t.Fatalf("bb doctor after --trust:\n%s", out)
	}

	// Two sessions started at once get two identities.
	idA, idB := startTwo(t, srv, gemini)

	// A's MCP tools act as A: asked to become B, it is refused (the
	// refusal reaches the model) and stays A; the end-of-turn reminder
	// comes once.
	pl.set("mcp",
		turnPart{Tool: "mcp_blackboard_bb_identify", Input: map[string]any{"agent": idB}},
		turnPart{Tool: "mcp_blackboard_bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}},
		turnPart{Tool: "mcp_blackboard_bb_send_mail", Input: map[string]any{"agent": idB, "bead": "bb-1", "subject": "a.go", "body": "MAIL-7f3 I am on a.go"}},
	)
	gemini("A", "mcp")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 4 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if re := refusalRe(idA, idB); !re.MatchString(reqs[1].Body) {
		t.Errorf("the refusal of bb_identify %s did not reach the model (want %s)", idB, re)
		dump(t, "gemini-A-identify", reqs[1].Body)
	}
	if !strings.Contains(reqs[2].Body, idA) {
		t.Errorf("bb_reserve's result does not name %s", idA)
	}
	assertHolder(t, p, "src/a.go", idA)
	last := reqs[len(reqs)-1].Body
	if n := countInParts(t, last, "You still reserve src/a.go"); n != 1 {
		t.Errorf("end-of-turn reminder in %d parts of A's last request, want once", n)
		dump(t, "gemini-A-last", last)
	}

	// B: mail at its next prompt, mail sent mid-turn after its next tool
	// call, its replace of A's file denied naming A.
	pl.set("edit",
		turnPart{Tool: "mcp_blackboard_bb_check_scope", Input: map[string]any{"scope": "src/b.go"}},
		turnPart{Tool: "replace", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "a.go"), "old_string": "package x", "new_string": "package y", "instruction": "rename the package"}},
	)
	pl.onFirst("edit", func() {
		sendMidMail(t, p, idA, idB)
	})
	gemini("B", "edit")
	reqs = stepRequests(srv, "B", "edit")
	if len(reqs) < 3 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[0].Body, "MAIL-7f3") {
		t.Errorf("A's mail did not reach B's next prompt")
	}
	if strings.Contains(reqs[0].Body, "MIDMAIL-9c1") || !strings.Contains(reqs[1].Body, "MIDMAIL-9c1") {
		t.Errorf("the mail sent mid-turn did not arrive right after B's next tool call")
		for i, r := range reqs {
			dump(t, fmt.Sprintf("gemini-B-edit-%d", i), r.Body)
		}
	}
	if !denialReached(reqs[2].Body, idA) {
		t.Errorf("the denial naming %s did not reach the model", idA)
		dump(t, "gemini-B-denied", reqs[2].Body)
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Errorf("the denied replace changed src/a.go: %q", got)
	}
	gemini("B", "again")
	reqs = stepRequests(srv, "B", "again")
	if len(reqs) == 0 {
		t.Fatal("step again: no request")
	}
	// Gemini CLI rebuilds a resumed conversation without its earlier
	// prompts (and repeats tool results), so "exactly once" is checked on
	// the deliveries: the mail came once with the prompt, and the resumed
	// prompt brings neither mail again.
	if n := countInParts(t, stepRequests(srv, "B", "edit")[0].Body, "MAIL-7f3"); n != 1 {
		t.Errorf("A's mail is in %d parts of B's prompt, want once", n)
	}
	final := reqs[len(reqs)-1].Body
	var resumed string
	var req struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal([]byte(final), &req)
	for _, c := range req.Contents {
		for _, part := range c.Parts {
			if strings.Contains(part.Text, "[step again]") {
				resumed = part.Text
			}
		}
	}
	if !strings.Contains(resumed, "You are agent "+idB) || strings.Contains(resumed, "MAIL-7f3") || strings.Contains(resumed, "MIDMAIL-9c1") {
		t.Errorf("the resumed prompt is not one line of identity without the delivered mail:\n%s", resumed)
	}

	// A writes a new file while B mails it: the mail arrives right after
	// the write, once. A BeforeTool hook cannot add context (Gemini CLI
	// 0.61.0 reads only its decision and tool_input: hooks/reference.md,
	// BeforeTool), so bb's AfterTool, which runs for every tool, brings it.
	pl.set("own-edit",
		turnPart{Tool: "write_file", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "c.go"), "content": "package z\n"}},
	)
	pl.onFirst("own-edit", func() { sendMail(t, p, idB, idA, "edit", "EDITMAIL-4d2 go ahead") })
	hooks.since()
	gemini("A", "own-edit")
	t.Logf("own-edit turn ran bb hook %v", hooks.since())
	arrivedRightAfter(t, "gemini-A-own-edit", stepRequests(srv, "A", "own-edit"), "EDITMAIL-4d2", countInParts)
	if got := p.read("src/c.go"); got != "package z\n" {
		t.Errorf("A's new file was not written: %q", got)
	}

	// A commits the file its write reserved, with its shell tool and the
	// git guard installed: the commit goes through. Not thanks to the
	// guard: Gemini CLI 0.61 runs git with hooks turned off (its
	// getSafeGitEnv sets core.hooksPath, core.fsmonitor, credential.helper
	// and the editors to "" through GIT_CONFIG_COUNT/KEY_n/VALUE_n;
	// packages/core/src/utils/gitUtils.ts, in the package's
	// bundle/chunk-5FZXKDXH.js), so bb guard never sees a Gemini agent's
	// commit; the edit hooks are what guards files there (docs/install.md).
	// A guard that finds the session through the process tree is proved
	// with real git in hooktest TestGuardKnowsTheSessionsAgent.
	p.run("bb", "guard", "install")
	pl.set("commit", turnPart{Tool: "run_shell_command", Input: map[string]any{"command": "git add src/c.go && git commit -qm 'A adds c.go'", "description": "Commit the new file"}})
	committedInStep(t, p, srv, gemini, "commit", "gemini-A-commit", "A adds c.go")
	_ = os.Remove(filepath.Join(p.dir, "src", "c.go")) // the model's file, not bb's: gone before the uninstall check

	// bb uninstall puts the project's files back as they were.
	p.run("bb", "uninstall", "gemini")
	if after := snapshot(t, p.dir); !reflect.DeepEqual(before, after) {
		t.Errorf("bb uninstall gemini left the project changed:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}
