package clienttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClaudeCodeWake runs the real Claude Code interactively, in a
// pseudo-terminal (tmux), against the model server, in a project wired by
// bb install claude: session A finishes a turn and sits idle; mail sent
// to A's agent from the shell wakes it with no keystroke (bb's
// asyncRewake waiter exits 2 with the mail on stderr), the woken turn's
// request carries the mail once under bb's rewakeMessage, A's next typed
// prompt does not repeat it, every further mail wakes A again, and when
// the session ends (/exit, or kill -9 of claude) no waiter is left.
// Facts used, checked against @anthropic-ai/claude-code 2.1.328 (its
// binary): an interactive start with ANTHROPIC_API_KEY asks whether to
// use the key unless ~/.claude.json's customApiKeyResponses.approved
// holds its last 20 characters (function VX/fvl); hasCompletedOnboarding
// and projects.<dir>.hasTrustDialogAccepted skip the first-run and trust
// dialogs, enabledMcpjsonServers approves the .mcp.json server.
func TestClaudeCodeWake(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "claude")
	tm := tmuxBin(t)
	p := newProject(t)
	p.run("bb", "install", "claude")
	key := "sk-ant-test-wake-0123456789abcdefghij"
	cfg, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark", "autoUpdates": false,
		"customApiKeyResponses": map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
		"projects": map[string]any{p.dir: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
			"enabledMcpjsonServers": []string{"blackboard"}}},
	})
	p.write(filepath.Join(p.home, ".claude.json"), string(cfg))
	p.run("bb", "agent", "register", "--name", "bob", "--role", "review")

	pl := newPlans()
	srv := newModelServer(t, pl.script)
	env := append(claudeEnv(srv), "ANTHROPIC_API_KEY="+key, "TERM=xterm-256color")

	a := startTmux(t, tm, p, env, bin, "--permission-mode", "acceptEdits")
	waiting := func(n int) {
		t.Helper()
		waitUntil(t, a.screen, 60*time.Second, fmt.Sprintf("%d session.waiting events", n), func() bool { return countWaiting(t, p) >= n })
	}
	// The SessionStart waiter is armed once the session has started.
	waiting(1)
	a.typeLine("[session A] [step hello] go on")
	waitUntil(t, a.screen, 60*time.Second, "A's first turn", func() bool { return len(stepRequests(srv, "A", "hello")) > 0 })
	idA := identityOf(t, srv, "A")
	// The Stop hook's waiter takes over from the SessionStart one.
	armed := 2
	waiting(armed)

	// Mail wakes the idle session, several times: the latency from the
	// send's return to the woken request.
	var lat, bbPart []time.Duration
	const wakes = 4
	for i := range wakes {
		marker := fmt.Sprintf("WAKE-%d-5e1", i)
		woke, d := wakeBy(t, p, srv, a.screen, idA, marker)
		lat = append(lat, d)
		if at, ok := lastWake(t, p); !ok {
			t.Errorf("the board recorded no delivery by a wake for %s", marker)
		} else {
			bbPart = append(bbPart, at.Sub(woke.At.Add(-d)))
		}
		if !strings.Contains(woke.Body, "[Blackboard] This idle session was woken by the board:") {
			t.Errorf("the woken request lacks bb's rewakeMessage")
		}
		if n := strings.Count(woke.Body, marker); n != 1 {
			t.Errorf("%s is %d times in the woken request, want once", marker, n)
		}
		if i == 0 {
			j := strings.Index(woke.Body, "[Blackboard] This idle")
			t.Logf("the woken request's reminder: %s", woke.Body[max(j-200, 0):min(len(woke.Body), j+600)])
			dump(t, "claude-wake", woke.Body)
		}
		// The woken turn ends with Stop, which re-arms the waiter.
		armed++
		waiting(armed)
	}
	t.Logf("wake latency, bb agent send's return to the woken request, over %d wakes: %v; of which send to the waiter's delivery: %v", wakes, lat, bbPart)
	slices.Sort(lat)
	t.Logf("wake latency p50 %v, max %v", lat[len(lat)/2], lat[len(lat)-1])

	// A's next typed prompt does not bring the mail again.
	a.typeLine("[session A] [step again] go on")
	waitUntil(t, a.screen, 60*time.Second, "A's typed turn", func() bool { return len(stepRequests(srv, "A", "again")) > 0 })
	reqs := stepRequests(srv, "A", "again")
	for i := range wakes {
		marker := fmt.Sprintf("WAKE-%d-5e1", i)
		if n := strings.Count(reqs[0].Body, marker); n != 1 {
			t.Errorf("%s is %d times in A's conversation after its next prompt, want once", marker, n)
			dump(t, "claude-wake-again", reqs[0].Body)
		}
	}
	armed++
	waiting(armed)

	// /exit ends the session: no waiter is left.
	a.typeLine("/exit")
	exited := time.Now()
	waitUntil(t, a.screen, 15*time.Second, "no bb hook claude wake process after /exit", func() bool { return len(wakeProcs(p)) == 0 })
	t.Logf("no waiter %v after /exit", time.Since(exited).Round(10*time.Millisecond))

	// kill -9 of claude: its waiter sees its client gone and exits.
	b := startTmux(t, tm, p, env, bin, "--permission-mode", "acceptEdits")
	// Its SessionStart waiter runs (A's is gone: none ran before it).
	waitUntil(t, b.screen, 60*time.Second, "waiter of the new session", func() bool { return len(wakeProcs(p)) > 0 })
	pid := b.panePID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	waitUntil(t, b.screen, 15*time.Second, "no bb hook claude wake process after kill -9 of claude", func() bool { return len(wakeProcs(p)) == 0 })
	t.Logf("the waiter of a killed claude exited %v after the kill", time.Since(killed).Round(10*time.Millisecond))
}

