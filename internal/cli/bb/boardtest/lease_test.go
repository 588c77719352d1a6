package boardtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// leaseEvents returns the lease events of the board's timeline, in order.
func leaseEvents(t *testing.T, dir string) []struct {
	Type    string         `json:"type"`
	Payload map[string]any `json:"payload"`
} {
	t.Helper()
	out, err := bbCmd(dir, nil, "--json", "events", "--type", "lease.acquired,lease.released,lease.expired,lease.taken_over,lease.queued,lease.unqueued", "--limit", "1000").Output()
	if err != nil {
		t.Fatalf("bb events: %v\n%s", err, out)
	}
	var env struct {
		Data []struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("bb events --json: %v\n%s", err, out)
	}
	return env.Data
}

// run runs one bb process and returns its stdout, failing the test on a
// non-zero exit.
func run(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	c := bbCmd(dir, env, args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Errorf("bb %s (%v): %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), env, err, out.String(), errb.String())
	}
	return strings.TrimSpace(out.String())
}

// TestLeaseSlotRace starts 64 real processes at once for one build slot
// of capacity 2: each waits its turn, holds the slot, releases it. The
// timeline (every grant and release is one transaction with its event,
// in commit order) never shows more than 2 holders at once, and every
// one was served.
func TestLeaseSlotRace(t *testing.T) {
	const n = 64
	dir := initBoard(t)
	var mu sync.Mutex
	holding, most := 0, 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	fences := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := []string{fmt.Sprintf("BB_AGENT_ID=racer-%02d", i)}
			<-start
			fence := run(t, dir, env, "-q", "lease", "acquire", "build", "--capacity", "2", "--wait", "10m")
			mu.Lock()
			holding++
			most = max(most, holding)
			holding--
			mu.Unlock()
			fences <- fence
			run(t, dir, env, "lease", "release", "build")
		}()
	}
	close(start)
	wg.Wait()
	close(fences)
	seen := map[string]bool{}
	for f := range fences {
		if seen[f] {
			t.Errorf("fence %s granted twice", f)
		}
		seen[f] = true
	}
	if len(seen) != n {
		t.Fatalf("%d grants, want %d", len(seen), n)
	}
	held, peak, grants := 0, 0, 0
	for _, e := range leaseEvents(t, dir) {
		switch e.Type {
		case "lease.acquired":
			held++
			grants++
		case "lease.released", "lease.expired", "lease.taken_over":
			held--
		}
		peak = max(peak, held)
	}
	if peak > 2 || grants != n || held != 0 {
		t.Fatalf("the timeline shows %d holders at once (capacity 2), %d grants (want %d), %d left", peak, grants, n, held)
	}
	t.Logf("64 processes, capacity 2: at most %d holders at once", peak)
}

// TestLeasePortRace starts 64 real processes at once, each asking for
// its own web port from a range of 100 where 20 ports are in use on this
// host: all get distinct ports, none of those in use, each bindable.
func TestLeasePortRace(t *testing.T) {
	const n = 64
	dir := initBoard(t)
	lo := freeRange(t, 100)
	run(t, dir, nil, "config", "set", "leases.port_range", fmt.Sprintf("%d-%d", lo, lo+99))
	busy := map[int]bool{}
	for p := lo; p < lo+20; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("listen %d: %v", p, err)
		}
		defer l.Close()
		busy[p] = true
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	ports := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := []string{fmt.Sprintf("BB_AGENT_ID=server-%02d", i)}
			<-start
			ports <- run(t, dir, env, "-q", "lease", "acquire", "--port", "web")
		}()
	}
	close(start)
	wg.Wait()
	close(ports)
	got := map[int]bool{}
	for s := range ports {
		p, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("not a port: %q", s)
		}
		if got[p] || busy[p] || p < lo || p >= lo+100 {
			t.Errorf("port %d: twice %v, in use %v, or out of range", p, got[p], busy[p])
		}
		got[p] = true
		l, err := net.Listen("tcp", ":"+s)
		if err != nil {
			t.Errorf("granted port %d does not bind: %v", p, err)
			continue
		}
		l.Close()
	}
	if len(got) != n {
		t.Fatalf("%d distinct ports, want %d", len(got), n)
	}
}

// freeRange finds n consecutive ports that bind now, in 20000..29999.
func freeRange(t *testing.T, n int) int {
	t.Helper()
	for lo := 20000 + 100*(time.Now().Nanosecond()%50); lo < 30000; lo += n {
		ok := true
		for p := lo; p < lo+n && ok; p++ {
			l, err := net.Listen("tcp", ":"+strconv.Itoa(p))
			if err != nil {
				ok = false
				continue
			}
			l.Close()
		}
		if ok {
			return lo
		}
	}
	t.Fatal("no free port range")
	return 0
}

