package clienttest

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestClaudeCodeWorktree runs a Claude Code session started with
// --worktree: Claude Code creates .claude/worktrees/<name>/ on the branch
// worktree-<name> (https://code.claude.com/docs/en/worktrees). The session
// in the new work tree must be wired like any other: its brief and
// identity come from the main work tree's board, its branch is recorded,
// and its edit of a file held by an agent of the main checkout is denied
// with the holder named (scopes are relative to the work tree, so
// src/a.go is one file in both). Seen with 2.1.328: a -p --worktree session
// loads the main checkout's project settings, so it is wired even without
// the .worktreeinclude entry bb install also writes (that entry copies
// the git-ignored settings file for clients that read the work tree's own).
func TestClaudeCodeWorktree(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "claude")
	p := newProject(t)
	p.run("bb", "install", "claude")
	wt := filepath.Join(p.dir, ".claude", "worktrees", "wt1")
	trustClaude(p, p.dir, wt)
	// An agent of the main checkout holds src/a.go.
	p.run("bb", "agent", "register", "--name", "main-holder", "--role", "worker")
	p.run("bb", "agent", "reserve", "--agent", "main-holder", "--scope", "src/a.go", "--bead", "bb-1")

	pl := newPlans()
	srv := newModelServer(t, pl.script)
	env := claudeEnv(srv)
	pl.set("edit",
		turnPart{Tool: "Edit", Input: map[string]any{"file_path": filepath.Join(wt, "src", "a.go"), "old_string": "package x", "new_string": "package y"}},
	)
	out, errOut, err := p.exec(env, bin, "-p", "[session W] [step edit] go on", "--worktree", "wt1",
		"--output-format", "json", "--permission-mode", "acceptEdits")
	if err != nil {
		t.Fatalf("claude --worktree: %v\n%s\n%s", err, out, errOut)
	}
	id := identityOf(t, srv, "W")
	reqs := stepRequests(srv, "W", "edit")
	if len(reqs) < 2 {
		t.Fatalf("step edit: %d requests", len(reqs))
	}
	if !regexp.MustCompile(`src/a\.go is reserved by main-holder`).MatchString(reqs[len(reqs)-1].Body) {
		t.Errorf("the denial naming main-holder did not reach the model of the work-tree session")
		for i, r := range reqs {
			dump(t, "claude-worktree-"+string(rune('0'+i)), r.Body)
		}
	}
	if got := p.read(filepath.Join(".claude", "worktrees", "wt1", "src", "a.go")); got != "package x\n" {
		t.Errorf("the denied edit changed the work tree's src/a.go: %q", got)
	}
	// The session's agent is on the main board, with its branch.
	show := p.run("bb", "--json", "agent", "show", "--agent", id)
	var v struct {
		Data struct {
			Branch   string `json:"branch"`
			Worktree string `json:"worktree"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(show), &v); err != nil || v.Data.Branch != "worktree-wt1" || !strings.HasSuffix(v.Data.Worktree, "wt1") {
		t.Errorf("bb agent show %s: branch %q, worktree %q (%v); want worktree-wt1 in .claude/worktrees/wt1\n%s", id, v.Data.Branch, v.Data.Worktree, err, show)
	}
}