// TestOpenCodeWake runs OpenCode's server (as TestOpenCode does) in a
// project wired by bb install opencode: once session A's turn is over,
// bb's plugin runs `bb hook opencode wake` for it; mail sent to A's agent
// makes the waiter print the items, which the plugin sends into the idle
// session (client.session.promptAsync), so A's model receives them with
// no prompt from anyone; the next prompt does not repeat them; a second
// mail wakes A again; when OpenCode ends, its waiter ends too.
func TestOpenCodeWake(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "opencode")
	p := newProject(t)
	markOpenCodeSDK(t, p)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	offlineOpenCode(p, srv)
	p.run("bb", "install", "opencode")
	p.run("bb", "agent", "register", "--name", "bob", "--role", "review")
	oc := startOpenCodeServer(t, p, bin)
	show := oc.stderr.String

	sessionA := oc.newSession(t, "A")
	oc.prompt(t, sessionA, "[session A] [step hello] go on")
	idA := identityOf(t, srv, "A")
	waitUntil(t, show, time.Minute, "waiter for A", func() bool { return countWaiting(t, p) >= 1 })

	var lat []time.Duration
	const wakes = 2
	for i := range wakes {
		marker := fmt.Sprintf("OCWAKE-%d-77a", i)
		woke, d := wakeBy(t, p, srv, show, idA, marker)
		lat = append(lat, d)
		if n := countInChat(t, woke.Body, marker); n != 1 {
			t.Errorf("%s is in %d messages of the woken request, want one", marker, n)
			dump(t, "opencode-wake", woke.Body)
		}
		// The woken turn's idle arms the next waiter.
		waitUntil(t, show, time.Minute, "waiter for A after the wake", func() bool { return countWaiting(t, p) >= i+2 })
	}
	t.Logf("OpenCode wake latency, bb agent send's return to the woken request: %v", lat)

	oc.prompt(t, sessionA, "[session A] [step again] go on")
	reqs := stepRequests(srv, "A", "again")
	if len(reqs) == 0 {
		t.Fatal("step again: no request")
	}
	for i := range wakes {
		marker := fmt.Sprintf("OCWAKE-%d-77a", i)
		if n := countInChat(t, reqs[0].Body, marker); n != 1 {
			t.Errorf("%s is in %d messages of A's conversation after its next prompt, want one", marker, n)
			dump(t, "opencode-wake-again", reqs[0].Body)
		}
	}

	waitUntil(t, show, time.Minute, "waiter for A after its prompt", func() bool { return len(wakeProcs(p)) == 1 })
	oc.stop(t)
	waitUntil(t, show, 15*time.Second, "no bb hook opencode wake process after OpenCode ended", func() bool { return len(wakeProcs(p)) == 0 })
}

// wakeBound is how long a wake may take, from bb agent send's return to
// the woken session's request.
const wakeBound = 10 * time.Second

// wakeBy sends a HANDOFF holding marker from bob to agent, and waits for
// the model request it brings (the woken session's); it returns that
// request and how long after bb agent send returned it arrived (at most
// wakeBound).
func wakeBy(t *testing.T, p *project, srv *modelServer, show func() string, agent, marker string) (modelRequest, time.Duration) {
	t.Helper()
	seen := len(srv.Requests())
	if out, errOut, err := p.exec(nil, "bb", "agent", "send", "--from", "bob", "--to", agent, "--bead", "bb-1", "--category", "HANDOFF",
		"--subject", "take over bb-1", "--body", marker+" please take bb-1"); err != nil {
		t.Fatalf("bb agent send: %v\n%s%s", err, out, errOut)
	}
	sent := time.Now()
	var woke modelRequest
	waitUntil(t, show, 3*wakeBound, "wake by "+marker, func() bool {
		for _, r := range srv.Requests()[seen:] {
			if strings.Contains(r.Body, marker) {
				woke = r
				return true
			}
		}
		return false
	})
	// The goal is 2 s (p99; the tests log the numbers); the bound
	// here leaves room for a loaded machine.
	d := woke.At.Sub(sent)
	if d > wakeBound {
		t.Errorf("%s woke %s %v after the send, more than %v", marker, agent, d, wakeBound)
	}
	return woke, d
}

