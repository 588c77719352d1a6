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

// TestOpenCode runs OpenCode (`opencode run`, offline against the model
// server) in a project wired by bb install opencode: the MCP entry in
// opencode.json and bb's plugin in .opencode/plugins/. Facts used, checked
// against opencode-ai 1.18.33: a provider in the user's
// ~/.config/opencode/opencode.json with "npm": "@ai-sdk/openai-compatible"
// (bundled, nothing downloaded) and options.baseURL speaks Chat
// Completions to the server; OPENCODE_DISABLE_MODELS_FETCH,
// OPENCODE_DISABLE_DEFAULT_PLUGINS, OPENCODE_DISABLE_AUTOUPDATE and
// OPENCODE_DISABLE_LSP_DOWNLOAD keep it off the network; `opencode run
// --format json` prints events carrying the sessionID that `--session`
// continues; MCP tools are named <server>_<tool>; a title request without
// tools runs beside each new session.
// https://opencode.ai/docs/providers, https://opencode.ai/docs/cli,
// https://opencode.ai/docs/plugins, https://opencode.ai/docs/mcp-servers.
func TestOpenCode(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "opencode")
	p := newProject(t)
	// OpenCode installs its plugin SDK (@opencode-ai/plugin, with npm) into
	// every configuration directory it reads (~/.config/opencode and the
	// project's .opencode/), and waits for that before it loads any
	// plugin; it skips a directory whose node_modules exists and whose
	// package-lock.json already lists the package (opencode-ai 1.18.33,
	// Npm.install). bb's plugin imports nothing from it, so these two
	// directories are marked installed to keep the test offline.
	for _, dir := range []string{filepath.Join(p.home, ".config", "opencode"), filepath.Join(p.dir, ".opencode")} {
		p.write(filepath.Join(dir, "package-lock.json"), `{"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}`)
		if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, p.dir)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	p.write(filepath.Join(p.home, ".config", "opencode", "opencode.json"), `{"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
  "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "scripted", "options": {"baseURL": "`+srv.url+`/v1", "apiKey": "test"},
    "models": {"m1": {"name": "m1", "tool_call": true}}}},
  "model": "scripted/m1", "small_model": "scripted/m1"}`)
	p.env = append(p.env, "OPENCODE_DISABLE_MODELS_FETCH=true", "OPENCODE_DISABLE_AUTOUPDATE=true", "OPENCODE_DISABLE_DEFAULT_PLUGINS=true",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=true", "OPENCODE_DISABLE_SHARE=true")
	p.run("bb", "install", "opencode")
	if out := p.run("bb", "doctor"); !strings.Contains(out, "ok    client opencode mcp") || !strings.Contains(out, "ok    client opencode ") {
		t.Fatalf("bb doctor after bb install opencode:\n%s", out)
	}

	var mu sync.Mutex
	sessions := map[string]string{}
	opencode := func(session, step string) {
		args := []string{"run", "--format", "json"}
		mu.Lock()
		if id := sessions[session]; id != "" {
			args = append(args, "--session", id)
		}
		mu.Unlock()
		out, errOut, err := p.exec(nil, bin, append(args, "[session "+session+"] [step "+step+"] go on")...)
		if err != nil {
			t.Errorf("opencode %s: %v\n%s\n%s", step, err, out, errOut)
			return
		}
		for _, line := range strings.Split(out, "\n") {
			var ev struct {
				SessionID string `json:"sessionID"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.SessionID != "" {
				mu.Lock()
				sessions[session] = ev.SessionID
				mu.Unlock()
				return
			}
		}
		t.Errorf("opencode %s printed no sessionID:\n%s\n%s", step, out, errOut)
	}

	// OpenCode takes 20-40 s a run on a loaded machine, so the scenario
	// is two runs. A: its identity, and its MCP tools acting as it (it
	// reserves src/a.go).
	pl.set("mcp", turnPart{Tool: "blackboard_bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}})
	opencode("A", "mcp")
	if t.Failed() {
		t.FailNow()
	}
	idA := identityOf(t, srv, "A")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 2 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[1].Body, `\"agent_id\":\"`+idA+`\"`) {
		t.Errorf("bb_reserve's result does not name %s", idA)
		dump(t, "opencode-A-reserve", reqs[1].Body)
	}

	// B: its own identity; mail A sends once B's turn has started arrives
	// after B's next tool call; its edit of A's file is denied and the
	// reason, naming A, reaches the model.
	aGo := filepath.Join(p.dir, "src", "a.go")
	pl.set("edit",
		turnPart{Tool: "read", Input: map[string]any{"filePath": aGo}},
		turnPart{Tool: "edit", Input: map[string]any{"filePath": aGo, "oldString": "package x", "newString": "package y"}},
	)
	pl.onFirst("edit", func() { sendMidMail(t, p, idA, identityOf(t, srv, "B")) })
	opencode("B", "edit")
	if idB := identityOf(t, srv, "B"); idB == idA {
		t.Fatalf("both sessions got identity %s", idA)
	}
	reqs = stepRequests(srv, "B", "edit")
	if len(reqs) < 3 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if strings.Contains(reqs[0].Body, "MIDMAIL-9c1") || countInChat(t, reqs[1].Body, "MIDMAIL-9c1") != 1 {
		t.Errorf("the mail sent mid-turn did not arrive, once, right after B's next tool call")
		dump(t, "opencode-B-mid", reqs[1].Body)
	}
	if !denialReached(reqs[2].Body, idA) {
		t.Errorf("the denial naming %s did not reach the model", idA)
		dump(t, "opencode-B-denied", reqs[2].Body)
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Errorf("the denied edit changed src/a.go: %q", got)
	}

	// bb uninstall puts the project's files back as they were, but for what
	// OpenCode writes itself: the "$schema" it adds to the opencode.json it
	// read, and the .gitignore of a configuration directory it installs
	// into.
	p.run("bb", "uninstall", "opencode")
	after := snapshot(t, p.dir)
	if left, ok := after["opencode.json"]; ok {
		var doc map[string]any
		if err := json.Unmarshal([]byte(left), &doc); err != nil || len(doc) != 1 || doc["$schema"] == nil {
			t.Errorf("bb uninstall opencode left more than OpenCode's own $schema in opencode.json:\n%s", left)
		}
		delete(after, "opencode.json")
	}
	delete(after, filepath.Join(".opencode", ".gitignore"))
	if !reflect.DeepEqual(before, after) {
		t.Errorf("bb uninstall opencode left the project changed:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}