// leaseWaiters is how many callers wait for name.
func leaseWaiters(t *testing.T, dir, name string) []string {
	t.Helper()
	out, err := bbCmd(dir, nil, "--json", "lease", "show", name).Output()
	if err != nil {
		t.Fatalf("bb lease show: %v\n%s", err, out)
	}
	var env struct {
		Data struct {
			Waiters []struct {
				Agent string `json:"agent"`
			} `json:"waiters"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	var ws []string
	for _, w := range env.Data.Waiters {
		ws = append(ws, w.Agent)
	}
	return ws
}

// untilWaiting returns once name's queue is want (the board says so).
func untilWaiting(t *testing.T, dir, name string, want []string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !slices.Equal(leaseWaiters(t, dir, name), want) {
		if time.Now().After(deadline) {
			t.Fatalf("queue of %s is %v, want %v", name, leaseWaiters(t, dir, name), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waiter starts `bb lease acquire name --wait` for agent in the
// background; its exit is sent on done. The goroutine here is the one
// Wait of the process: callers wait on done, never on the returned Cmd.
func waiter(t *testing.T, dir, agent, name string, done chan<- string) *exec.Cmd {
	t.Helper()
	c := bbCmd(dir, []string{"BB_AGENT_ID=" + agent}, "-q", "lease", "acquire", name, "--wait", "10m")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		if err := c.Wait(); err != nil {
			done <- agent + " failed: " + err.Error() + ": " + out.String()
			return
		}
		done <- agent
	}()
	return c
}

// TestLeaseQueueInOrder queues 16 real waiter processes one after the
// other behind a holder; released, the lease goes to each in order of
// arrival. A waiter killed with -9 while in the queue is passed over:
// nothing waits for it.
func TestLeaseQueueInOrder(t *testing.T) {
	const n = 16
	dir := initBoard(t)
	run(t, dir, []string{"BB_AGENT_ID=holder-0"}, "lease", "acquire", "deploy")
	done := make(chan string, n+1)
	var queue []string
	var killed *exec.Cmd
	killedDone := make(chan string, 1)
	for i := range n {
		agent := fmt.Sprintf("waiter-%02d", i)
		if i == 3 {
			// This one dies in the queue.
			killed = waiter(t, dir, "doomed-1", "deploy", killedDone)
			queue = append(queue, "doomed-1")
			untilWaiting(t, dir, "deploy", queue)
		}
		waiter(t, dir, agent, "deploy", done)
		queue = append(queue, agent)
		untilWaiting(t, dir, "deploy", queue)
	}
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// waiter's goroutine reaps it; a second Wait on the same process
	// could block for ever (the child is already reaped).
	<-killedDone
	holder := "holder-0"
	for i := range n {
		run(t, dir, []string{"BB_AGENT_ID=" + holder}, "lease", "release", "deploy")
		var got string
		select {
		case got = <-done:
		case <-time.After(3 * time.Minute):
			// A grant that never comes fails with what the board says,
			// not with the package's timeout.
			show, _ := bbCmd(dir, nil, "--json", "lease", "show", "deploy").CombinedOutput()
			ev, _ := bbCmd(dir, nil, "events", "--limit", "12").CombinedOutput()
			t.Fatalf("grant %d: no waiter got deploy within 3 minutes of %s's release\nlease show: %s\nevents: %s", i, holder, show, ev)
		}
		if want := fmt.Sprintf("waiter-%02d", i); got != want {
			t.Fatalf("grant %d went to %s, want %s (order of arrival)", i, got, want)
		}
		holder = got
	}
}

// TestLeaseHolderKilled kills 8 real processes with -9 while they take
// and release one lock in a loop: the board stays whole, at most one
// holds the lock, and its grant ends later by expiry (past its TTL) or
// by takeover (its holder stale).
func TestLeaseHolderKilled(t *testing.T) {
	dir := initBoard(t)
	var cmds []*exec.Cmd
	for i := range 8 {
		script := fmt.Sprintf(`while :; do %[1]s -q lease acquire db:migrations --ttl 5 --wait 1m >/dev/null && %[1]s lease release db:migrations >/dev/null; done`, bbPath())
		c := exec.Command("sh", "-c", script)
		c.Dir = dir
		c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, fmt.Sprintf("BB_AGENT_ID=looper-%d", i)}
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	// Let them get going: the first grants are on the timeline.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		grants := 0
		for _, e := range leaseEvents(t, dir) {
			if e.Type == "lease.acquired" {
				grants++
			}
		}
		if grants >= 16 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d grants", grants)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range cmds {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) // the shell and its bb
		_ = c.Wait()
	}
	if out := run(t, dir, nil, "doctor"); strings.Contains(strings.ToLower(out), "corrupt") {
		t.Fatalf("bb doctor: %s", out)
	}
	out, err := bbCmd(dir, nil, "--json", "lease", "show", "db:migrations").Output()
	if err != nil {
		t.Fatalf("lease show: %v\n%s", err, out)
	}
	var env struct {
		Data struct {
			Fence   int64 `json:"fence"`
			Holders []struct {
				Agent string `json:"agent"`
				Fence int64  `json:"fence"`
			} `json:"holders"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Data.Holders) > 1 {
		t.Fatalf("%d holders of a lock", len(env.Data.Holders))
	}
	// An hour later (past the 5-minute TTL, every looper stale) a new
	// agent gets it: by expiry, the killed holder's grant ends.
	later := time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
	fence := run(t, dir, []string{"BB_AGENT_ID=survivor-1", "BB_NOW=" + later}, "-q", "lease", "acquire", "db:migrations")
	if f, _ := strconv.ParseInt(fence, 10, 64); f != env.Data.Fence+1 {
		t.Fatalf("survivor's fence %s, want %d", fence, env.Data.Fence+1)
	}
	if len(env.Data.Holders) == 1 {
		found := false
		for _, e := range leaseEvents(t, dir) {
			if e.Type == "lease.expired" && e.Payload["holder"] == env.Data.Holders[0].Agent {
				found = true
			}
		}
		if !found {
			t.Fatalf("the killed holder's grant did not end as expired")
		}
	}
}
