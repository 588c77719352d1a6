package clienttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestOpenCode runs OpenCode offline against the model server in a project
// wired by bb install opencode: the MCP entry in opencode.json and bb's
// plugin in .opencode/plugins/. Sessions A and B live in one OpenCode
// server (`opencode serve`, what its TUI runs; prompts through its HTTP
// API), which stays up after a turn, so the plugin can send the
// end-of-turn reminder; one OpenCode start serves both sessions. Facts
// used, checked against opencode-ai 1.18.33: a provider in the user's
// ~/.config/opencode/opencode.json with "npm": "@ai-sdk/openai-compatible"
// (bundled, nothing downloaded) and options.baseURL speaks Chat
// Completions to the server; OPENCODE_DISABLE_MODELS_FETCH,
// OPENCODE_DISABLE_DEFAULT_PLUGINS, OPENCODE_DISABLE_AUTOUPDATE and
// OPENCODE_DISABLE_LSP_DOWNLOAD keep it off the network; `opencode serve
// --port` prints "opencode server listening on <url>"; POST /session
// creates a session, POST /session/<id>/message sends a prompt and answers
// when the turn is over, GET /session/status lists the busy sessions; MCP
// tools are named <server>_<tool>.
// https://opencode.ai/docs/providers, https://opencode.ai/docs/cli,
// https://opencode.ai/docs/server, https://opencode.ai/docs/plugins,
// https://opencode.ai/docs/mcp-servers.
//
// What cuts OpenCode's start, measured (see BENCHMARKS.md): without a
// models cache (OPENCODE_DISABLE_MODELS_FETCH) OpenCode builds its
// provider catalogue from the models.dev snapshot bundled in its binary,
// every provider and model, seconds of a run's first turn;
// OPENCODE_MODELS_PATH names the catalogue file to read instead (opencode-ai
// 1.18.33, ModelsDev), and an empty one leaves the configured provider
// only. "snapshot": false (https://opencode.ai/config.json) stops the git
// snapshot OpenCode takes of the project around every step (its undo),
// and a session created with a title gets no title request beside its
// first turn (SessionPrompt.ensureTitle skips a title that is not the
// default).
func TestOpenCode(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "opencode")
	p := newProject(t)
	markOpenCodeSDK(t, p)
	before := snapshot(t, p.dir)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	offlineOpenCode(p, srv)
	p.run("bb", "install", "opencode")
	if out := p.run("bb", "doctor"); !strings.Contains(out, "ok    client opencode mcp") || !strings.Contains(out, "ok    client opencode ") {
		t.Fatalf("bb doctor after bb install opencode:\n%s", out)
	}

	// OpenCode takes 10-40 s to start on a loaded machine: one server
	// for both sessions.
	oc := startOpenCodeServer(t, p, bin)

	// A: its identity, and its MCP tools acting as it (it reserves
	// src/a.go); holding a file it did not change, it gets the end-of-turn
	// reminder as its next prompt, once (checked at the end, while B works).
	pl.set("mcp", turnPart{Tool: "blackboard_bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}})
	sessionA := oc.newSession(t, "A")
	oc.prompt(t, sessionA, "[session A] [step mcp] go on")
	idA := identityOf(t, srv, "A")
	reqs := stepRequests(srv, "A", "mcp")
	if len(reqs) < 2 {
		t.Fatalf("step mcp: %d requests", len(reqs))
	}
	if !strings.Contains(reqs[1].Body, `\"agent_id\":\"`+idA+`\"`) {
		t.Errorf("bb_reserve's result does not name %s", idA)
		dump(t, "opencode-A-reserve", reqs[1].Body)
	}

	// B, in the same OpenCode: its own identity; mail A sends once B's
	// turn has started arrives after B's next tool call; its edit of A's
	// file is denied and the reason, naming A, reaches the model.
	aGo := filepath.Join(p.dir, "src", "a.go")
	pl.set("edit",
		turnPart{Tool: "read", Input: map[string]any{"filePath": aGo}},
		turnPart{Tool: "edit", Input: map[string]any{"filePath": aGo, "oldString": "package x", "newString": "package y"}},
	)
	pl.onFirst("edit", func() { sendMidMail(t, p, idA, identityOf(t, srv, "B")) })
	sessionB := oc.newSession(t, "B")
	oc.prompt(t, sessionB, "[session B] [step edit] go on")
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

	// A's reminder reached the model as a prompt of its own, once: the idle
	// that ended the reminder's turn gave nothing new.
	const reminder = "You still reserve src/a.go"
	for deadline := time.Now().Add(2 * time.Minute); countReminderPrompts(t, sessionRequests(srv, "A"), reminder) == 0 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
	}
	oc.waitIdle(t, sessionA)
	aReqs := sessionRequests(srv, "A")
	if last := aReqs[len(aReqs)-1].Body; countInChat(t, last, reminder) != 1 {
		t.Errorf("the end-of-turn reminder is in %d messages of A's last request, want once", countInChat(t, last, reminder))
		dump(t, "opencode-A-last", last)
	}
	if n := countReminderPrompts(t, aReqs, reminder); n != 1 {
		t.Errorf("the end-of-turn reminder was A's latest prompt in %d requests, want 1 (one turn)", n)
	}
	if n := countReminderPrompts(t, sessionRequests(srv, "B"), "Before you stop"); n != 0 {
		t.Errorf("B, holding nothing, got %d end-of-turn reminders", n)
	}

	// bb uninstall puts the project's files back as they were, but for what
	// OpenCode writes itself: the "$schema" it adds to the opencode.json it
	// read, and the .gitignore of a configuration directory it installs
	// into.
	oc.stop(t)
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

// markOpenCodeSDK marks OpenCode's plugin SDK installed in the
// configuration directories it reads.
func markOpenCodeSDK(t *testing.T, p *project) {
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
}

// offlineOpenCode points OpenCode, for p, at the model server (a
// provider of its own in the user's configuration) and keeps it off the
// network.
func offlineOpenCode(p *project, srv *modelServer) {
	p.write(filepath.Join(p.home, "models.json"), "{}")
	p.write(filepath.Join(p.home, ".config", "opencode", "opencode.json"), `{"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled", "snapshot": false,
  "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "scripted", "options": {"baseURL": "`+srv.url+`/v1", "apiKey": "test"},
    "models": {"m1": {"name": "m1", "tool_call": true}}}},
  "model": "scripted/m1", "small_model": "scripted/m1"}`)
	p.env = append(p.env, "OPENCODE_DISABLE_MODELS_FETCH=true", "OPENCODE_DISABLE_AUTOUPDATE=true", "OPENCODE_DISABLE_DEFAULT_PLUGINS=true",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=true", "OPENCODE_DISABLE_SHARE=true", "OPENCODE_MODELS_PATH="+filepath.Join(p.home, "models.json"))
}

// lastUserText is the text of a Chat Completions request's last user
// message.
func lastUserText(t *testing.T, body string) string {
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
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return chatText(req.Messages[i].Content)
		}
	}
	return ""
}

