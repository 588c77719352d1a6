// Package tuitest drives bb top in a real pseudo-terminal: a tmux session
// of 80×24 runs the built bb, the test reads the rendered screen
// (tmux capture-pane) and types keys (tmux send-keys), while other bb
// processes change the board.
package tuitest

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb"}, BinDir: &binDir})
}

// now is the board clock of every process of the test: bob-1 reserved
// at 10:00 and was last seen then, so at 10:31 he is offline and a person
// may step in on his reservations.
const (
	then = "2026-11-26T10:00:00Z"
	now  = "2026-11-26T10:31:00Z"
)

// term is one bb top running in a tmux pane.
type term struct {
	t    *testing.T
	sock string
	dir  string
}

// requireTmux skips without tmux (fails under CI=true, where .ci/run
// installs it).
func requireTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is required under CI=true: .ci/run installs it (apt-get install -y tmux)")
		}
		t.Skip("tmux not installed (apt-get install -y tmux): skipping the pseudo-terminal tests of bb top")
	}
}

// bb runs bb in dir at the board clock and returns its stdout.
func bb(t *testing.T, dir, at string, args ...string) string {
	t.Helper()
	c := exec.Command(filepath.Join(binDir, "bb"), args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "BB_NOW="+at, "BB_AGENT_ID=", "BB_SERVER=", "HOME="+dir)
	out, err := c.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("bb %s: %v\n%s%s", strings.Join(args, " "), err, out, msg)
	}
	return string(out)
}

// board makes a project where dana (a person) has a HANDOFF from bob-1
// and a BLOCKED from carol waiting, and bob-1 holds two files.
func board(t *testing.T) string {
	dir := t.TempDir()
	bb(t, dir, then, "init")
	bb(t, dir, then, "agent", "register", "--name", "dana", "--role", "human")
	bb(t, dir, then, "agent", "register", "--name", "bob-1", "--role", "worker")
	bb(t, dir, then, "agent", "register", "--name", "carol", "--role", "worker")
	bb(t, dir, then, "agent", "reserve", "--agent", "bob-1", "--scope", "src/a.go", "--bead", "bb-1")
	bb(t, dir, then, "agent", "reserve", "--agent", "bob-1", "--scope", "src/b.go", "--bead", "bb-1")
	bb(t, dir, then, "agent", "send", "--from", "bob-1", "--to", "dana", "--bead", "bb-1", "--category", "HANDOFF", "--subject", "parser is yours", "--body", "all yours")
	bb(t, dir, now, "agent", "send", "--from", "carol", "--to", "dana", "--bead", "bb-2", "--category", "BLOCKED", "--subject", "need the schema", "--body", "which version?")
	return dir
}

// start runs `bb --as dana top` in an 80×24 tmux pane with env; the pane
// prints "EXITED <status>" when bb ends.
func start(t *testing.T, dir string, env ...string) *term {
	return startIn(t, dir, dir, env...)
}

// startIn is start with bb top run from cwd.
func startIn(t *testing.T, dir, cwd string, env ...string) *term {
	requireTmux(t)
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := &term{t: t, sock: sock, dir: dir}
	vars := append([]string{"BB_NOW=" + now, "BB_AGENT_ID=", "BB_SERVER=", "TERM=xterm-256color", "HOME=" + dir}, env...)
	shell := fmt.Sprintf("cd %s && env %s %s --as dana top; echo EXITED $?; sleep 60", cwd, strings.Join(vars, " "), filepath.Join(binDir, "bb"))
	tm.tmux("-f", "/dev/null", "new-session", "-d", "-s", "top", "-x", "80", "-y", "24", shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return tm
}

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the pane as shown (with -e, with its escape sequences).
func (tm *term) screen(escapes bool) string {
	if escapes {
		return tm.tmux("capture-pane", "-p", "-e", "-t", "top")
	}
	return tm.tmux("capture-pane", "-p", "-t", "top")
}

// waitFor waits until the screen matches re and returns how long it took.
func (tm *term) waitFor(re string) time.Duration {
	tm.t.Helper()
	rx := regexp.MustCompile(re)
	start := time.Now()
	for deadline := start.Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if rx.MatchString(tm.screen(false)) {
			return time.Since(start)
		}
	}
	tm.t.Fatalf("the screen never showed %q:\n%s", re, tm.screen(false))
	return 0
}

