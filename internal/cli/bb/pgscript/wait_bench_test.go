package pgscript

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// Benchmarks of bb agent wait (issue 33): how long after `bb agent send`
// returns in one process the `bb agent wait` of another returns, beside
// how long `bb events --follow` (the board's existing stream) takes to
// print the same send, on SQLite, on PostgreSQL and through bb serve,
// interleaved in every iteration; and what 10 idle waiters cost beside 10
// idle followers.

// waitBoard is one board the wait benchmarks run against.
type waitBoard struct {
	name string
	dir  string
	env  []string
	// listening reports whether waiter pid is blocked on the board's
	// signal (its first look done): on SQLite it holds an inotify
	// descriptor, on PostgreSQL its connection has run LISTEN, through bb
	// serve the server counts its request in bb_open_streams.
	listening func(pid int) bool
	// follower is `bb events --follow --json --type HANDOFF`: the time
	// each line was read.
	lines chan followLine
	pids  []int // the board's server processes (bb serve, PostgreSQL)
}

type followLine struct {
	at   time.Time
	text string
}

func (w *waitBoard) cmd(args ...string) *exec.Cmd {
	c := exec.Command(bin("bb"), args...)
	c.Dir, c.Env = w.dir, w.env
	return c
}

func (w *waitBoard) ok(tb testing.TB, args ...string) {
	tb.Helper()
	if out, err := w.cmd(args...).CombinedOutput(); err != nil {
		tb.Fatalf("bb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// follow starts the board's follower.
func (w *waitBoard) follow(tb testing.TB) *exec.Cmd {
	tb.Helper()
	c := w.cmd("events", "--follow", "--json", "--type", "HANDOFF")
	out, err := c.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	w.lines = make(chan followLine, 64)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			w.lines <- followLine{time.Now(), sc.Text()}
		}
	}()
	return c
}

func newWaitBoard(tb testing.TB, name string) *waitBoard {
	tb.Helper()
	w := &waitBoard{name: name, dir: tb.TempDir()}
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.dir}
	switch name {
	case "sqlite":
		w.ok(tb, "init")
		w.listening = inotifyHeld
	case "postgres":
		dbURL, drop, err := pgtest.NewDatabase(tb.Name() + "wait")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = drop() })
		w.env = append(w.env, "BB_DATABASE_URL="+dbURL)
		w.ok(tb, "init")
		db, err := sql.Open("pgx", dbURL)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		w.pids = clusterPids(postmaster(tb, dbURL))
		w.listening = func(int) bool {
			// One more listening connection than the follower's.
			var n int
			_ = db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&n)
			return n >= 2
		}
	case "serve":
		w.ok(tb, "init")
		s := startServe(tb, w.dir)
		w.pids = []int{s.cmd.Process.Pid}
		w.env = append(w.env, "BB_SERVER="+s.URL)
		w.listening = func(int) bool { return openWaiters(s.URL) >= 1 }
	}
	w.ok(tb, "agent", "register", "--name", "sender-one", "--role", "r")
	w.ok(tb, "agent", "register", "--name", "waiter-one", "--role", "r")
	return w
}

// inotifyHeld reports whether pid holds an inotify descriptor (the SQLite
// feed's watcher, opened before a wait's first look).
func inotifyHeld(pid int) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, _ := os.ReadDir(dir)
	for _, fd := range fds {
		if l, _ := os.Readlink(filepath.Join(dir, fd.Name())); l == "anon_inode:inotify" {
			return true
		}
	}
	return false
}

// openWaiters reads bb_open_streams{kind="wait"} of a token-less bb serve.
func openWaiters(base string) float64 {
	resp, err := httpGet(base + "/metrics")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(resp, "\n") {
		if strings.HasPrefix(l, `bb_open_streams{kind="wait"} `) {
			v, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(l, `bb_open_streams{kind="wait"}`)), 64)
			return v
		}
	}
	return -1
}

// sample is one send: when the bb agent send process started and
// returned, when the wait returned and when the follower printed it.
type sample struct{ start, sent, wait, follow time.Time }