// tmuxBin is tmux, or skips (fails under CI).
func tmuxBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is missing under CI")
		}
		t.Skip("tmux not installed (the interactive client runs in a tmux pseudo-terminal)")
	}
	return bin
}

// tmuxPane is a client running in a pane of a private tmux server.
type tmuxPane struct {
	t    *testing.T
	bin  string
	sock string
}

// startTmux runs argv in the project, in a new tmux server of its own,
// with exactly the project's environment and env.
func startTmux(t *testing.T, bin string, p *project, env []string, argv ...string) *tmuxPane {
	t.Helper()
	// A socket path must be short (sun_path).
	dir, err := os.MkdirTemp("", "bbtm")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tmuxPane{t: t, bin: bin, sock: filepath.Join(dir, "s")}
	t.Cleanup(func() {
		// Kill the client and wait for it to go, so it writes nothing into
		// the project's HOME while the test's directories are removed.
		if out, err := exec.Command(bin, "-S", tp.sock, "display-message", "-p", "#{pane_pid}").Output(); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
				for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}
		_ = exec.Command(bin, "-S", tp.sock, "kill-server").Run()
		_ = os.RemoveAll(dir)
	})
	args := []string{"-S", tp.sock, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50", "-c", p.dir, "env", "-i"}
	args = append(append(append(args, p.env...), env...), argv...)
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	return tp
}

func (tp *tmuxPane) tmux(args ...string) string {
	tp.t.Helper()
	out, err := exec.Command(tp.bin, append([]string{"-S", tp.sock}, args...)...).CombinedOutput()
	if err != nil {
		tp.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// typeLine types text into the pane and presses Enter.
func (tp *tmuxPane) typeLine(text string) {
	tp.t.Helper()
	tp.tmux("send-keys", "-l", text)
	// The prompt box takes a moment to echo a paste; Enter is its own key.
	time.Sleep(300 * time.Millisecond)
	tp.tmux("send-keys", "Enter")
}

// screen is what the pane shows.
func (tp *tmuxPane) screen() string {
	out, _ := exec.Command(tp.bin, "-S", tp.sock, "capture-pane", "-p").CombinedOutput()
	return string(out)
}

// panePID is the process the pane runs (env execs the client).
func (tp *tmuxPane) panePID() int {
	tp.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(tp.tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		tp.t.Fatal(err)
	}
	return pid
}

// waitUntil polls cond until it holds or the time runs out (then fails,
// showing what show returns: the client's screen or log).
func waitUntil(t *testing.T, show func() string, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v; the client shows:\n%s", what, limit, show())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// boardEvent is an event of bb events --json.
type boardEvent struct {
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	CreatedAt time.Time       `json:"created_at"`
}

// boardEvents are the board's newest events of type.
func boardEvents(t *testing.T, p *project, typ string) []boardEvent {
	t.Helper()
	out := p.run("bb", "events", "--json", "--limit", "1000")
	var env struct {
		Data []boardEvent `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("bb events --json: %v\n%s", err, out)
	}
	var evs []boardEvent
	for _, e := range env.Data {
		if e.Type == typ {
			evs = append(evs, e)
		}
	}
	return evs
}

// countWaiting is the number of session.waiting events on the board (one
// per waiter armed).
func countWaiting(t *testing.T, p *project) int {
	return len(boardEvents(t, p, "session.waiting"))
}

// lastWake is when the board last recorded a delivery by a wake.
func lastWake(t *testing.T, p *project) (time.Time, bool) {
	t.Helper()
	evs := boardEvents(t, p, "mail.delivered")
	for i := len(evs) - 1; i >= 0; i-- {
		var pl struct {
			Via string `json:"via"`
		}
		if json.Unmarshal(evs[i].Payload, &pl) == nil && pl.Via == "wake" {
			return evs[i].CreatedAt, true
		}
	}
	return time.Time{}, false
}

// runsIn reports whether process pid's working directory is dir or
// under it: a hook entry in a committed file names no directory (it runs
// where the client runs it).
func runsIn(pid int, dir string) bool {
	cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator))
}

// wakeProcs are the pids of this project's bb hook wake processes (by
// their --dir, or where they run).
func wakeProcs(p *project) []int {
	return bbProcs(func(pid int, args []string) bool {
		return len(args) >= 4 && args[1] == "hook" && args[3] == "wake" && (slices.Contains(args, p.dir) || runsIn(pid, p.dir))
	})
}

// bbProcs are the pids of the bb processes whose arguments match.
func bbProcs(match func(pid int, args []string) bool) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 1 && filepath.Base(args[0]) == "bb" && match(pid, args) {
			out = append(out, pid)
		}
	}
	return out
}
