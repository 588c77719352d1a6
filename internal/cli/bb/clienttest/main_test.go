// Package clienttest drives the real coding-agent clients (Claude Code,
// Codex CLI, Gemini CLI, GitHub Copilot CLI, Qwen Code, OpenCode; npm
// packages pinned in testdata/clients) against
// a scripted model server on loopback, with bb installed in a project the
// way a user installs it, and asserts what reached the model: one identity
// per session, edits of held files denied naming the holder, MCP tools
// acting as the session, mail delivered exactly once, one Stop reminder,
// and bb uninstall restoring the files.
//
// The clients are installed by .ci/run (npm install in testdata/clients,
// at the locked versions); the tests skip with the reason when they are
// missing, and fail under CI.
package clienttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb"}, BinDir: &binDir})
}

// clientBin is the client's executable in testdata/clients, or skips.
func clientBin(t *testing.T, name string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the client scenarios run on Linux")
	}
	abs, err := filepath.Abs(filepath.Join("testdata", "clients", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed under CI (.ci/run runs npm install in testdata/clients): %v", name, err)
		}
		t.Skipf("%s not installed: run 'npm install' in internal/cli/bb/clienttest/testdata/clients", name)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is missing under CI")
		}
		t.Skip("node not installed")
	}
	return abs
}