// once starts a waiter, waits until it listens, sends it a HANDOFF and
// times both ends.
func (w *waitBoard) once(b *testing.B, i int) sample {
	b.Helper()
	wc := w.cmd("--json", "agent", "wait", "--agent", "waiter-one", "--timeout", "5m")
	if err := wc.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan time.Time, 1)
	var werr error
	go func() { werr = wc.Wait(); exited <- time.Now() }()
	for deadline := time.Now().Add(time.Minute); !w.listening(wc.Process.Pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%s: the waiter does not listen after 1m", w.name)
		}
	}
	time.Sleep(20 * time.Millisecond) // its first look is over
	subject := fmt.Sprintf("bench-%s-%d", w.name, i)
	var s sample
	s.start = time.Now()
	send := w.cmd("agent", "send", "--from", "sender-one", "--to", "waiter-one", "--bead", "bb-1", "--category", "HANDOFF",
		"--subject", subject, "--body", "b")
	if out, err := send.CombinedOutput(); err != nil {
		b.Fatalf("send: %v\n%s", err, out)
	}
	s.sent = time.Now()
	select {
	case at := <-exited:
		if werr != nil {
			b.Fatalf("%s: wait: %v", w.name, werr)
		}
		s.wait = at
	case <-time.After(time.Minute):
		b.Fatalf("%s: the wait did not return within 1m", w.name)
	}
	for {
		select {
		case l := <-w.lines:
			if !strings.Contains(l.text, subject) {
				continue
			}
			s.follow = l.at
			return s
		case <-time.After(time.Minute):
			b.Fatalf("%s: the follower did not print the send within 1m", w.name)
		}
	}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkWaitLatency: per iteration, one send on each board (SQLite,
// PostgreSQL, a bb serve on SQLite), in a rotating order. Run with e.g.
// -benchtime 40x; the p99 of fewer than 100 sends is their maximum.
//
//	go test ./internal/cli/bb/pgscript -run '^$' -bench WaitLatency -benchtime 40x
func BenchmarkWaitLatency(b *testing.B) {
	names := []string{"sqlite", "postgres", "serve"}
	if os.Getenv(pgtest.EnvURL) == "" {
		b.Log("no PostgreSQL (see BB_PG_BIN): sqlite and serve only")
		names = []string{"sqlite", "serve"}
	}
	boards := map[string]*waitBoard{}
	for _, n := range names {
		boards[n] = newWaitBoard(b, n)
		boards[n].follow(b)
	}
	got := map[string][]sample{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range names {
			n := names[(i+k)%len(names)]
			got[n] = append(got[n], boards[n].once(b, i))
		}
	}
	b.StopTimer()
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d sends per board, load average %s", b.N, strings.Join(strings.Fields(string(load))[:3], " "))
	for _, n := range names {
		// From the send's start (both include the send process, whose
		// commit a follower may print before the process has exited), and
		// after its return.
		var wait, follow, waitAfter, followAfter []time.Duration
		for _, s := range got[n] {
			wait, follow = append(wait, s.wait.Sub(s.start)), append(follow, s.follow.Sub(s.start))
			waitAfter, followAfter = append(waitAfter, s.wait.Sub(s.sent)), append(followAfter, s.follow.Sub(s.sent))
		}
		w50, w99, f50, f99 := quantile(wait, .5), quantile(wait, .99), quantile(follow, .5), quantile(follow, .99)
		b.Logf("%-8s from the send's start: wait p50 %6.1f ms p99 %6.1f ms | events --follow p50 %6.1f ms p99 %6.1f ms | ratio p50 %.2f p99 %.2f",
			n, ms(w50), ms(w99), ms(f50), ms(f99), float64(w50)/float64(f50), float64(w99)/float64(f99))
		b.Logf("%-8s after the send returned: wait p50 %6.1f ms p99 %6.1f ms | events --follow p50 %6.1f ms p99 %6.1f ms",
			n, ms(quantile(waitAfter, .5)), ms(quantile(waitAfter, .99)), ms(quantile(followAfter, .5)), ms(quantile(followAfter, .99)))
		b.ReportMetric(ms(w50), n+"-wait-p50-ms")
		b.ReportMetric(ms(w99), n+"-wait-p99-ms")
		b.ReportMetric(ms(f50), n+"-follow-p50-ms")
		b.ReportMetric(ms(f99), n+"-follow-p99-ms")
		b.ReportMetric(float64(w50)/float64(f50), n+"-p50-ratio")
		b.ReportMetric(float64(w99)/float64(f99), n+"-p99-ratio")
		b.ReportMetric(ms(quantile(waitAfter, .5)), n+"-wait-after-return-p50-ms")
	}
}

// procCost is the CPU time and read(2) calls of pids so far: the CPU
// time from every thread's schedstat (nanoseconds; /proc/<pid>/stat
// counts 10 ms ticks, too coarse for an idle process).
func procCost(pids []int) (cpu time.Duration, reads int64) {
	for _, pid := range pids {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
			if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				cpu += time.Duration(ns)
			}
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "syscr: "); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				reads += n
			}
		}
	}
	return cpu, reads
}

