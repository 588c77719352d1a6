package clibench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// command is one single-operation process the benchmark runs.
type command struct {
	name string
	// read marks the commands that change nothing (target 1.15× instead
	// of 1.25×).
	read bool
	bin  string
	// args of the i-th run (a fresh subject, scope or request id where a
	// repeat would be refused or replayed).
	args  func(i int) []string
	stdin []byte
}

// hookPayload is a Claude Code hook payload with the fields the client
// sends on every event (https://code.claude.com/docs/en/hooks, "Common
// input fields") plus the event's own.
func hookPayload(dir, event string, kv ...any) []byte {
	m := map[string]any{"session_id": "bench-session", "transcript_path": "/t/bench-session.jsonl", "cwd": dir,
		"permission_mode": "default", "hook_event_name": event}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	v, _ := json.Marshal(m)
	return v
}

func commands(b *board) []command {
	fixed := func(a ...string) func(int) []string { return func(int) []string { return a } }
	hook := func(name, event string, read bool, kv ...any) command {
		return command{name: "hook-" + name, read: read, bin: "bb", args: fixed("hook", "claude", event, "--dir", b.dir),
			stdin: hookPayload(b.dir, event, kv...)}
	}
	edit := map[string]any{"file_path": filepath.Join(b.dir, "src", "a.go"), "old_string": "package x", "new_string": "package y"}
	bash := map[string]any{"command": "ls"}
	return []command{
		{name: "bb-version", read: true, bin: "bb", args: fixed("--version")},
		{name: "bb-post", bin: "bb", args: func(i int) []string { return []string{"--as", "bench-alice", "post", fmt.Sprint("bench ", i)} }},
		{name: "bb-log", bin: "bb", args: fixed("--as", "bench-alice", "log")},
		{name: "bb-status", read: true, bin: "bb", args: fixed("--as", "bench-alice", "status")},
		{name: "bb-agent-send", bin: "bb", args: func(i int) []string {
			return []string{"--as", "bench-alice", "agent", "send", "--to", "bench-bob", "--bead", "b1", "--category", "INFO",
				"--subject", fmt.Sprint("note ", i), "--body", "status"}
		}},
		{name: "bb-agent-inbox", bin: "bb", args: fixed("--as", "bench-bob", "agent", "inbox")},
		{name: "bb-agent-reserve", bin: "bb", args: func(i int) []string {
			return []string{"--as", "bench-alice", "agent", "reserve", "--bead", "b1", "--scope", fmt.Sprintf("src/r%d.go", i)}
		}},
		{name: "agent-mail-send", bin: "agent-mail", args: func(i int) []string {
			return []string{"send", "--from", "p:bench", "--to", "p:reader", "--subject", fmt.Sprint("s ", i), "--body", "hello"}
		}},
		{name: "agent-mail-read", bin: "agent-mail", args: fixed("read", "p:reader")},
		{name: "vybe-task-create", bin: "vybe", args: func(i int) []string {
			return []string{"task", "create", "--agent", "bench", "--title", "t", "--request-id", fmt.Sprint("c", i)}
		}},
		{name: "vybe-resume-peek", read: true, bin: "vybe", args: fixed("resume", "--peek", "--agent", "bench")},
		hook("SessionStart", "SessionStart", false, "source", "resume"),
		hook("UserPromptSubmit", "UserPromptSubmit", true, "prompt", "go on"),
		hook("PreToolUse-edit-held", "PreToolUse", true, "tool_name", "Edit", "tool_use_id", "toolu_x", "tool_input", edit),
		hook("PreToolUse-bash", "PreToolUse", true, "tool_name", "Bash", "tool_use_id", "toolu_y", "tool_input", bash),
		hook("PostToolUse", "PostToolUse", true, "tool_name", "Bash", "tool_use_id", "toolu_y", "tool_input", bash,
			"tool_response", map[string]any{"stdout": "", "stderr": "", "interrupted": false}),
		hook("Stop", "Stop", false, "stop_hook_active", false),
	}
}

