package hooktest

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wtSession is a Claude Code session started in one checkout of the
// project (the main work tree or a linked one): its hooks run there, with
// no --dir, and find the board as a client's hooks would.
type wtSession struct {
	p   *project
	dir string
	id  string
	env []string
}

func (s *wtSession) hook(t testing.TB, event string, kv ...any) (map[string]any, string) {
	t.Helper()
	m := map[string]any{"session_id": s.id, "transcript_path": "/t/" + s.id + ".jsonl", "cwd": s.dir,
		"permission_mode": "default", "hook_event_name": event}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	in, _ := json.Marshal(m)
	c := exec.Command(bbPath(), "hook", "claude", event)
	c.Dir = s.dir
	c.Env = append(append([]string{}, s.p.env...), s.env...)
	c.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("bb hook claude %s in %s: %v\nstderr: %s", event, s.dir, err, errb.String())
	}
	if out.Len() == 0 {
		return nil, errb.String()
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("stdout is not one JSON object: %q", out.String())
	}
	return r, errb.String()
}

func (s *wtSession) start(t testing.TB) string {
	t.Helper()
	out, errOut := s.hook(t, "SessionStart", "source", "startup")
	ctx := str(out, "hookSpecificOutput.additionalContext")
	if ctx == "" {
		t.Fatalf("SessionStart in %s injected nothing (stderr %q)", s.dir, errOut)
	}
	return agentOf(t, ctx)
}

// edit returns "" when allowed, else the denial reason; note is stderr.
func (s *wtSession) edit(t testing.TB, rel string) (reason, note string) {
	t.Helper()
	out, errOut := s.hook(t, "PreToolUse", "tool_name", "Edit", "tool_use_id", "toolu_x",
		"tool_input", map[string]any{"file_path": filepath.Join(s.dir, rel), "old_string": "package x", "new_string": "package y"})
	if out == nil {
		return "", errOut
	}
	if str(out, "hookSpecificOutput.permissionDecision") != "deny" {
		t.Fatalf("unexpected PreToolUse reply %v", out)
	}
	return str(out, "hookSpecificOutput.permissionDecisionReason"), errOut
}