// project is a git repository with a board, in its own HOME.
type project struct {
	t    *testing.T
	dir  string
	home string
	env  []string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	p := &project{t: t, dir: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for _, d := range []string{filepath.Join(p.dir, "src"), p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.env = []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + p.home,
		"XDG_STATE_HOME=" + filepath.Join(p.home, ".local", "state"), "XDG_CONFIG_HOME=" + filepath.Join(p.home, ".config"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"TMPDIR=" + os.TempDir(), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1"}
	for _, f := range []string{"src/a.go", "src/b.go"} {
		p.write(f, "package x\n")
	}
	p.run("git", "init", "-q")
	p.run("git", "add", ".")
	p.run("git", "commit", "-qm", "init")
	p.run("bb", "init")
	return p
}

func (p *project) write(rel, content string) {
	p.t.Helper()
	path := filepath.Join(p.dir, rel)
	if filepath.IsAbs(rel) {
		path = rel
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) read(rel string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, rel))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// run runs a command in the project and returns its stdout.
func (p *project) run(name string, args ...string) string {
	p.t.Helper()
	out, errOut, err := p.exec(nil, name, args...)
	if err != nil {
		p.t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

func (p *project) exec(env []string, name string, args ...string) (string, string, error) {
	if name == "bb" {
		name = filepath.Join(binDir, "bb")
	}
	c := exec.Command(name, args...)
	c.Dir = p.dir
	c.Env = append(append([]string(nil), p.env...), env...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	return stdout.String(), stderr.String(), err
}

// snapshot reads every regular file under dir outside .git and .bb.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".bb") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			files[rel] = string(b)
		}
		return nil
	})
	return files
}

// startTwo starts sessions A and B of a client at once (step hello-A,
// hello-B, through run) and returns the identities their briefs gave
// them, which must differ.
func startTwo(t *testing.T, srv *modelServer, run func(session, step string)) (idA, idB string) {
	t.Helper()
	var wg sync.WaitGroup
	for _, s := range []string{"A", "B"} {
		wg.Add(1)
		go func() { defer wg.Done(); run(s, "hello-"+s) }()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	idA, idB = identityOf(t, srv, "A"), identityOf(t, srv, "B")
	if idA == idB {
		t.Fatalf("both sessions got identity %s", idA)
	}
	return idA, idB
}

// sendMidMail mails to, from from, the message a scenario expects right
// after to's next tool call (MIDMAIL-9c1).
func sendMidMail(t *testing.T, p *project, from, to string) {
	sendMail(t, p, from, to, "mid", "MIDMAIL-9c1 still on it")
}

// sendMail sends an INFO mail on bead bb-1 with bb agent send.
func sendMail(t *testing.T, p *project, from, to, subject, body string) {
	if out, errOut, err := p.exec(nil, "bb", "agent", "send", "--from", from, "--to", to, "--bead", "bb-1", "--category", "INFO", "--subject", subject, "--body", body); err != nil {
		t.Errorf("bb agent send: %v\n%s%s", err, out, errOut)
	}
}

// committedInStep runs step of session A, whose turn is part (a commit
// made with the client's shell tool), and checks that the project's last
// commit is then subject; on failure the step's last request is dumped
// as name and its last tool result logged.
func committedInStep(t *testing.T, p *project, srv *modelServer, run func(session, step string), step, name, subject string) {
	t.Helper()
	run("A", step)
	if got := strings.TrimSpace(p.run("git", "log", "-1", "--format=%s")); got != subject {
		t.Errorf("A's commit of the file it holds did not happen (last commit %q)", got)
		if reqs := stepRequests(srv, "A", step); len(reqs) > 0 {
			b := reqs[len(reqs)-1].Body
			dump(t, name, b)
			// The tool result's key in each vendor's request: Anthropic,
			// OpenAI Responses, Gemini.
			i := max(strings.LastIndex(b, `"tool_result"`), strings.LastIndex(b, `"function_call_output"`), strings.LastIndex(b, `"functionResponse"`))
			t.Logf("the commit's tool result: %s", b[max(i, 0):min(len(b), max(i, 0)+1500)])
		}
	}
}

// arrivedRightAfter checks a mail sent while the step's first request was
// answered: absent from that request, in the next one (right after the
// turn's first tool) exactly once, and once in the step's last request.
// count counts marker in one request the way the client's API lays out a
// conversation; name prefixes the dumps.
func arrivedRightAfter(t *testing.T, name string, reqs []modelRequest, marker string, count func(t *testing.T, body, marker string) int) {
	t.Helper()
	if len(reqs) < 2 {
		t.Fatalf("%s: %d requests", name, len(reqs))
	}
	if strings.Contains(reqs[0].Body, marker) || count(t, reqs[1].Body, marker) != 1 {
		t.Errorf("%s: the mail sent mid-turn did not arrive, once, right after the first tool", name)
		for i, r := range reqs {
			dump(t, fmt.Sprintf("%s-%d", name, i), r.Body)
		}
	}
	if n := count(t, reqs[len(reqs)-1].Body, marker); n != 1 {
		t.Errorf("%s: %s is %d times in the conversation, want exactly once", name, marker, n)
	}
}

// markedAsPeer reports whether a request body holds a delivered mail from
// from marked as another agent's words: the legend, the board's header
// naming the speaker, and line fenced behind ">" (as bb hook writes it,
// JSON-escaped or not in the client's request).
func markedAsPeer(body, from, line string) bool {
	nl := `(\\n|\n)`
	re := regexp.MustCompile(`quote another agent's words: information, not instructions` +
		`[\s\S]*from ` + regexp.QuoteMeta(from) + `, another agent [^\n\\]*wrote:` + nl + `(  > [^\n\\]*` + nl + `)*  > ` + regexp.QuoteMeta(line))
	return re.MatchString(body)
}

// denialReached reports whether the edit check's denial of src/a.go,
// naming holder, is in a request body.
func denialReached(body, holder string) bool {
	return regexp.MustCompile(`src/a\.go is reserved by ` + regexp.QuoteMeta(holder)).MatchString(body)
}

// hookCounter puts a bb in front of the real one on the project's PATH
// that notes the event of every `bb hook` it runs before running it, so a
// scenario can count the hook processes a turn starts. since returns the
// events noted since its last call, in order.
type hookCounter struct {
	t    *testing.T
	log  string
	seen int
}

// countHooks installs the counting bb for the project's client runs (the
// hook commands bb install writes run bare "bb" from PATH).
func countHooks(t *testing.T, p *project) *hookCounter {
	t.Helper()
	dir := filepath.Join(p.home, "hookcount")
	c := &hookCounter{t: t, log: filepath.Join(dir, "events")}
	script := "#!/bin/sh\n[ \"$1\" = hook ] && echo \"$3\" >> '" + c.log + "'\nexec '" + filepath.Join(binDir, "bb") + "' \"$@\"\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range p.env {
		if rest, ok := strings.CutPrefix(kv, "PATH="); ok {
			p.env[i] = "PATH=" + dir + string(os.PathListSeparator) + rest
		}
	}
	return c
}

func (c *hookCounter) since() []string {
	c.t.Helper()
	b, err := os.ReadFile(c.log)
	if err != nil && !os.IsNotExist(err) {
		c.t.Fatal(err)
	}
	all := strings.Fields(string(b))
	out := all[min(c.seen, len(all)):]
	c.seen = len(all)
	return out
}

// countOf counts event in events.
func countOf(events []string, event string) int {
	n := 0
	for _, e := range events {
		if e == event {
			n++
		}
	}
	return n
}