// keys types each key on its own (bubbletea reads letters typed together
// as one string).
func (tm *term) keys(keys ...string) {
	for _, k := range keys {
		tm.tmux("send-keys", "-t", "top", k)
		time.Sleep(60 * time.Millisecond)
	}
}

// text types literal text.
func (tm *term) text(s string) {
	tm.tmux("send-keys", "-t", "top", "-l", s)
	time.Sleep(60 * time.Millisecond)
}

// jsonData runs bb --json and returns its data.
func jsonData(t *testing.T, dir string, args ...string) any {
	t.Helper()
	var env struct {
		OK   bool
		Data any
	}
	if err := json.Unmarshal([]byte(bb(t, dir, now, append([]string{"--json"}, args...)...)), &env); err != nil || !env.OK {
		t.Fatalf("bb --json %v: %v", args, err)
	}
	return env.Data
}

func inboxBodies(t *testing.T, dir, agent string) string {
	var bodies []string
	for _, m := range jsonData(t, dir, "agent", "inbox", "--agent", agent).([]any) {
		bodies = append(bodies, m.(map[string]any)["body"].(string))
	}
	return strings.Join(bodies, "|")
}

func reservationsOf(t *testing.T, dir, agent string) []string {
	var out []string
	for _, r := range jsonData(t, dir, "agent", "status").(map[string]any)["reservations"].([]any) {
		if r := r.(map[string]any); r["agent_id"] == agent {
			out = append(out, r["scope"].(string))
		}
	}
	return out
}

