package vybetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// timeProcess runs one process per iteration and reports the median and
// 90th percentile wall time of a process (the speed targets are medians).
func timeProcess(b *testing.B, mk func(i int) *exec.Cmd) {
	b.Helper()
	durs := make([]time.Duration, 0, b.N)
	cpus := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := mk(i)
		start := time.Now()
		out, err := c.CombinedOutput()
		durs = append(durs, time.Since(start))
		if err != nil {
			b.Fatalf("%v: %v\n%s", c.Args, err, out)
		}
		cpus = append(cpus, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	sortDur(durs)
	sortDur(cpus)
	b.ReportMetric(ms(durs[len(durs)/2]), "median-ms")
	b.ReportMetric(ms(durs[len(durs)*9/10]), "p90-ms")
	// CPU time (user+sys) of the process: what the command costs, less
	// sensitive than wall time to a loaded machine.
	b.ReportMetric(ms(cpus[len(cpus)/2]), "median-cpu-ms")
}

func sortDur(d []time.Duration) { sort.Slice(d, func(i, j int) bool { return d[i] < d[j] }) }

func benchSandbox(b *testing.B) (*sandbox, string, string) {
	s := newSandbox(b)
	d := s.ok("task", "create", "--agent", "bench", "--request-id", "seed-1", "--title", "Seed task", "--project-id", "p")
	id := str(path(d, "task.id"))
	d = s.ok("task", "create", "--agent", "bench", "--request-id", "seed-2", "--title", "Other task", "--project-id", "p")
	other := str(path(d, "task.id"))
	s.ok("memory", "set", "--agent", "bench", "--request-id", "seed-3", "-k", "k", "-v", "v")
	return s, id, other
}

// BenchmarkVybeCommand times one `vybe` process per command.
func BenchmarkVybeCommand(b *testing.B) {
	cases := []struct {
		name string
		args func(id string, i int) []string
	}{
		{"bare", func(string, int) []string { return nil }},
		{"task-create", func(_ string, i int) []string {
			return []string{"task", "create", "--title", "t", "--request-id", fmt.Sprint("c", i)}
		}},
		{"task-get", func(id string, _ int) []string { return []string{"task", "get", "--id", id} }},
		{"task-list", func(string, int) []string { return []string{"task", "list", "--project-id", "p"} }},
		{"task-begin", func(id string, i int) []string {
			return []string{"task", "begin", "--id", id, "--request-id", fmt.Sprint("b", i)}
		}},
		{"task-set-status", func(id string, i int) []string {
			return []string{"task", "set-status", "--id", id, "--status", "pending", "--request-id", fmt.Sprint("s", i)}
		}},
		{"task-set-priority", func(id string, i int) []string {
			return []string{"task", "set-priority", "--id", id, "--priority", fmt.Sprint(i % 7), "--request-id", fmt.Sprint("p", i)}
		}},
		{"task-complete", func(id string, i int) []string {
			return []string{"task", "complete", "--id", id, "--outcome", "done", "--summary", "ok", "--request-id", fmt.Sprint("d", i)}
		}},
		{"task-add-dep", func(id string, i int) []string {
			// id is the seeded task, "other" is replaced below by the second one.
			return []string{"task", "add-dep", "--id", id, "--depends-on", "other", "--request-id", fmt.Sprint("a", i)}
		}},
		{"memory-set", func(_ string, i int) []string {
			return []string{"memory", "set", "-k", fmt.Sprint("k", i%50), "-v", "value", "--request-id", fmt.Sprint("m", i)}
		}},
		{"memory-get", func(string, int) []string { return []string{"memory", "get", "-k", "k"} }},
		{"memory-list", func(string, int) []string { return []string{"memory", "list"} }},
		{"push", func(id string, i int) []string {
			return []string{"push", "--request-id", fmt.Sprint("u", i), "--json", `{"task_id":"` + id + `","event":{"kind":"progress","message":"m"}}`}
		}},
		{"events-list", func(string, int) []string { return []string{"events", "list", "--limit", "50"} }},
		{"resume", func(_ string, i int) []string {
			return []string{"resume", "--request-id", fmt.Sprint("r", i), "--project-dir", "p"}
		}},
		{"resume-peek", func(string, int) []string { return []string{"resume", "--peek"} }},
		{"status", func(string, int) []string { return []string{"status"} }},
		{"schema", func(string, int) []string { return []string{"schema", "commands"} }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s, id, other := benchSandbox(b)
			timeProcess(b, func(i int) *exec.Cmd {
				args := c.args(id, i)
				for k, a := range args {
					if a == "other" {
						args[k] = other
					}
				}
				cmd := exec.Command(vybePath(), append(args, "--agent", "bench")...)
				cmd.Dir, cmd.Env = s.Dir, s.Env
				return cmd
			})
		})
	}
}

