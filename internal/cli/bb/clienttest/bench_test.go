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
// and 4 shell commands) in three projects, interleaved in one run (each
// iteration runs all three, the order rotating): wired by bb install claude
// (its hooks answered by the session's bb mcp), by bb install claude
// --hook-type command (a bb process per hook event), the first with hooks
// that do nothing (floorProject: what the client itself spends on hooks),
// and by bb install claude --no-hooks (the MCP server only: the baseline). It reports wall
// and CPU times per turn (the client with every process it waited for)
// and their ratios to the baseline, and how many bb processes besides bb
// mcp one turn of each starts (counted once, before the timed turns,
// through a bb on PATH that notes each start).
//
//	go test ./internal/cli/bb/clienttest -run '^$' -bench ClaudeTurn -benchtime 8x -count 3
func BenchmarkClaudeTurn(b *testing.B) {
	bin := benchClient(b, "claude")
	arms := []*benchProject{
		newBenchProject(b, bin, "mcp", "--hook-type", "mcp"),
		newBenchProject(b, bin, "command", "--hook-type", "command"),
		floorProject(b, newBenchProject(b, bin, "floor", "--hook-type", "mcp")),
		newBenchProject(b, bin, "mcponly", "--no-hooks"),
	}
	procs := make([]int, len(arms))
	for j, bp := range arms {
		procs[j] = bp.countProcs(b)
	}
	wall := make([]time.Duration, len(arms))
	cpu := make([]time.Duration, len(arms))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range arms {
			j := (i + k) % len(arms)
			d, c := arms[j].turn(b, i)
			wall[j] += d
			cpu[j] += c
		}
	}
	b.StopTimer()
	n := float64(b.N)
	base := len(arms) - 1
	for j, bp := range arms {
		b.ReportMetric(float64(procs[j]), bp.name+"-bb-procs/turn")
		b.ReportMetric(float64(wall[j].Milliseconds())/n, bp.name+"-ms/turn")
		b.ReportMetric(float64(cpu[j].Milliseconds())/n, bp.name+"-cpu-ms/turn")
		if j != base {
			b.ReportMetric(float64(wall[j])/float64(wall[base]), "x-"+bp.name+"/mcponly")
			b.ReportMetric(float64(cpu[j])/float64(cpu[base]), "x-cpu-"+bp.name+"/mcponly")
		}
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
	name  string
	bin   string
	dir   string
	env   []string
	count string
	pl    *plans
}

func newBenchProject(b *testing.B, bin, name string, installArgs ...string) *benchProject {
	root := b.TempDir()
	bp := &benchProject{name: name, bin: bin, dir: filepath.Join(root, "proj"), count: filepath.Join(root, "bb-starts")}
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
	run("bb", append([]string{"install", "claude"}, installArgs...)...)
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{
		bp.dir: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"blackboard"}}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600); err != nil {
		b.Fatal(err)
	}
	return bp
}

// floorProject turns bp's hooks into the least that hooks of their kind
// can cost: the session start's command only reads its input (cat), and
// every mcp_tool hook asks bb mcp's hook tool for an event the board does
// not use, which it answers without opening anything. What bp then costs
// over the MCP-only turn is the client's own handling of the hooks.
func floorProject(b *testing.B, bp *benchProject) *benchProject {
	settings := filepath.Join(bp.dir, ".claude", "settings.local.json")
	s, err := os.ReadFile(settings)
	if err != nil {
		b.Fatal(err)
	}
	t := regexp.MustCompile(`"bb hook claude SessionStart[^"]*"`).ReplaceAllString(string(s), `"cat > /dev/null"`)
	t = regexp.MustCompile(`"bb_event": "[A-Za-z]+"`).ReplaceAllString(t, `"bb_event": "Notification"`)
	if err := os.WriteFile(settings, []byte(t), 0o644); err != nil {
		b.Fatal(err)
	}
	return bp
}

// countProcs runs one turn (untimed) with a bb first on PATH that notes
// its arguments before it runs the real one, and returns how many bb
// processes other than bb mcp the turn started.
func (bp *benchProject) countProcs(b *testing.B) int {
	wrap := filepath.Join(filepath.Dir(bp.count), "wrap")
	if err := os.MkdirAll(wrap, 0o755); err != nil {
		b.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + bp.count + "\nexec " + filepath.Join(binDir, "bb") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrap, "bb"), []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	saved := bp.env
	bp.env = append(append([]string(nil), saved...), "PATH="+wrap+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer func() { bp.env = saved }()
	bp.turn(b, -1)
	data, _ := os.ReadFile(bp.count)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" && l != "mcp" {
			n++
		}
	}
	return n
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
		path := filepath.Join(bp.dir, "src", fmt.Sprintf("f%d_%d.go", i+1, f))
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		parts = append(parts,
			turnPart{Tool: "Edit", Input: map[string]any{"file_path": path, "old_string": "package x", "new_string": "package y"}},
			turnPart{Tool: "Bash", Input: map[string]any{"command": "true", "description": "nothing"}})
	}
	step := fmt.Sprintf("turn-%d", i+1)
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
