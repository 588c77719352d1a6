// Package hooktest runs the real bb binary as each client's hook: the
// documented hook JSON on stdin, the documented reply on stdout.
package hooktest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb"}, BinDir: &binDir})
}

func bbPath() string { return filepath.Join(binDir, "bb") }

// project is a git repository with a board and src/a.go committed.
type project struct {
	dir string
	env []string
}

func newProject(tb testing.TB) *project {
	tb.Helper()
	dir := tb.TempDir()
	p := &project{dir: dir, env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, f := range []string{"src/a.go", "src/b.go", "README"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package x\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	p.must(tb, "git", "init", "-q")
	p.must(tb, "git", "add", ".")
	p.must(tb, "git", "commit", "-qm", "init")
	p.bb(tb, nil, "init")
	return p
}

func (p *project) must(tb testing.TB, name string, args ...string) string {
	tb.Helper()
	c := exec.Command(name, args...)
	c.Dir, c.Env = p.dir, p.env
	out, err := c.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// git runs git in the project with extra environment (the guard's hooks
// run bb from PATH), returning combined output.
func (p *project) git(env []string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = p.dir
	c.Env = append(append(append([]string{}, p.env...), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	out, err := c.CombinedOutput()
	return string(out), err
}

// bb runs a bb command in the project and returns stdout (fails on error).
func (p *project) bb(tb testing.TB, env []string, args ...string) string {
	tb.Helper()
	out, errOut, code := p.run(env, "", args...)
	if code != 0 {
		tb.Fatalf("bb %v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

func (p *project) run(env []string, stdin string, args ...string) (string, string, int) {
	c := exec.Command(bbPath(), args...)
	c.Dir = p.dir
	c.Env = append(append([]string{}, p.env...), env...)
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return out.String(), errb.String(), code
}

// hook feeds payload to `bb hook <client> <event> --dir <project>`, run
// from / as clients may do, and checks the rules every hook keeps: exit 0,
// stdout empty or one JSON object.
func (p *project) hook(tb testing.TB, env []string, client, event string, payload any) (map[string]any, string) {
	tb.Helper()
	var in []byte
	switch v := payload.(type) {
	case string:
		in = []byte(v)
	default:
		in, _ = json.Marshal(v)
	}
	c := exec.Command(bbPath(), "hook", client, event, "--dir", p.dir)
	c.Dir = "/"
	c.Env = append(append([]string{}, p.env...), env...)
	c.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		tb.Fatalf("bb hook %s %s: %v\nstderr: %s", client, event, err, errb.String())
	}
	if out.Len() == 0 {
		return nil, errb.String()
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		tb.Fatalf("bb hook %s %s: stdout is not one JSON object: %q", client, event, out.String())
	}
	return m, errb.String()
}

// jq reads a dotted path from decoded JSON ("" when absent).
func jq(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any, path string) string {
	s, _ := jq(v, path).(string)
	return s
}

// statusJSON is `bb agent status --json` data.
func (p *project) status(tb testing.TB) map[string]any {
	tb.Helper()
	var env map[string]any
	if err := json.Unmarshal([]byte(p.bb(tb, nil, "agent", "status", "--json")), &env); err != nil {
		tb.Fatal(err)
	}
	return env["data"].(map[string]any)
}

// holders returns scope → agent of the active reservations.
func (p *project) holders(tb testing.TB) map[string]string {
	out := map[string]string{}
	for _, r := range p.status(tb)["reservations"].([]any) {
		out[str(r, "scope")] = str(r, "agent_id")
	}
	return out
}

// agentOf reads the agent id a SessionStart brief names.
func agentOf(tb testing.TB, brief string) string {
	tb.Helper()
	const k = "You are agent "
	i := strings.Index(brief, k)
	if i < 0 {
		tb.Fatalf("brief names no agent: %q", brief)
	}
	rest := brief[i+len(k):]
	return rest[:strings.IndexByte(rest, ' ')]
}
