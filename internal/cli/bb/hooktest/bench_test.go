package hooktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// BenchmarkHookLatency measures each hook event's latency (one process
// each, as the client runs it) as a ratio to the baseline: a minimal Go
// program (testdata/baseline) that opens the same SQLite file with the
// same driver and reads one row. Baseline and hook runs are interleaved so
// that machine load affects both alike; the reported metric is the ratio
// of medians ("x-baseline", 1.0 = as fast as the baseline).
//
//	go test ./internal/cli/bb/hooktest -run XXX -bench HookLatency -benchtime 40x
func BenchmarkHookLatency(b *testing.B) {
	base := filepath.Join(binDir, "baseline")
	build := exec.Command("go", "build", "-o", base, "./testdata/baseline")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the baseline: %v\n%s", err, out)
	}
	p := newProject(b)
	db := filepath.Join(p.dir, ".bb", "blackboard.db")
	s := &claudeSession{p: p, id: "bench-session"}
	s.start(b, "startup")
	if r := s.edit(b, "src/a.go"); r != "" {
		b.Fatal(r)
	}
	payload := func(event string, kv ...any) []byte {
		v, _ := json.Marshal(s.payload(event, kv...))
		return v
	}
	events := []struct {
		name, event string
		in          []byte
	}{
		{"SessionStart", "SessionStart", payload("SessionStart", "source", "resume")},
		{"UserPromptSubmit-nothing-new", "UserPromptSubmit", payload("UserPromptSubmit", "prompt", "go on")},
		{"PreToolUse-held-file", "PreToolUse", payload("PreToolUse", "tool_name", "Edit", "tool_input", map[string]any{"file_path": filepath.Join(p.dir, "src/a.go")})},
		{"PreToolUse-not-an-edit", "PreToolUse", payload("PreToolUse", "tool_name", "Bash", "tool_input", map[string]any{"command": "ls"})},
		{"PostToolUse-nothing-new", "PostToolUse", payload("PostToolUse", "tool_name", "Bash", "tool_input", map[string]any{"command": "ls"})},
		{"Stop", "Stop", payload("Stop", "stop_hook_active", false)},
	}
	// runOnce returns the wall time and the CPU time (user+system) of one
	// process; CPU time is what the machine's load does not inflate.
	runOnce := func(name string, args []string, stdin []byte) (time.Duration, time.Duration) {
		c := exec.Command(name, args...)
		c.Env = p.env
		c.Stdin = bytes.NewReader(stdin)
		t0 := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return time.Since(t0), c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	var baseT, baseC []time.Duration
	evT := make([][]time.Duration, len(events))
	evC := make([][]time.Duration, len(events))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, e := range events {
			w, c := runOnce(base, []string{db}, nil)
			baseT, baseC = append(baseT, w), append(baseC, c)
			w, c = runOnce(bbPath(), []string{"hook", "claude", e.event, "--dir", p.dir}, e.in)
			evT[j], evC[j] = append(evT[j], w), append(evC[j], c)
		}
	}
	b.StopTimer()
	mb, mc := median(baseT), median(baseC)
	b.ReportMetric(float64(mb.Microseconds())/1000, "ms-baseline")
	b.ReportMetric(float64(mc.Microseconds())/1000, "cpu-ms-baseline")
	for j, e := range events {
		b.ReportMetric(float64(median(evT[j]))/float64(mb), "x-baseline-"+e.name)
		b.ReportMetric(float64(median(evC[j]))/float64(mc), "cpu-x-baseline-"+e.name)
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkTeam simulates 8 Claude Code sessions in one project doing a
// scripted round-based job: each round every session gets a prompt, edits
// one of 4 shared files (so edits overlap), and every other session mails
// the next one. It runs the script with the hooks (the real bb hook
// processes) and without them (edits just happen, mail waits in the inbox
// since agents do not poll), and reports:
//
//   - overlapping-edits: edits of a file while another active session holds
//     it or last edited it (goal with hooks: 0);
//
//   - prompts-to-delivery: mean prompts of the recipient until a message
//     is in its context (goal: 1, the next one; without hooks a message
//     never arrives, reported as 0 delivered);
//
//   - tokens-idle-prompt: tokens injected on prompts with nothing new
//     (bytes/4; goal 0).
//
//     go test ./internal/cli/bb/hooktest -run XXX -bench Team -benchtime 1x
func BenchmarkTeam(b *testing.B) {
	const sessions, rounds, files = 8, 3, 4
	for _, hooks := range []bool{true, false} {
		name := "without-hooks"
		if hooks {
			name = "with-hooks"
		}
		b.Run(name, func(b *testing.B) {
			var overlaps, delivered, sent, promptsToDelivery, idlePrompts, idleTokens int
			for i := 0; i < b.N; i++ {
				p := newProject(b)
				ss := make([]*claudeSession, sessions)
				ids := make([]string, sessions)
				t := b
				for k := range ss {
					ss[k] = &claudeSession{p: p, id: fmt.Sprintf("team-%d", k)}
					if hooks {
						ids[k] = ss[k].start(t, "startup")
					} else {
						ids[k] = fmt.Sprintf("agent-%d", k)
						p.bb(b, nil, "agent", "register", "--name", ids[k], "--role", "worker")
					}
				}
				lastEditor := map[string]int{}
				pending := map[int][]int{} // recipient -> prompts waited per pending message
				for r := 0; r < rounds; r++ {
					for k, s := range ss {
						// The prompt: what reaches the agent's context.
						if hooks {
							got := s.prompt(t)
							waiting := len(pending[k])
							if got == "" && waiting == 0 {
								idlePrompts++
							} else if waiting == 0 {
								idlePrompts++
								idleTokens += len(got) / 4
							}
							if got != "" {
								for _, w := range pending[k] {
									delivered++
									promptsToDelivery += w + 1
								}
								pending[k] = nil
							}
						}
						for n := range pending[k] {
							pending[k][n]++
						}
						// The edit: file (k+r) mod files, so sessions collide.
						f := fmt.Sprintf("src/f%d.go", (k+r)%files)
						allowed := true
						if hooks {
							allowed = s.edit(t, f) == ""
						}
						if allowed {
							if prev, ok := lastEditor[f]; ok && prev != k {
								overlaps++
							}
							lastEditor[f] = k
						}
						// Every other session mails the next one.
						if k%2 == 0 {
							to := (k + 1) % sessions
							p.bb(b, nil, "agent", "send", "--from", ids[k], "--to", ids[to], "--bead", "team", "--category", "INFO",
								"--subject", fmt.Sprintf("round %d note", r), "--body", "status update")
							sent++
							pending[to] = append(pending[to], 0)
						}
					}
				}
			}
			b.ReportMetric(float64(overlaps)/float64(b.N), "overlapping-edits")
			b.ReportMetric(float64(delivered)/float64(b.N), "delivered")
			b.ReportMetric(float64(sent)/float64(b.N), "sent")
			if delivered > 0 {
				b.ReportMetric(float64(promptsToDelivery)/float64(delivered), "prompts-to-delivery")
			}
			if idlePrompts > 0 {
				b.ReportMetric(float64(idleTokens)/float64(idlePrompts), "tokens-idle-prompt")
			}
		})
	}
}

// BenchmarkWorktreePreToolUse measures the edit check (PreToolUse, an Edit
// of a file the session holds) in a linked work tree (git worktree add
// ../wt1, and .claude/worktrees/x) as a ratio to the same check in the
// main checkout, interleaved in one run. Each hook runs in its checkout
// with no --dir, so finding the board (through the .git file and the
// common directory, no git process) is part of what is measured. The
// issue's bound: ≤ 1.1× the main checkout.
//
//	go test ./internal/cli/bb/hooktest -run '^$' -bench WorktreePreToolUse -benchtime 40x
func BenchmarkWorktreePreToolUse(b *testing.B) {
	p := newProject(b)
	wt1, wtx := p.worktrees(b)
	sessions := []*wtSession{
		{p: p, dir: p.dir, id: "bench-main"},
		{p: p, dir: wt1, id: "bench-wt1"},
		{p: p, dir: wtx, id: "bench-x"},
	}
	files := []string{"src/a.go", "src/b.go", "README"}
	ins := make([][]byte, len(sessions))
	for k, s := range sessions {
		s.start(b)
		if r, note := s.edit(b, files[k]); r != "" {
			b.Fatal(r, note)
		}
		m := map[string]any{"session_id": s.id, "transcript_path": "/t/" + s.id + ".jsonl", "cwd": s.dir,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_x",
			"tool_input": map[string]any{"file_path": filepath.Join(s.dir, files[k]), "old_string": "a", "new_string": "b"}}
		ins[k], _ = json.Marshal(m)
	}
	runOnce := func(s *wtSession, in []byte) (time.Duration, time.Duration) {
		c := exec.Command(bbPath(), "hook", "claude", "PreToolUse")
		c.Dir, c.Env, c.Stdin = s.dir, p.env, bytes.NewReader(in)
		t0 := time.Now()
		out, err := c.CombinedOutput()
		if err != nil || len(out) != 0 {
			b.Fatalf("PreToolUse in %s: %v %s", s.dir, err, out)
		}
		return time.Since(t0), c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	wall := make([][]time.Duration, len(sessions))
	cpu := make([][]time.Duration, len(sessions))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, s := range sessions {
			w, c := runOnce(s, ins[k])
			wall[k], cpu[k] = append(wall[k], w), append(cpu[k], c)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(median(wall[0]).Microseconds())/1000, "ms-main")
	for k, name := range []string{"wt1", "claude-worktree"} {
		b.ReportMetric(float64(median(wall[k+1]))/float64(median(wall[0])), "x-main-"+name)
		b.ReportMetric(float64(median(cpu[k+1]))/float64(median(cpu[0])), "cpu-x-main-"+name)
	}
}