// countReminderPrompts counts the requests (with tools: turns of the
// conversation, not side requests) whose last user message is the reminder.
func countReminderPrompts(t *testing.T, reqs []modelRequest, reminder string) int {
	t.Helper()
	n := 0
	for _, r := range reqs {
		if s, _ := progress(r.API, r.Body); s != "" && strings.Contains(lastUserText(t, r.Body), reminder) {
			n++
		}
	}
	return n
}

// openCodeServer is `opencode serve` running in a project.
type openCodeServer struct {
	url, dir string
	cmd      *exec.Cmd
	done     chan error // the server's exit, once
	stopOnce sync.Once
	stderr   *syncBuffer
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningRe = regexp.MustCompile(`opencode server listening on (http://\S+)`)

// startOpenCodeServer starts OpenCode's headless server in p on a free
// loopback port and waits until it listens.
func startOpenCodeServer(t *testing.T, p *project, bin string) *openCodeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	oc := &openCodeServer{dir: p.dir, done: make(chan error, 1), stderr: &syncBuffer{}}
	oc.cmd = exec.Command(bin, "serve", "--hostname", "127.0.0.1", "--port", fmt.Sprint(port))
	oc.cmd.Dir, oc.cmd.Env, oc.cmd.Stderr = p.dir, p.env, oc.stderr
	out, err := oc.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := oc.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { oc.stop(t) })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listeningRe.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		oc.done <- oc.cmd.Wait()
	}()
	select {
	case oc.url = <-found:
	case err := <-oc.done:
		oc.done <- err // for stop
		t.Fatalf("opencode serve exited: %v\n%s", err, oc.stderr)
	case <-time.After(2 * time.Minute):
		t.Fatalf("opencode serve did not listen within 2 minutes\n%s", oc.stderr)
	}
	return oc
}

// call sends one request to the server's HTTP API for the project's
// directory and decodes its JSON answer into out.
func (oc *openCodeServer) call(t *testing.T, method, path string, in, out any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, oc.url+path+"?directory="+url.QueryEscape(oc.dir), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("opencode %s %s: %v\n%s", method, path, err, oc.stderr)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, out) != nil {
		t.Fatalf("opencode %s %s: %s\n%s", method, path, resp.Status, b)
	}
}

// newSession creates a session with title.
func (oc *openCodeServer) newSession(t *testing.T, title string) string {
	t.Helper()
	var s struct {
		ID string `json:"id"`
	}
	oc.call(t, http.MethodPost, "/session", map[string]any{"title": title}, &s)
	if s.ID == "" {
		t.Fatal("opencode POST /session gave no id")
	}
	return s.ID
}

// prompt sends text to session and returns when its turn is over.
func (oc *openCodeServer) prompt(t *testing.T, session, text string) {
	t.Helper()
	var msg map[string]any
	oc.call(t, http.MethodPost, "/session/"+session+"/message", map[string]any{"parts": []any{map[string]any{"type": "text", "text": text}}}, &msg)
}

// waitIdle waits until the server runs no turn of session.
func (oc *openCodeServer) waitIdle(t *testing.T, session string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var status map[string]any
		oc.call(t, http.MethodGet, "/session/status", nil, &status)
		if _, busy := status[session]; !busy {
			return
		}
	}
	t.Fatalf("session %s is still busy", session)
}

// stop ends the server (once) and waits for it. SIGTERM, not SIGINT: a
// process started from a shell's background job inherits SIGINT ignored.
func (oc *openCodeServer) stop(t *testing.T) {
	oc.stopOnce.Do(func() {
		_ = oc.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-oc.done:
		case <-time.After(60 * time.Second):
			t.Logf("opencode serve did not stop on SIGTERM; killed")
			_ = oc.cmd.Process.Kill()
			<-oc.done
		}
	})
}
