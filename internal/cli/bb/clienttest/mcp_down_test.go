package clienttest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mcpProcs are the pids of this project's bb mcp processes.
func mcpProcs(p *project) []int {
	return bbProcs(func(pid int, args []string) bool {
		return len(args) >= 2 && args[1] == "mcp" && runsIn(pid, p.dir)
	})
}

// TestClaudeCodeHooksWhenBBMCPDies: Claude Code 2.1.328 with bb's hooks
// answered by the session's bb mcp, which is killed mid-turn and cannot
// start again. The next edit — of a file another agent holds, which bb
// would deny — goes ahead (the hook fails open: Claude Code skips an
// mcp_tool hook whose server is not connected, "onFailure" continue being
// its default) with a note in Claude Code's debug log, and the turn ends
// normally.
//
// Claude Code starts a killed stdio server again at once (seen here: a new
// bb mcp about 200 ms after the kill), and when the new one is up before
// the hook runs, it answers the hook and the edit is denied as it should
// be. So that the test sees the server down and not that race, bb mcp is
// started through a wrapper that refuses to start it again once killed.
func TestClaudeCodeHooksWhenBBMCPDies(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "claude")
	p := newProject(t)
	p.run("bb", "install", "claude", "--hook-type", "mcp")
	down := filepath.Join(t.TempDir(), "down")
	wrapper := filepath.Join(t.TempDir(), "bb-mcp")
	script := "#!/bin/sh\n[ -e '" + down + "' ] && exit 1\nexec bb \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mcpJSON := p.read(".mcp.json")
	if !strings.Contains(mcpJSON, `"command": "bb"`) {
		t.Fatalf(".mcp.json does not start bb:\n%s", mcpJSON)
	}
	p.write(".mcp.json", strings.Replace(mcpJSON, `"command": "bb"`, `"command": "`+wrapper+`"`, 1))
	trustClaude(p, p.dir)
	p.run("bb", "agent", "register", "--name", "holder", "--role", "dev")
	p.run("bb", "agent", "reserve", "--agent", "holder", "--scope", "src/a.go", "--bead", "bb-1")

	pl := newPlans()
	srv := newModelServer(t, pl.script)
	target := filepath.Join(p.dir, "src", "a.go")
	// While bb mcp runs, the edit of the held file is denied.
	pl.set("alive", turnPart{Tool: "Write", Input: map[string]any{"file_path": target, "content": "package alive\n"}})
	args := func(step string) []string {
		return []string{"-p", "[session K] [step " + step + "] go on", "--output-format", "json", "--debug", "hooks",
			"--permission-mode", "acceptEdits", "--allowedTools", "mcp__blackboard,Read,Bash,Write"}
	}
	out, errOut, err := p.exec(claudeEnv(srv), bin, args("alive")...)
	if err != nil || !strings.Contains(out, `"is_error":false`) {
		t.Fatalf("claude: %v\n%s\n%s", err, out, errOut)
	}
	if got := p.read("src/a.go"); got != "package x\n" {
		t.Fatalf("the held file was written while bb mcp ran: %q", got)
	}
	if !strings.Contains(out, `"permission_denials":[{`) {
		t.Fatalf("no denial recorded while bb mcp ran:\n%s", out)
	}

	// Killed before the tool call: the same edit goes ahead.
	killed := 0
	pl.onFirst("dead", func() {
		if err := os.WriteFile(down, nil, 0o644); err != nil {
			t.Error(err)
		}
		for _, pid := range mcpProcs(p) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	})
	pl.set("dead", turnPart{Tool: "Write", Input: map[string]any{"file_path": target, "content": "package dead\n"}})
	out, errOut, err = p.exec(claudeEnv(srv), bin, args("dead")...)
	if err != nil || !strings.Contains(out, `"is_error":false`) {
		t.Fatalf("claude with bb mcp killed: %v\n%s\n%s", err, out, errOut)
	}
	if killed == 0 {
		t.Fatal("no bb mcp of the session was found to kill")
	}
	if got := p.read("src/a.go"); got != "package dead\n" {
		t.Errorf("the edit did not go ahead with bb mcp gone (the hook did not fail open): %q\nclaude's answer:\n%s\nits log:\n%s", got, out, errOut)
	}
	if !strings.Contains(errOut, "not connected") {
		t.Errorf("Claude Code's log has no note of the skipped hook:\n%s", errOut)
	}
}
