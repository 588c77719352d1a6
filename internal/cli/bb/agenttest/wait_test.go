package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// waiter is one `bb agent wait` process running in the background.
type waiter struct {
	agent string
	cmd   *exec.Cmd
	out   bytes.Buffer
	errb  bytes.Buffer
	done  chan error
}

// startWait starts `bb --json agent wait --agent agent` with args.
func (b *board) startWait(agent string, args ...string) *waiter {
	b.t.Helper()
	w := &waiter{agent: agent, done: make(chan error, 1)}
	w.cmd = exec.Command(bbPath(), append([]string{"--json", "agent", "wait", "--agent", agent}, args...)...)
	w.cmd.Dir, w.cmd.Env = b.dir, b.env
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.errb
	if err := w.cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	b.t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
		w.done <- nil
	})
	return w
}

// watching reports whether the process listens on the board's change
// signal: on Linux the SQLite feed holds an inotify descriptor once it
// is subscribed, which a wait does before its first look.
func watching(pid int) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && l == "anon_inode:inotify" {
			return true
		}
	}
	return false
}

// untilWatching waits until every waiter listens (a bound only against
// a hang: the test fails, it never passes, by time).
func untilWatching(t *testing.T, ws []*waiter) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("whether a waiter listens is read from /proc (Linux only)")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for _, w := range ws {
		for !watching(w.cmd.Process.Pid) {
			select {
			case err := <-w.done:
				t.Fatalf("waiter %s ended before it listened: %v\n%s%s", w.agent, err, w.out.String(), w.errb.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiter %s does not listen after 2m", w.agent)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// waitJSON is the part of bb agent wait --json's data these tests read.
type waitJSON struct {
	AgentID   string   `json:"agent_id"`
	Met       bool     `json:"met"`
	TimedOut  bool     `json:"timed_out"`
	Delivered []string `json:"delivered"`
	Text      string   `json:"text"`
}

// result waits for the waiter's end and decodes its reply.
func (w *waiter) result(t *testing.T) waitJSON {
	t.Helper()
	select {
	case err := <-w.done:
		w.done <- err
		if err != nil {
			t.Fatalf("waiter %s: %v\n%s%s", w.agent, err, w.out.String(), w.errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("waiter %s did not return within 2m", w.agent)
	}
	var env struct {
		OK   bool     `json:"ok"`
		Data waitJSON `json:"data"`
	}
	if err := json.Unmarshal(w.out.Bytes(), &env); err != nil || !env.OK {
		t.Fatalf("waiter %s: %v\n%s%s", w.agent, err, w.out.String(), w.errb.String())
	}
	return env.Data
}

// sendID sends a HANDOFF from sender to agent with subject and returns
// its message id.
func (b *board) sendID(from, to, subject string) string {
	b.t.Helper()
	r := b.ok("--json", "agent", "send", "--from", from, "--to", to, "--bead", "bb-1", "--category", "HANDOFF",
		"--subject", subject, "--body", "for "+to)
	var d struct {
		MessageID string `json:"message_id"`
	}
	if err := json.Unmarshal(decode(b.t.(*testing.T), r.stdout).Data, &d); err != nil || d.MessageID == "" {
		b.t.Fatalf("send: %v\n%s", err, r.stdout)
	}
	return d.MessageID
}

// openBoard opens the board of b through the door every bb command uses
// (internal/boot), as a process of its own would: its own store on the
// same file, its own change feed.
func (b *board) openBoard(t *testing.T) app.API {
	t.Helper()
	bo, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(b.dir, ".bb", "blackboard.db"), ProjectRoot: b.dir, LongLived: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bo.Close)
	return bo.API
}

// 100 waiters, one per agent, all listening at once, woken by 100 sends
// (one to each, several at a time): every waiter returns its own item
// and nothing else, and the board records each item delivered exactly
// once, by a wait, to its recipient. realWaiters of them are real
// `bb agent wait` processes; the others wait in goroutines through the
// core's Wait (what bb agent wait calls), spread over boards opened as
// separate processes would open them. 100 processes do not fit the time
// of a test: every commit wakes each listening process's own feed, about
// 0.75 s of a 2-core machine per send with 100 of them (76 s for the
// 100 sends, measured on 2026-12-02).
func TestHundredWaiters(t *testing.T) {
	const n, realWaiters, boards = 100, 10, 3
	b := newBoard(t)
	ctx := context.Background()
	sender := b.openBoard(t)
	agents := make([]string, n)
	for i := range agents {
		agents[i] = fmt.Sprintf("waiter-%03d", i)
		if _, _, err := sender.RegisterAgent(ctx, hub.RegisterInput{ID: agents[i], Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := sender.RegisterAgent(ctx, hub.RegisterInput{ID: "sender-one", Role: "r"}); err != nil {
		t.Fatal(err)
	}
	ws := make([]*waiter, realWaiters)
	for i := range ws {
		ws[i] = b.startWait(agents[i], "--timeout", "10m")
	}
	// The goroutine waiters. One that is not yet listening when its
	// item is sent finds it at its first look, which follows its
	// subscription to the feed: either way it gets it once.
	type result struct {
		i   int
		res hooks.WaitResult
		err error
	}
	results := make(chan result, n)
	apis := make([]app.API, boards)
	for k := range apis {
		apis[k] = b.openBoard(t)
	}
	for i := realWaiters; i < n; i++ {
		go func() {
			res, err := apis[i%boards].Wait(ctx, hooks.WaitInput{Agent: agents[i], Timeout: 10 * time.Minute, Via: hooks.ViaWait}, nil)
			results <- result{i, res, err}
		}()
	}
	untilWatching(t, ws)

	ids := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			m, err := sender.SendMail(ctx, hub.SendInput{From: "sender-one", To: a, BeadID: "bb-1", Category: "HANDOFF",
				Subject: fmt.Sprintf("item %03d for %s", i, a), Body: "for " + a})
			if err != nil {
				t.Error(err)
			}
			ids[i] = m.UUID
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	owner := map[string]string{} // message id -> recipient
	for i, a := range agents {
		owner[ids[i]] = a
	}
	check := func(i int, met, timedOut bool, agent string, delivered []string, text string) {
		t.Helper()
		if !met || timedOut || agent != agents[i] {
			t.Errorf("waiter %s: met %v, timed out %v, agent %q", agents[i], met, timedOut, agent)
		}
		if len(delivered) != 1 || delivered[0] != ids[i] {
			t.Errorf("waiter %s got %v, want only its item %s", agents[i], delivered, ids[i])
		}
		if c := strings.Count(text, "item "); c != 1 || !strings.Contains(text, fmt.Sprintf("item %03d for %s", i, agents[i])) {
			t.Errorf("waiter %s's items hold %d subjects, want only its own:\n%s", agents[i], c, text)
		}
	}
	for i, w := range ws {
		r := w.result(t)
		check(i, r.Met, r.TimedOut, r.AgentID, r.Delivered, r.Text)
	}
	for range n - realWaiters {
		select {
		case r := <-results:
			if r.err != nil {
				t.Fatalf("waiter %s: %v", agents[r.i], r.err)
			}
			check(r.i, r.res.Met, r.res.TimedOut, r.res.AgentID, r.res.Delivery.Delivered, r.res.Delivery.Text.String())
		case <-time.After(2 * time.Minute):
			t.Fatal("a goroutine waiter did not return within 2m")
		}
	}
	// The stored deliveries: one row per item, to its recipient, by a wait.
	rows := b.query(`SELECT message_id, agent, via FROM mail_deliveries`)
	if len(rows) != n {
		t.Errorf("%d deliveries stored, want %d", len(rows), n)
	}
	seen := map[string]int{}
	for _, r := range rows {
		id, agent, via := r[0].(string), r[1].(string), r[2].(string)
		seen[id]++
		if owner[id] != agent || via != "wait" {
			t.Errorf("delivery of %s to %s by %q; its recipient is %q, want by wait", id, agent, via, owner[id])
		}
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("message %s delivered %d times, want once", id, seen[id])
		}
	}
	if got := b.count(`SELECT COUNT(*) FROM events WHERE type = 'mail.delivered'`); got != n {
		t.Errorf("%d mail.delivered events, want %d", got, n)
	}
}

// A `bb agent wait` killed with SIGKILL while it listens loses nothing:
// the mail sent after the kill is not recorded delivered, and the agent's
// next prompt hook delivers it (and a wait after that has nothing).
func TestKilledWaiterLosesNothing(t *testing.T) {
	b := newBoard(t)
	b.ok("agent", "register", "--name", "amber-otter", "--role", "worker")
	b.ok("agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	w := b.startWait("cobalt-harbor", "--timeout", "10m")
	untilWatching(t, []*waiter{w})
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-w.done; err == nil {
		t.Fatal("the killed waiter exited 0")
	}
	w.done <- nil
	id := b.sendID("amber-otter", "cobalt-harbor", "Take over the parser")
	if got := b.count(`SELECT COUNT(*) FROM mail_deliveries WHERE message_id = ?`, id); got != 0 {
		t.Fatalf("the mail is recorded delivered %d times after its waiter was killed", got)
	}
	out := b.hook("cobalt-harbor", "UserPromptSubmit", `{"session_id":"s-kill","hook_event_name":"UserPromptSubmit","prompt":"go on"}`)
	if !strings.Contains(out, "Take over the parser") {
		t.Fatalf("the next prompt hook did not deliver the mail:\n%s", out)
	}
	rows := b.query(`SELECT agent, via FROM mail_deliveries WHERE message_id = ?`, id)
	if len(rows) != 1 || rows[0][0] != "cobalt-harbor" || rows[0][1] != "prompt" {
		t.Fatalf("deliveries of the mail: %v, want one to cobalt-harbor by the prompt hook", rows)
	}
	// Nothing is left for a wait.
	var d waitJSON
	if err := json.Unmarshal(decode(t, b.ok("--json", "agent", "wait", "--agent", "cobalt-harbor", "--timeout", "1s").stdout).Data, &d); err != nil {
		t.Fatal(err)
	}
	if !d.TimedOut || len(d.Delivered) != 0 {
		t.Fatalf("a wait after the hook: timed out %v, delivered %v", d.TimedOut, d.Delivered)
	}
}

// The idle session's waiter (`bb hook claude wake`, Claude Code's
// asyncRewake hook) killed with SIGKILL while it listens loses nothing:
// the mail sent after the kill stays undelivered, the session's next
// waiter wakes it with the mail (exit 2, the mail on stderr), recorded
// delivered once by a wake, and the woken turn's prompt hook does not
// repeat it.
func TestKilledWakeWaiterLosesNothing(t *testing.T) {
	b := newBoard(t)
	b.ok("agent", "register", "--name", "amber-otter", "--role", "worker")
	b.ok("agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	stop := `{"session_id":"s-wake","hook_event_name":"Stop"}`
	startWake := func() *waiter {
		w := &waiter{agent: "cobalt-harbor", done: make(chan error, 1)}
		w.cmd = exec.Command(bbPath(), "hook", "claude", "wake", "--agent", "cobalt-harbor")
		w.cmd.Dir, w.cmd.Env = b.dir, b.env
		w.cmd.Stdin = strings.NewReader(stop)
		w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.errb
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { w.done <- w.cmd.Wait() }()
		t.Cleanup(func() {
			_ = w.cmd.Process.Kill()
			<-w.done
			w.done <- nil
		})
		return w
	}
	armed := func() int64 { return b.count(`SELECT COUNT(*) FROM events WHERE type = 'session.waiting'`) }
	w := startWake()
	untilWatching(t, []*waiter{w})
	// Armed: its session.waiting event is written once it listens.
	for deadline := time.Now().Add(2 * time.Minute); armed() < 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the waiter armed no session.waiting within 2m\n%s", w.errb.String())
		}
	}
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w.done
	w.done <- nil
	id := b.sendID("amber-otter", "cobalt-harbor", "Review the parser")
	if got := b.count(`SELECT COUNT(*) FROM mail_deliveries WHERE message_id = ?`, id); got != 0 {
		t.Fatalf("the mail is recorded delivered %d times after its waiter was killed", got)
	}
	// The next turn's waiter wakes the session with it.
	next := startWake()
	select {
	case err := <-next.done:
		next.done <- err
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("the next waiter: %v, want exit status 2\n%s", err, next.errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the next waiter did not wake the session within 2m")
	}
	if !strings.Contains(next.errb.String(), "Review the parser") {
		t.Fatalf("the wake does not carry the mail:\n%s", next.errb.String())
	}
	rows := b.query(`SELECT agent, via FROM mail_deliveries WHERE message_id = ?`, id)
	if len(rows) != 1 || rows[0][0] != "cobalt-harbor" || rows[0][1] != "wake" {
		t.Fatalf("deliveries of the mail: %v, want one to cobalt-harbor by wake", rows)
	}
	if out := b.hook("cobalt-harbor", "UserPromptSubmit", `{"session_id":"s-wake","hook_event_name":"UserPromptSubmit","prompt":"go on"}`); strings.Contains(out, "Review the parser") {
		t.Fatalf("the woken turn's prompt hook repeats the mail:\n%s", out)
	}
}

// hook runs `bb hook claude <event> --agent agent` with payload on stdin
// and returns its stdout.
func (b *board) hook(agent, event, payload string) string {
	b.t.Helper()
	cmd := exec.Command(bbPath(), "hook", "claude", event, "--agent", agent)
	cmd.Dir, cmd.Env = b.dir, b.env
	cmd.Stdin = strings.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.t.Fatalf("bb hook claude %s: %v\n%s%s", event, err, out.String(), errb.String())
	}
	return out.String()
}

// A waiter whose client is gone ends instead of listening forever: one
// started as its client ends (OpenCode's plugin names its own process in
// BB_WAKE_CLIENT_PID, and the waiter's parent is no longer it) ends at
// once without arming; one whose parent ends while it listens (here the
// shell that started it) ends at its next look. (A waiter whose parent
// ends before it looks at all, without BB_WAKE_CLIENT_PID, cannot tell
// its new parent from a client that runs as process 1 in a container,
// and listens until its session's next waiter supersedes it.)
func TestWakeWaiterOfAnEndedClientEnds(t *testing.T) {
	b := newBoard(t)
	b.ok("agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	stop := `{"session_id":"s-gone","hook_event_name":"Stop"}`

	cmd := exec.Command(bbPath(), "hook", "opencode", "wake", "--agent", "cobalt-harbor")
	cmd.Dir, cmd.Env = b.dir, append(b.env[:len(b.env):len(b.env)], "BB_WAKE_CLIENT_PID=999999999")
	cmd.Stdin = strings.NewReader(stop)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("a waiter of an ended client: %v\n%s", err, errb.String())
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "the opencode process 999999999 has ended; no waiter") {
		t.Fatalf("a waiter of an ended client says\nstdout %q\nstderr %q", out.String(), errb.String())
	}
	if n := b.count(`SELECT COUNT(*) FROM events WHERE type = 'session.waiting'`); n != 0 {
		t.Fatalf("a waiter of an ended client armed %d session.waiting events", n)
	}

	if runtime.GOOS != "linux" {
		t.Skip("the waiter's process is watched through /proc")
	}
	payload := filepath.Join(t.TempDir(), "stop.json")
	if err := os.WriteFile(payload, []byte(stop), 0o600); err != nil {
		t.Fatal(err)
	}
	// The shell prints the waiter's pid and stays until its stdin closes.
	sh := exec.Command("sh", "-c", `"$0" hook claude wake --agent cobalt-harbor <"$1" >/dev/null 2>&1 & echo $!; read line; exit 0`, bbPath(), payload)
	sh.Dir, sh.Env = b.dir, b.env
	in, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(outPipe, &pid); err != nil {
		t.Fatalf("the shell printed no pid: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	for deadline := time.Now().Add(2 * time.Minute); b.count(`SELECT COUNT(*) FROM events WHERE type = 'session.waiting'`) < 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiter armed no session.waiting within 2m")
		}
	}
	_ = in.Close()
	if err := sh.Wait(); err != nil {
		t.Fatalf("the shell: %v", err)
	}
	for deadline := time.Now().Add(2 * time.Minute); running(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiter still runs 2m after the shell that started it ended")
		}
	}

	// A client that ends as it starts the waiter, Claude Code's way: its
	// hook shell names it in $PPID, and that shell is orphaned before the
	// waiter starts (here the stand-in client waits until its hook shell
	// has read $PPID, then ends; the hook shell waits for it to be gone),
	// so the waiter's way up reaches pid 1 or a subreaper, never the
	// client: it ends at once instead of waiting for good.
	armed := b.count(`SELECT COUNT(*) FROM events WHERE type = 'session.waiting'`)
	dir := t.TempDir()
	errFile, started := filepath.Join(dir, "stderr"), filepath.Join(dir, "started")
	client := exec.Command("sh", "-c", `sh -c 'echo $PPID >"$3"; while kill -0 $PPID 2>/dev/null; do sleep 0.05; done; BB_WAKE_CLIENT_PID=$PPID "$0" hook claude wake --agent cobalt-harbor <"$1" 2>"$2"' "$0" "$1" "$2" "$3" >/dev/null 2>&1 & echo $!; until [ -s "$3" ]; do sleep 0.05; done`,
		bbPath(), payload, errFile, started)
	client.Dir, client.Env = b.dir, b.env
	outb, err := client.Output()
	if err != nil {
		t.Fatalf("the stand-in client: %v", err)
	}
	hookShell, err := strconv.Atoi(strings.TrimSpace(string(outb)))
	if err != nil {
		t.Fatalf("the stand-in client printed %q, not its hook shell's pid", outb)
	}
	t.Cleanup(func() { _ = syscall.Kill(hookShell, syscall.SIGKILL) })
	for deadline := time.Now().Add(2 * time.Minute); running(hookShell); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiter of a client that ended before it started still runs after 2m")
		}
	}
	if msg, _ := os.ReadFile(errFile); !strings.Contains(string(msg), "has ended; no waiter") {
		t.Fatalf("the waiter of a client that ended before it started says %q", msg)
	}
	if n := b.count(`SELECT COUNT(*) FROM events WHERE type = 'session.waiting'`); n != armed {
		t.Fatalf("the waiter of a client that ended before it started armed %d session.waiting events", n-armed)
	}
}

// running reports whether process pid runs (a zombie has ended).
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