// The screen shows the agents and what needs dana, picks up a post made
// by another process, and every key action changes the board.
func TestTopShowsAndActs(t *testing.T) {
	dir := board(t)
	tm := start(t, dir)
	tm.waitFor(`Needs attention \(2\)`)
	scr := tm.screen(false)
	for _, want := range []string{"bb top", "as dana", "BLOCKED   carol → dana       now", "HANDOFF   bob-1 → dana       ESCALATED 31m bb-1  parser is yours", "Agents (3)", "offline  bob-1", "src/a.go", "Reservations (2)", "ESCALATED 31m"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	for i, line := range strings.Split(strings.TrimRight(scr, "\n"), "\n") {
		if w := len([]rune(line)); w > 80 || i >= 24 {
			t.Errorf("line %d (%d cells) does not fit 80×24: %q", i, w, line)
		}
	}

	// Another process posts: the screen shows it without a key press.
	posted := time.Now()
	bb(t, dir, now, "--as", "carol", "post", "hello from another process")
	took := tm.waitFor(`hello from another process`)
	t.Logf("a post by another process was on screen %v after the post returned (%v after it started)", took, time.Since(posted))

	// Another process takes a port lease: its Leases section and carol's
	// row show it.
	bb(t, dir, now, "--as", "carol", "lease", "acquire", "--port", "web")
	tm.waitFor(`Leases \(1\)`)
	tm.waitFor(`carol +idle +— · leases port:web=\d+`)

	// The BLOCKED row says what carol asks of dana, and its urgency.
	if scr := tm.screen(false); !strings.Contains(scr, "need the schema — Answer") {
		t.Errorf("the BLOCKED row lacks what is asked:\n%s", scr)
	}
	// r is the core's one answer (as the dashboard's Answer): a DECISION
	// to carol on its thread, and the blocker accepted (it waited on dana).
	tm.keys("r")
	tm.waitFor(`Answer carol`)
	tm.text("use schema v2")
	tm.keys("Enter")
	tm.waitFor(`answered carol and accepted the BLOCKED`)
	tm.waitFor(`Needs attention \(1\)`)
	if got := inboxBodies(t, dir, "carol"); !strings.Contains(got, "use schema v2") {
		t.Errorf("carol's inbox after r: %q", got)
	}
	if out := bb(t, dir, now, "agent", "inbox", "--agent", "carol"); !strings.Contains(out, "DECISION") {
		t.Errorf("the answer to a blocker is a DECISION: %s", out)
	}

	// a accepts the HANDOFF: it leaves Needs attention.
	tm.keys("a")
	tm.waitFor(`accepted the HANDOFF from bob-1`)
	tm.waitFor(`nothing waits for a person`)
	st := jsonData(t, dir, "agent", "status").(map[string]any)["summary"].(map[string]any)["messages"].(map[string]any)
	if st["acked"].(float64) != 2 {
		t.Errorf("after r and a: %v messages acked, want 2", st["acked"])
	}

	// f filters by agent (typed), m messages the selected agent.
	tm.keys("f")
	tm.text("carol")
	tm.keys("Enter")
	tm.waitFor(`only carol`)
	tm.waitFor(`Agents \(1\)`)
	tm.keys("Tab", "m")
	tm.waitFor(`Message carol`)
	tm.text("bb-2 are you unblocked?")
	tm.keys("Enter")
	tm.waitFor(`sent to carol about bb-2`)
	if got := inboxBodies(t, dir, "carol"); !strings.Contains(got, "are you unblocked?") {
		t.Errorf("carol's inbox after m: %q", got)
	}
	tm.keys("Escape")
	tm.waitFor(`Agents \(3\)`)

	// x releases bob-1's first reservation, g hands the other to carol.
	tm.keys("Tab", "x")
	tm.waitFor(`released src/a.go of bob-1`)
	tm.waitFor(`Reservations \(1\)`)
	tm.keys("g")
	tm.waitFor(`Reassign src/b.go from bob-1 to`)
	tm.text("carol")
	tm.keys("Enter")
	tm.waitFor(`reassigned src/b.go from bob-1 to carol`)
	if got := reservationsOf(t, dir, "bob-1"); len(got) != 0 {
		t.Errorf("bob-1 still holds %v", got)
	}
	if got := reservationsOf(t, dir, "carol"); len(got) != 1 || got[0] != "src/b.go" {
		t.Errorf("carol holds %v, want [src/b.go]", got)
	}

	// / searches the board; esc goes back to the timeline.
	tm.keys("/")
	tm.text("schema")
	tm.keys("Enter")
	tm.waitFor(`Search: schema`)
	tm.waitFor(`need the schema`)
	tm.keys("Escape")
	tm.waitFor(`Timeline`)

	// ? shows every key, within 80×24.
	tm.keys("?")
	tm.waitFor(`g +reassign`)
	tm.waitFor(`q   quit`)
	tm.keys("?")

	// q quits with status 0.
	tm.keys("q")
	tm.waitFor(`EXITED 0`)
}

// sgrColor matches an SGR sequence that sets a colour (30–37, 38;…, 40–47,
// 48;…, 90–97, 100–107).
var sgrColor = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]`)

// NO_COLOR draws the view without any colour, in bold and reverse video;
// without it the view has colour.
func TestTopNoColor(t *testing.T) {
	dir := board(t)
	plain := start(t, dir, "NO_COLOR=1")
	plain.waitFor(`Needs attention \(2\)`)
	if scr := plain.screen(true); sgrColor.MatchString(scr) {
		t.Errorf("NO_COLOR: the screen has colour codes: %q", sgrColor.FindString(scr))
	} else if !strings.Contains(scr, "\x1b[7m") && !strings.Contains(scr, ";7m") {
		t.Errorf("NO_COLOR: the selection is not in reverse video:\n%q", scr)
	}
	plain.keys("q")
	plain.waitFor(`EXITED 0`)

	color := start(t, dir)
	color.waitFor(`Needs attention \(2\)`)
	if scr := color.screen(true); !sgrColor.MatchString(scr) {
		t.Errorf("without NO_COLOR the screen has no colour:\n%q", scr)
	}
}

// Through bb serve ($BB_SERVER) the view is the same and follows the
// server's timeline: a post made on the server's board shows up.
func TestTopRemote(t *testing.T) {
	requireTmux(t)
	dir := board(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(filepath.Join(binDir, "bb"), "serve", "--addr", addr)
	srv.Dir = dir
	srv.Env = append(os.Environ(), "BB_NOW="+now, "BB_AGENT_ID=", "BB_SERVER=", "BB_TOKEN=", "HOME="+dir)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("bb serve did not listen")
		}
	}
	elsewhere := t.TempDir() // no board here: everything comes from the server
	tm := startIn(t, dir, elsewhere, "BB_SERVER=http://"+addr)
	tm.waitFor(`Needs attention \(2\)`)
	tm.waitFor(`offline  bob-1`)
	bb(t, dir, now, "--as", "carol", "post", "hello over the server")
	took := tm.waitFor(`hello over the server`)
	t.Logf("over bb serve, a post was on screen %v after it returned", took)
	tm.keys("q")
	tm.waitFor(`EXITED 0`)
}