// BenchmarkBBTaskCommand times one `bb task` process per command.
func BenchmarkBBTaskCommand(b *testing.B) {
	cases := []struct {
		name string
		args func(id string, i int) []string
	}{
		{"create", func(_ string, i int) []string { return []string{"task", "create", "t"} }},
		{"list", func(string, int) []string { return []string{"task", "list"} }},
		{"show", func(id string, _ int) []string { return []string{"task", "show", id} }},
		{"begin", func(id string, _ int) []string { return []string{"task", "begin", id} }},
		{"priority", func(id string, i int) []string { return []string{"task", "priority", id, fmt.Sprint(i % 5)} }},
		{"complete", func(id string, _ int) []string { return []string{"task", "complete", id, "--summary", "ok"} }},
		{"resume", func(string, int) []string { return []string{"resume"} }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := newSandbox(b)
			if r := s.run("", bbPath(), "init"); r.Code != 0 {
				b.Fatal(r.Stderr)
			}
			r := s.run("", bbPath(), "--as", "bench", "--json", "task", "create", "seed")
			id := str(path(decode(b, r.Stdout), "data.id"))
			timeProcess(b, func(i int) *exec.Cmd {
				cmd := exec.Command(bbPath(), append([]string{"--as", "bench", "--json"}, c.args(id, i)...)...)
				cmd.Dir, cmd.Env = s.Dir, s.Env
				return cmd
			})
		})
	}
}

var (
	largeOnce sync.Once
	largeDB   string
	largeErr  error
)

// largeStore seeds (once per test binary) 10k tasks in 10 projects, some
// with dependencies, and 100k events spread over them.
func largeStore(b *testing.B) string {
	largeOnce.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			largeErr = err
			return
		}
		largeDB = filepath.Join(dir, "large.db")
		largeErr = seedLarge(largeDB, 10000, 100000)
	})
	if largeErr != nil {
		b.Fatal(largeErr)
	}
	return largeDB
}

func seedLarge(dbPath string, nTasks, nEvents int) error {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{Create: true})
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]string, nTasks)
	const batch = 5000
	for done := 0; done < nTasks; done += batch {
		err := st.Write(ctx, func(tx hub.Tx) error {
			for i := done; i < min(done+batch, nTasks); i++ {
				at := start.Add(time.Duration(i) * time.Second)
				status := []string{hub.TaskCompleted, hub.TaskCompleted, hub.TaskPending, hub.TaskInProgress, hub.TaskBlocked}[i%5]
				t := &hub.Task{ID: fmt.Sprintf("task_%d_%012x", at.UnixNano(), i), Title: fmt.Sprintf("Task %d", i),
					Status: status, Priority: i % 7, ProjectID: fmt.Sprintf("/proj/%d", i%10), Version: 1, CreatedAt: at, UpdatedAt: at}
				if status == hub.TaskBlocked {
					t.BlockedReason = hub.BlockedByDependency
				}
				if err := tx.InsertTask(ctx, t); err != nil {
					return err
				}
				ids[i] = t.ID
				if status == hub.TaskBlocked && i > 0 {
					if err := tx.AddTaskDep(ctx, t.ID, ids[i-1], at); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for done := 0; done < nEvents; done += batch {
		err := st.Write(ctx, func(tx hub.Tx) error {
			for i := done; i < min(done+batch, nEvents); i++ {
				t := i % nTasks
				e := &hub.Event{Type: "progress", Agent: fmt.Sprintf("agent-%d", i%20), TaskID: ids[t],
					ProjectID: fmt.Sprintf("/proj/%d", t%10), Message: "seeded progress event with a realistic length message",
					CreatedAt: start.Add(time.Duration(i) * time.Millisecond)}
				if err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkVybeResumeLarge times `vybe resume` with 10k tasks and 100k
// events: a returning agent (few new events), a fresh agent (1000 deltas,
// the cap) and a peek.
func BenchmarkVybeResumeLarge(b *testing.B) {
	db := largeStore(b)
	env := func(s *sandbox) []string { return append(s.Env, "VYBE_DB_PATH="+db) }
	b.Run("returning-agent", func(b *testing.B) {
		s := newSandbox(b)
		s.Env = env(s)
		s.ok("resume", "--agent", "returning", "--request-id", "warm-0", "--project-dir", "/proj/3")
		// Skip to the end of the log so each resume sees only new events.
		for k := 1; k < 200; k++ {
			d := s.ok("resume", "--agent", "returning", "--request-id", fmt.Sprint("warm-", k))
			if path(d, "deltas") == nil {
				break
			}
		}
		timeProcess(b, func(i int) *exec.Cmd {
			c := exec.Command(vybePath(), "resume", "--agent", "returning", "--request-id", fmt.Sprintf("ret-%d-%d", b.N, i))
			c.Dir, c.Env = s.Dir, s.Env
			return c
		})
	})
	b.Run("fresh-agent-1000-deltas", func(b *testing.B) {
		s := newSandbox(b)
		s.Env = env(s)
		timeProcess(b, func(i int) *exec.Cmd {
			c := exec.Command(vybePath(), "resume", "--agent", fmt.Sprintf("fresh-%d-%d", b.N, i), "--request-id", "r", "--project-dir", "/proj/5")
			c.Dir, c.Env = s.Dir, s.Env
			return c
		})
	})
	b.Run("peek", func(b *testing.B) {
		s := newSandbox(b)
		s.Env = env(s)
		timeProcess(b, func(i int) *exec.Cmd {
			c := exec.Command(vybePath(), "resume", "--peek", "--agent", "returning")
			c.Dir, c.Env = s.Dir, s.Env
			return c
		})
	})
}

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "vybe-large-") }