// runIn runs a command in dir with the project's environment.
func (p *project) runIn(dir string, env []string, name string, args ...string) (string, string, int) {
	c := exec.Command(name, args...)
	c.Dir = dir
	c.Env = append(append(append([]string{}, p.env...), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return out.String(), errb.String(), code
}

// worktrees adds the two linked work trees of the issue: ../wt1 (beside
// the main one) and .claude/worktrees/x (Claude Code's --worktree).
func (p *project) worktrees(t testing.TB) (wt1, wtx string) {
	t.Helper()
	wt1 = filepath.Join(filepath.Dir(p.dir), filepath.Base(p.dir)+"-wt1")
	wtx = filepath.Join(p.dir, ".claude", "worktrees", "x")
	p.must(t, "git", "worktree", "add", "-q", wt1, "-b", "wt1")
	p.must(t, "git", "worktree", "add", "-q", wtx, "-b", "worktree-x")
	t.Cleanup(func() { _ = os.RemoveAll(wt1) })
	return wt1, wtx
}

// Sessions in the main checkout, in `git worktree add ../wt1` and in
// .claude/worktrees/x share one board: an edit of src/a.go held in one is
// denied in the others; a reservation made from a work tree blocks the
// main checkout; the guard refuses a commit in a work tree touching a held
// file.
func TestWorktreesShareOneBoard(t *testing.T) {
	p := newProject(t)
	wt1, wtx := p.worktrees(t)
	main := &wtSession{p: p, dir: p.dir, id: "sess-main"}
	s1 := &wtSession{p: p, dir: wt1, id: "sess-wt1"}
	sx := &wtSession{p: p, dir: wtx, id: "sess-x"}
	am, a1, ax := main.start(t), s1.start(t), sx.start(t)
	if am == a1 || a1 == ax || am == ax {
		t.Fatalf("sessions share an agent: %s %s %s", am, a1, ax)
	}
	// Every work tree sees the one board: bb status from each lists all three.
	for _, d := range []string{p.dir, wt1, wtx} {
		out, errOut, code := p.runIn(d, nil, bbPath(), "--json", "status")
		if code != 0 {
			t.Fatalf("bb status in %s: exit %d %s%s", d, code, out, errOut)
		}
		for _, id := range []string{am, a1, ax} {
			if !strings.Contains(out, id) {
				t.Fatalf("bb status in %s lacks %s:\n%s", d, id, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(wt1, ".bb")); err == nil {
		t.Fatal("a board appeared in the linked work tree")
	}
	// Each session's work tree, branch and host are on the board.
	host, _ := os.Hostname()
	out, errOut, code := p.runIn(p.dir, nil, bbPath(), "--json", "agent", "show", "--agent", ax)
	if code != 0 {
		t.Fatalf("agent show: %s", errOut)
	}
	for _, want := range []string{`"worktree": ".claude/worktrees/x"`, `"branch": "worktree-x"`, `"host": "` + host + `"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("agent show %s lacks %s:\n%s", ax, want, out)
		}
	}
	out, _, _ = p.runIn(wt1, nil, bbPath(), "status")
	if !strings.Contains(out, "Works on branch wt1 in "+filepath.ToSlash(wt1)) || !strings.Contains(out, "Works on branch worktree-x in .claude/worktrees/x") {
		t.Fatalf("bb status lacks where agents work:\n%s", out)
	}
	// A fresh start gets the whole brief (a resume gets only its identity
	// line and what is new).
	brief, _ := sx.hook(t, "SessionStart", "source", "startup")
	if b := str(brief, "hookSpecificOutput.additionalContext"); !strings.Contains(b, "You work on branch worktree-x in .claude/worktrees/x") {
		t.Fatalf("brief: %q", b)
	}

	// wt1 edits src/a.go first: reserved for it, relative to the work tree.
	if r, note := s1.edit(t, "src/a.go"); r != "" {
		t.Fatalf("wt1's edit denied: %s %s", r, note)
	}
	if h := p.holders(t); h["src/a.go"] != a1 {
		t.Fatalf("holders: %v", h)
	}
	for _, s := range []*wtSession{main, sx} {
		r, _ := s.edit(t, "src/a.go")
		if !strings.Contains(r, a1+" on branch wt1 in "+filepath.ToSlash(wt1)) || !strings.Contains(r, "src/a.go") {
			t.Fatalf("edit of src/a.go in %s: %q, want a denial naming %s", s.dir, r, a1)
		}
	}

	// bb agent reserve from .claude/worktrees/x (relative to where it is
	// typed, like git add) blocks the main checkout.
	out, errOut, code = p.runIn(filepath.Join(wtx, "src"), []string{"BB_AGENT_ID=" + ax}, bbPath(), "--json", "agent", "reserve", "--scope", "b.go", "--bead", "bb-1")
	if code != 0 || !strings.Contains(out, `"canonical_scope": "src/b.go"`) {
		t.Fatalf("reserve from the work tree: exit %d %s%s", code, out, errOut)
	}
	if r, _ := main.edit(t, "src/b.go"); !strings.Contains(r, ax+" on branch worktree-x in .claude/worktrees/x") {
		t.Fatalf("main's edit of src/b.go: %q, want a denial naming %s", r, ax)
	}

	// The guard (installed once, from the main checkout) refuses a commit
	// in the work tree that touches src/b.go, held by ax.
	p.bb(t, nil, "guard", "install")
	if err := os.WriteFile(filepath.Join(wt1, "src", "b.go"), []byte("package z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = p.runIn(wt1, []string{"BB_AGENT_ID=" + a1}, "git", "commit", "-qam", "sneak")
	if code == 0 || !strings.Contains(out+errOut, ax) {
		t.Fatalf("commit in wt1 touching a held file: exit %d %s%s", code, out, errOut)
	}
	// A scope outside the work tree is refused, saying why.
	out, _, code = p.runIn(wt1, []string{"BB_AGENT_ID=" + a1}, bbPath(), "--json", "agent", "reserve", "--scope", "../../elsewhere", "--bead", "bb-1")
	if code != 1 || !strings.Contains(out, "outside the work tree") {
		t.Fatalf("reserve outside: exit %d %s", code, out)
	}
	// bb init in a linked work tree says where the board is and makes none.
	out, _, code = p.runIn(wt1, nil, bbPath(), "init")
	if code != 0 || !strings.Contains(out, "linked work tree") || !strings.Contains(out, p.dir) {
		t.Fatalf("bb init in wt1: exit %d %s", code, out)
	}
}

// Broken layouts get one line naming the cause and the way out; a hook
// there fails open with a note.
func TestWorktreeBrokenLayouts(t *testing.T) {
	p := newProject(t)
	wt1, _ := p.worktrees(t)
	// A .git file pointing nowhere.
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, ".git"), []byte("gitdir: /nonexistent/.git/worktrees/bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := p.runIn(bad, nil, bbPath(), "status")
	if code != 1 || !strings.Contains(errOut, "does not exist") || !strings.Contains(errOut, "git worktree repair") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("status with a dangling .git file: exit %d %q %q", code, out, errOut)
	}
	s := &wtSession{p: p, dir: bad, id: "sess-bad"}
	if r, note := s.edit(t, "x.go"); r != "" || !strings.Contains(note, "does not exist") {
		t.Fatalf("hook with a dangling .git file: %q %q", r, note)
	}
	// A bare repository.
	bare := filepath.Join(t.TempDir(), "bare.git")
	p.must(t, "git", "clone", "-q", "--bare", p.dir, bare)
	_, errOut, code = p.runIn(bare, nil, bbPath(), "status")
	if code != 1 || !strings.Contains(errOut, "bare repository") {
		t.Fatalf("status in a bare repository: exit %d %q", code, errOut)
	}
	// The main work tree deleted under a linked one.
	if err := os.RemoveAll(filepath.Join(p.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = p.runIn(wt1, nil, bbPath(), "status")
	if code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("status with the main work tree gone: exit %d %q", code, errOut)
	}
}

// startServe runs bb serve on the project's board on a free loopback port
// and returns its URL; it is stopped when the test ends.
func (p *project) startServe(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := exec.Command(bbPath(), "-q", "serve", "--addr", addr)
	c.Dir, c.Env = p.dir, p.env
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	url := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/api/v1/info")
		if err == nil {
			resp.Body.Close()
			return url
		}
		if i == 100 {
			t.Fatalf("bb serve did not start: %v %s", err, errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Two clones of one repository share one board through bb serve: an edit
// held in one clone is denied in the other, with repository-relative
// scopes; a clone of another repository is refused with an explanation.
func TestClonesThroughServe(t *testing.T) {
	p := newProject(t)
	url := p.startServe(t)
	clone := filepath.Join(t.TempDir(), "clone")
	p.must(t, "git", "clone", "-q", p.dir, clone)
	remote := []string{"BB_SERVER=" + url}
	a := &wtSession{p: p, dir: p.dir, id: "sess-a", env: remote}
	b := &wtSession{p: p, dir: clone, id: "sess-b", env: remote}
	ida, idb := a.start(t), b.start(t)
	if r, note := a.edit(t, "src/a.go"); r != "" {
		t.Fatalf("a's edit: %s %s", r, note)
	}
	if r, _ := b.edit(t, "src/a.go"); !strings.Contains(r, ida) || !strings.Contains(r, "src/a.go") {
		t.Fatalf("b's edit in the other clone: %q, want a denial naming %s", r, ida)
	}
	// A reservation typed in the clone's subdirectory is repository-relative.
	out, errOut, code := p.runIn(filepath.Join(clone, "src"), append(remote, "BB_AGENT_ID="+idb), bbPath(), "--json", "agent", "reserve", "--scope", "b.go", "--bead", "bb-1")
	if code != 0 || !strings.Contains(out, `"canonical_scope": "src/b.go"`) {
		t.Fatalf("reserve from the clone: exit %d %s%s", code, out, errOut)
	}
	if r, _ := a.edit(t, "src/b.go"); !strings.Contains(r, idb) {
		t.Fatalf("a's edit of src/b.go: %q, want a denial naming %s", r, idb)
	}
	// Another repository is refused, saying why and what to do.
	other := t.TempDir()
	o := &project{dir: other, env: p.env}
	if err := os.WriteFile(filepath.Join(other, "x"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.must(t, "git", "init", "-q")
	o.must(t, "git", "add", ".")
	o.must(t, "git", "commit", "-qm", "other")
	out, errOut, code = p.runIn(other, remote, bbPath(), "status")
	if code != 1 || !strings.Contains(errOut, "another repository") || !strings.Contains(errOut, "BB_SERVER") {
		t.Fatalf("status from another repository: exit %d %q %q", code, out, errOut)
	}
	s := &wtSession{p: p, dir: other, id: "sess-o", env: remote}
	if r, note := s.edit(t, "x"); r != "" || !strings.Contains(note, "another repository") {
		t.Fatalf("hook from another repository: %q %q", r, note)
	}

	// A shallow clone cannot tell its repository: refused, saying so and
	// how to deepen it; once deepened it is a clone like any other.
	if err := os.WriteFile(filepath.Join(p.dir, "second"), []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.must(t, "git", "add", "second")
	p.must(t, "git", "commit", "-qm", "second")
	shallow := filepath.Join(t.TempDir(), "shallow")
	p.must(t, "git", "clone", "-q", "--depth", "1", "file://"+p.dir, shallow)
	out, errOut, code = p.runIn(shallow, remote, bbPath(), "status")
	if code != 1 || !strings.Contains(errOut, "shallow clone") || !strings.Contains(errOut, "git fetch --unshallow") {
		t.Fatalf("status from a shallow clone: exit %d %q %q", code, out, errOut)
	}
	if out, errOut, code := p.runIn(shallow, nil, "git", "fetch", "-q", "--unshallow"); code != 0 {
		t.Fatalf("git fetch --unshallow: %s%s", out, errOut)
	}
	if out, errOut, code = p.runIn(shallow, remote, bbPath(), "status"); code != 0 {
		t.Fatalf("status from the deepened clone: exit %d %q %q", code, out, errOut)
	}
}

// The merge-aware check: agent A edits and commits src/c.go on branch feat
// in a linked work tree, then releases it; agent B's edit of src/c.go in
// the main checkout warns naming A and feat (hooks.merge_check block
// denies it); once feat is merged, nothing is said.
func TestMergeAwareEdit(t *testing.T) {
	p := newProject(t)
	wt := filepath.Join(filepath.Dir(p.dir), filepath.Base(p.dir)+"-feat")
	p.must(t, "git", "worktree", "add", "-q", wt, "-b", "feat")
	t.Cleanup(func() { _ = os.RemoveAll(wt) })
	a := &wtSession{p: p, dir: wt, id: "sess-a"}
	b := &wtSession{p: p, dir: p.dir, id: "sess-b"}
	ida, idb := a.start(t), b.start(t)
	if r, note := a.edit(t, "src/c.go"); r != "" || note != "" {
		t.Fatalf("A's edit: %q %q", r, note)
	}
	if err := os.WriteFile(filepath.Join(wt, "src", "c.go"), []byte("package c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "src/c.go"}, {"commit", "-qm", "c on feat"}} {
		if out, errOut, code := p.runIn(wt, nil, "git", args...); code != 0 {
			t.Fatalf("git %v: %s%s", args, out, errOut)
		}
	}
	p.bb(t, nil, "agent", "release", "--agent", ida, "--scope", "src/c.go")

	r, note := b.edit(t, "src/c.go")
	if r != "" || !strings.Contains(note, ida+" on branch feat") || !strings.Contains(note, "not merged") || !strings.Contains(note, "--to "+ida) {
		t.Fatalf("B's edit before the merge: reason %q, note %q", r, note)
	}
	p.bb(t, nil, "config", "set", "hooks.merge_check", "block")
	if r, _ := b.edit(t, "src/c.go"); !strings.Contains(r, ida+" on branch feat") {
		t.Fatalf("B's edit in block mode: %q, want a denial naming %s and feat", r, ida)
	}
	p.bb(t, nil, "config", "set", "hooks.merge_check", "warn")
	// The common case (no other branch touched the file) asks git nothing:
	// src/b.go is clear.
	if r, note := b.edit(t, "src/b.go"); r != "" || note != "" {
		t.Fatalf("B's edit of an untouched file: %q %q", r, note)
	}
	p.must(t, "git", "merge", "-q", "feat")
	if r, note := b.edit(t, "src/c.go"); r != "" || note != "" {
		t.Fatalf("B's edit after the merge: %q %q (agent %s)", r, note, idb)
	}
}

// bb install claude covers Claude Code's work trees: .worktreeinclude names
// the hook file, Claude Code copies it into .claude/worktrees/<name> (done
// here as Claude Code does: the git-ignored files matching the patterns),
// and the hook command written there, run in the work tree, checks the
// session's edits against the one board.
func TestInstalledHooksRunInClaudeWorktree(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.dir, ".gitignore"), []byte(".claude/settings.local.json\n.claude/worktrees/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Command hooks (a Claude Code before 2.1.118): the hook's own process
	// runs in the work tree. (The mcp_tool hooks are answered by the bb mcp
	// Claude Code starts there: clienttest's TestClaudeCodeWorktree.)
	p.bb(t, []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")}, "install", "claude", "--hook-type", "command")
	inc, err := os.ReadFile(filepath.Join(p.dir, ".worktreeinclude"))
	if err != nil || !strings.Contains(string(inc), ".claude/settings.local.json") {
		t.Fatalf(".worktreeinclude: %q %v", inc, err)
	}
	_, wtx := p.worktrees(t)
	settings, err := os.ReadFile(filepath.Join(p.dir, ".claude", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(wtx, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wtx, ".claude", "settings.local.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(settings, &cfg); err != nil || len(cfg.Hooks["PreToolUse"]) == 0 {
		t.Fatalf("settings: %v %s", err, settings)
	}
	command := cfg.Hooks["PreToolUse"][0].Hooks[0].Command
	holder := &wtSession{p: p, dir: p.dir, id: "sess-main"}
	h := holder.start(t)
	if r, _ := holder.edit(t, "src/a.go"); r != "" {
		t.Fatal(r)
	}
	in, _ := json.Marshal(map[string]any{"session_id": "sess-wt", "cwd": wtx, "hook_event_name": "PreToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": filepath.Join(wtx, "src", "a.go"), "old_string": "a", "new_string": "b"}})
	c := exec.Command("sh", "-c", command)
	c.Dir = wtx
	c.Env = append(append([]string{}, p.env...), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	c.Stdin = bytes.NewReader(in)
	out, err := c.Output()
	if err != nil || !strings.Contains(string(out), `"deny"`) || !strings.Contains(string(out), h) {
		t.Fatalf("the installed PreToolUse hook in the work tree: %v %s", err, out)
	}
}

// A commit an agent makes through its shell tool is the agent's own: the
// guard, run by git under the client, finds the client's hook session and
// lets the agent commit the files it holds. The same commit made outside
// that client (here under timeout, which is not a shell) is refused.
func TestGuardKnowsTheSessionsAgent(t *testing.T) {
	p := newProject(t)
	p.bb(t, nil, "guard", "install")
	a := &wtSession{p: p, dir: p.dir, id: "sess-a"}
	ida := a.start(t)
	if r, note := a.edit(t, "src/a.go"); r != "" {
		t.Fatalf("a's edit: %s %s", r, note)
	}
	if h := p.holders(t); h["src/a.go"] != ida {
		t.Fatalf("holders: %v", h)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(p.dir, "src", "a.go"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package y\n")
	// This test process is the "client": the hook sessions above were
	// started from it, and git runs here under it.
	if out, errOut, code := p.runIn(p.dir, nil, "git", "commit", "-qam", "a's own change"); code != 0 {
		t.Fatalf("the session's own commit of its file: exit %d %s%s", code, out, errOut)
	}
	write("package z\n")
	out, errOut, code := p.runIn(p.dir, nil, "timeout", "60", "git", "commit", "-qam", "someone else's")
	if code == 0 || !strings.Contains(errOut, "commit refused") || !strings.Contains(errOut, ida) {
		t.Fatalf("a commit outside the session: exit %d %s%s", code, out, errOut)
	}
}

// A file changed by other means than the edit tool (here a shell write)
// counts for the merge-aware check once committed: the guard records the
// commit's files on the committer's branch, and another agent's edit of
// one in the main checkout is warned, naming the committer and the branch.
func TestMergeAwareCommit(t *testing.T) {
	p := newProject(t)
	p.bb(t, nil, "guard", "install")
	wt := filepath.Join(filepath.Dir(p.dir), filepath.Base(p.dir)+"-gen")
	p.must(t, "git", "worktree", "add", "-q", wt, "-b", "gen")
	t.Cleanup(func() { _ = os.RemoveAll(wt) })
	a := &wtSession{p: p, dir: wt, id: "sess-a"}
	b := &wtSession{p: p, dir: p.dir, id: "sess-b"}
	ida, _ := a.start(t), b.start(t)
	if err := os.WriteFile(filepath.Join(wt, "src", "gen.go"), []byte("package gen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "src/gen.go"}, {"commit", "-qm", "generated"}} {
		if out, errOut, code := p.runIn(wt, []string{"BB_AGENT_ID=" + ida}, "git", args...); code != 0 {
			t.Fatalf("git %v: %s%s", args, out, errOut)
		}
	}
	if r, note := b.edit(t, "src/gen.go"); r != "" || !strings.Contains(note, ida+" on branch gen") || !strings.Contains(note, "not merged") {
		t.Fatalf("B's edit of a file A committed on gen: reason %q, note %q", r, note)
	}
	p.must(t, "git", "merge", "-q", "gen")
	if r, note := b.edit(t, "src/gen.go"); r != "" || note != "" {
		t.Fatalf("B's edit after the merge: %q %q", r, note)
	}
}
