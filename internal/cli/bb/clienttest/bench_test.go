package clienttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// BenchmarkClaudeTurn measures one scripted Claude Code turn (-p: 4 edits
// and 4 shell commands) with bb's hooks against the same hooks replaced by
// a no-op command, interleaved in one run (each iteration runs both, the
// order alternating). It reports both wall times and CPU times (the client
// with every process it waited for), their ratios, and how many hook
// processes a turn starts (counted by the no-op hooks).
//
//	go test ./internal/cli/bb/clienttest -run '^$' -bench ClaudeTurn -benchtime 8x -count 3
func BenchmarkClaudeTurn(b *testing.B) {
	bin := benchClient(b, "claude")
	withHooks := newBenchProject(b, bin, false)
	noop := newBenchProject(b, bin, true)
	var dHooks, dNoop, cHooks, cNoop time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		first, second := withHooks, noop
		if i%2 == 1 {
			first, second = noop, withHooks
		}
		for _, bp := range []*benchProject{first, second} {
			d, cpu := bp.turn(b, i)
			if bp == withHooks {
				dHooks, cHooks = dHooks+d, cHooks+cpu
			} else {
				dNoop, cNoop = dNoop+d, cNoop+cpu
			}
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(dHooks.Milliseconds())/n, "hooks-ms/turn")
	b.ReportMetric(float64(dNoop.Milliseconds())/n, "noop-ms/turn")
	b.ReportMetric(float64(dHooks)/float64(dNoop), "x-hooks/noop")
	// CPU time (user+system) of the client and every process it waited
	// for (hooks, the shells running them, its MCP server): what a loaded
	// machine's scheduler stretches into wall time.
	b.ReportMetric(float64(cHooks.Milliseconds())/n, "hooks-cpu-ms/turn")
	b.ReportMetric(float64(cNoop.Milliseconds())/n, "noop-cpu-ms/turn")
	b.ReportMetric(float64(cHooks)/float64(cNoop), "x-cpu-hooks/noop")
	if c, err := os.ReadFile(noop.count); err == nil {
		b.ReportMetric(float64(len(c))/n, "hook-procs/turn")
	}
}

// benchClient is clientBin for a benchmark.
func benchClient(b *testing.B, name string) string {
	abs, err := filepath.Abs(filepath.Join("testdata", "clients", "node_modules", ".bin", name))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		b.Skipf("%s not installed: run 'npm install' in internal/cli/bb/clienttest/testdata/clients", name)
	}
	return abs
}

// benchProject is a project wired by bb install claude, its own model
// server and the files a turn edits.
type benchProject struct {
	bin   string
	dir   string
	env   []string
	count string
	pl    *plans
}

func newBenchProject(b *testing.B, bin string, noop bool) *benchProject {
	root := b.TempDir()
	bp := &benchProject{bin: bin, dir: filepath.Join(root, "proj"), count: filepath.Join(root, "hook-count")}
	home := filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(bp.dir, "src"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	bp.pl = newPlans()
	srv := newModelServer(b, bp.pl.script)
	bp.env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "ANTHROPIC_BASE_URL="+srv.url, "ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	run := func(name string, args ...string) {
		if name == "bb" {
			name = filepath.Join(binDir, "bb")
		}
		c := execIn(bp.dir, bp.env, name, args...)
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("git", "init", "-q")
	run("bb", "init")
	run("bb", "install", "claude")
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{
		bp.dir: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"blackboard"}}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600); err != nil {
		b.Fatal(err)
	}
	if noop {
		// The same hook entries, each running a command that only counts.
		settings := filepath.Join(bp.dir, ".claude", "settings.local.json")
		s, err := os.ReadFile(settings)
		if err != nil {
			b.Fatal(err)
		}
		re := regexp.MustCompile(`"bb hook claude [^"]*"`)
		s = re.ReplaceAll(s, []byte(fmt.Sprintf("%q", "printf x >> "+bp.count)))
		if err := os.WriteFile(settings, s, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return bp
}

// turn runs one claude -p turn of 4 edits and 4 shell commands and
// returns its wall time and the CPU time of the client with the processes
// it waited for (wait4's rusage of a child includes its waited-for
// children's).
func (bp *benchProject) turn(b *testing.B, i int) (time.Duration, time.Duration) {
	var parts []turnPart
	for f := 0; f < 4; f++ {
		// Fresh files each turn: the previous turn's session still holds
		// the ones it edited.
		path := filepath.Join(bp.dir, "src", fmt.Sprintf("f%d_%d.go", i, f))
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		parts = append(parts,
			turnPart{Tool: "Edit", Input: map[string]any{"file_path": path, "old_string": "package x", "new_string": "package y"}},
			turnPart{Tool: "Bash", Input: map[string]any{"command": "true", "description": "nothing"}})
	}
	step := fmt.Sprintf("turn-%d", i)
	bp.pl.set(step, parts...)
	c := execIn(bp.dir, bp.env, bp.bin, "-p", "[session T] [step "+step+"] go on", "--output-format", "json",
		"--permission-mode", "acceptEdits", "--allowedTools", "Bash")
	start := time.Now()
	out, err := c.CombinedOutput()
	d := time.Since(start)
	if err != nil || !strings.Contains(string(out), `"is_error":false`) {
		b.Fatalf("claude: %v\n%s", err, out)
	}
	return d, c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

func execIn(dir string, env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir, c.Env = dir, env
	return c
}