// BenchmarkCommandFloor runs every single-operation command of the three
// CLIs and every Claude Code hook event as one real process each,
// interleaved with the floor (testdata/floor: open the same board file with
// the same driver and settings, insert one row, exit), so machine load hits
// both alike. It reports the floor's median wall and CPU (user+system)
// time and, per command, the ratio of its medians to the floor's
// ("x-wall-…", "x-cpu-…"; 1.00 = as cheap as the floor), and prints the
// table. BB_BENCH_ONLY=<regexp> keeps only the matching commands.
// BB_BENCH_BASE=<folder> also runs each command with the bb, agent-mail and
// vybe found there (a build of an earlier commit), in the same interleaved
// rounds, and reports its ratios beside ("x-base-…"): before and after
// measured in one run.
//
//	go test ./internal/cli/clibench -run '^$' -bench CommandFloor -benchtime 20x
//	git worktree add /tmp/base main && (cd /tmp/base && go build -o /tmp/base/bin/ ./cmd/...)
//	BB_BENCH_BASE=/tmp/base/bin go test ./internal/cli/clibench -run '^$' -bench CommandFloor -benchtime 20x
func BenchmarkCommandFloor(b *testing.B) {
	floor := buildFloor(b)
	bd := newBoard(b)
	// The session the hook events belong to: it has started and holds
	// src/a.go (so PreToolUse-edit-held is the held-file path).
	bd.run(b, hookPayload(bd.dir, "SessionStart", "source", "startup"), bd.bin("bb"), "hook", "claude", "SessionStart", "--dir", bd.dir)
	cmds := commands(bd)
	for _, c := range cmds {
		if c.name == "hook-PreToolUse-edit-held" {
			bd.run(b, c.stdin, bd.bin("bb"), c.args(0)...)
		}
	}
	if only := os.Getenv("BB_BENCH_ONLY"); only != "" {
		re := regexp.MustCompile(only)
		cmds = slices.DeleteFunc(cmds, func(c command) bool { return !re.MatchString(c.name) })
	}
	once := func(bin string, args []string, stdin []byte) (wall, cpu time.Duration) {
		c := exec.Command(bin, args...)
		c.Dir, c.Env, c.Stdin = bd.dir, bd.env, bytes.NewReader(stdin)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		t0 := time.Now()
		if err := c.Run(); err != nil {
			b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out.String())
		}
		return time.Since(t0), c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	base := os.Getenv("BB_BENCH_BASE")
	// Every program runs from a copy made here, the build under test and
	// the base build alike: a binary the linker has just written costs
	// 11-16% more CPU per process than a copy of it (the same bytes; see
	// BENCHMARKS.md), so builds made at different times or in different
	// ways would differ by that alone.
	progDir := b.TempDir()
	floor = copyProgram(b, floor, filepath.Join(progDir, "floor"))
	bins := map[string]string{}
	baseBins := map[string]string{}
	for _, c := range cmds {
		if _, ok := bins[c.bin]; !ok {
			bins[c.bin] = copyProgram(b, bd.bin(c.bin), filepath.Join(progDir, "this", c.bin))
			if base != "" {
				baseBins[c.bin] = copyProgram(b, filepath.Join(base, c.bin), filepath.Join(progDir, "base", c.bin))
			}
		}
	}
	// The programs of one round, rotated each round so that none always
	// runs first: the floor, the command, and the base build's command.
	const floorRun, newRun, baseRun = 0, 1, 2
	progs := []int{floorRun, newRun}
	if base != "" {
		progs = append(progs, baseRun)
	}
	var floorW, floorC []time.Duration
	wall := make([][]time.Duration, len(cmds))
	cpu := make([][]time.Duration, len(cmds))
	baseW := make([][]time.Duration, len(cmds))
	baseC := make([][]time.Duration, len(cmds))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range cmds {
			for k := range progs {
				switch progs[(i+k)%len(progs)] {
				case floorRun:
					w, u := once(floor, []string{bd.db}, nil)
					floorW, floorC = append(floorW, w), append(floorC, u)
				case newRun:
					w, u := once(bins[c.bin], c.args(i), c.stdin)
					wall[j], cpu[j] = append(wall[j], w), append(cpu[j], u)
				case baseRun:
					// Its own arguments: a run must not replay the other's.
					w, u := once(baseBins[c.bin], c.args(i+b.N), c.stdin)
					baseW[j], baseC[j] = append(baseW[j], w), append(baseC[j], u)
				}
			}
		}
	}
	b.StopTimer()
	fw, fc := median(floorW), median(floorC)
	b.ReportMetric(ms(fw), "floor-wall-ms")
	b.ReportMetric(ms(fc), "floor-cpu-ms")
	var tab strings.Builder
	fmt.Fprintf(&tab, "\nBenchmarkCommandFloor, %d runs of each: floor %.1f ms wall, %.1f ms CPU (medians)\n", b.N, ms(fw), ms(fc))
	if base != "" {
		fmt.Fprintf(&tab, "| command | kind | wall × floor (base → this) | CPU × floor (base → this) |\n|---|---|---|---|\n")
	} else {
		fmt.Fprintf(&tab, "| command | kind | wall × floor | CPU × floor |\n|---|---|---|---|\n")
	}
	for j, c := range cmds {
		xw, xc := float64(median(wall[j]))/float64(fw), float64(median(cpu[j]))/float64(fc)
		b.ReportMetric(xw, "x-wall-"+c.name)
		b.ReportMetric(xc, "x-cpu-"+c.name)
		kind := "write"
		if c.read {
			kind = "read"
		}
		if base == "" {
			fmt.Fprintf(&tab, "| %s | %s | %.2f | %.2f |\n", c.name, kind, xw, xc)
			continue
		}
		bw, bc := float64(median(baseW[j]))/float64(fw), float64(median(baseC[j]))/float64(fc)
		b.ReportMetric(bw, "x-base-wall-"+c.name)
		b.ReportMetric(bc, "x-base-cpu-"+c.name)
		fmt.Fprintf(&tab, "| %s | %s | %.2f → %.2f | %.2f → %.2f |\n", c.name, kind, bw, xw, bc, xc)
	}
	// Printed, not logged: the testing package cuts a benchmark's long log.
	fmt.Print(tab.String())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// copyProgram copies the program at src to dst (its folder created) and
// returns dst.
func copyProgram(tb testing.TB, src, dst string) string {
	tb.Helper()
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
	return dst
}