// pgTransactions is the cluster's committed and rolled back transactions
// on the board's database so far (PostgreSQL counts every statement's).
func pgTransactions(tb testing.TB, db *sql.DB) int64 {
	var n int64
	if err := db.QueryRow(`SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkWaitIdle: 10 `bb agent wait` processes (10 agents) and 10
// `bb events --follow` processes on one board, idle, for
// BB_BENCH_DURATION (default 10s) each set alone, sets in a rotating
// order: the CPU seconds per second and read(2) calls per second of the
// processes (from /proc), and on PostgreSQL the database's transactions
// per second (pg_stat_database, minus this benchmark's own read).
//
//	go test ./internal/cli/bb/pgscript -run '^$' -bench WaitIdle -benchtime 2x
func BenchmarkWaitIdle(b *testing.B) {
	dur := 10 * time.Second
	if v := os.Getenv("BB_BENCH_DURATION"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			dur = d
		}
	}
	names := []string{"sqlite", "postgres"}
	if os.Getenv(pgtest.EnvURL) == "" {
		b.Log("no PostgreSQL (see BB_PG_BIN): sqlite only")
		names = []string{"sqlite"}
	}
	const n = 10
	type cost struct {
		cpuPerS, readsPerS, txPerS float64
	}
	boards := map[string]*waitBoard{}
	dbs := map[string]*sql.DB{}
	for _, name := range names {
		w := &waitBoard{name: name, dir: b.TempDir()}
		w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.dir}
		if name == "postgres" {
			dbURL, drop, err := pgtest.NewDatabase(b.Name() + "idle")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = drop() })
			w.env = append(w.env, "BB_DATABASE_URL="+dbURL)
			db, err := sql.Open("pgx", dbURL)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			dbs[name] = db
		}
		w.ok(b, "init")
		for i := range n {
			w.ok(b, "agent", "register", "--name", fmt.Sprintf("idle-%02d", i), "--role", "r")
		}
		boards[name] = w
	}
	// run starts the set, lets it settle, and measures it idle.
	run := func(w *waitBoard, waiters bool) cost {
		var cmds []*exec.Cmd
		for i := range n {
			args := []string{"events", "--follow", "--json"}
			if waiters {
				args = []string{"agent", "wait", "--agent", fmt.Sprintf("idle-%02d", i), "--timeout", "1h"}
			}
			c := w.cmd(args...)
			if err := c.Start(); err != nil {
				b.Fatal(err)
			}
			cmds = append(cmds, c)
		}
		defer func() {
			for _, c := range cmds {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
		}()
		pids := make([]int, 0, n)
		for _, c := range cmds {
			pids = append(pids, c.Process.Pid)
		}
		// Started and caught up; on PostgreSQL also past the 10 s after
		// which an idle backend reports its start-up transactions to
		// pg_stat_database (PGSTAT_IDLE_INTERVAL), so they are not
		// counted as idle ones.
		settle := 5 * time.Second
		if w.name == "postgres" {
			settle = 12 * time.Second
		}
		time.Sleep(settle)
		db := dbs[w.name]
		var tx0 int64
		if db != nil {
			tx0 = pgTransactions(b, db)
		}
		cpu0, r0 := procCost(pids)
		start := time.Now()
		time.Sleep(dur)
		cpu1, r1 := procCost(pids)
		el := time.Since(start).Seconds()
		c := cost{cpuPerS: (cpu1 - cpu0).Seconds() / el, readsPerS: float64(r1-r0) / el}
		if db != nil {
			c.txPerS = float64(pgTransactions(b, db)-tx0-1) / el
		}
		return c
	}
	for i := 0; i < b.N; i++ {
		load, _ := os.ReadFile("/proc/loadavg")
		for _, name := range names {
			w := boards[name]
			var wc, fc cost
			if i%2 == 0 {
				wc, fc = run(w, true), run(w, false)
			} else {
				fc, wc = run(w, false), run(w, true)
			}
			b.Logf("round %d, %s, load %s: 10 waiters %.3f ms CPU/s, %.1f reads/s, %.2f tx/s | 10 followers %.3f ms CPU/s, %.1f reads/s, %.2f tx/s",
				i+1, name, strings.Fields(string(load))[0], wc.cpuPerS*1000, wc.readsPerS, wc.txPerS, fc.cpuPerS*1000, fc.readsPerS, fc.txPerS)
			b.ReportMetric(wc.cpuPerS*1000, name+"-waiters-cpu-ms/s")
			b.ReportMetric(fc.cpuPerS*1000, name+"-followers-cpu-ms/s")
			b.ReportMetric(wc.readsPerS, name+"-waiters-reads/s")
			b.ReportMetric(fc.readsPerS, name+"-followers-reads/s")
			if name == "postgres" {
				b.ReportMetric(wc.txPerS, name+"-waiters-tx/s")
				b.ReportMetric(fc.txPerS, name+"-followers-tx/s")
			}
		}
	}
}

// httpGet returns the body of a GET.
func httpGet(u string) (string, error) {
	resp, err := http.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
