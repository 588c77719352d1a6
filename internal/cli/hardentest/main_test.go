package hardentest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/testkit"
)

// binDir holds bb, vybe and agent-mail, built once for this package.
var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb", "vybe", "agent-mail"}, BinDir: &binDir})
}

// result is one finished process.
type result struct {
	stdout, stderr string
	code           int
}

// runIn runs a binary (bb, vybe or agent-mail) in dir with a clean
// environment plus env.
func runIn(t testing.TB, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	// A command that should end but hangs (a server that started when it
	// should have refused) fails the test instead of blocking it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, filepath.Join(binDir, prog), args...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TZ=UTC"}, env...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", prog, args, err)
	}
	return result{out.String(), errb.String(), code}
}

// must runs a command that has to succeed.
func must(t testing.TB, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	r := runIn(t, dir, env, prog, args...)
	if r.code != 0 {
		t.Fatalf("%s %q: exit %d\nstdout: %s\nstderr: %s", prog, args, r.code, r.stdout, r.stderr)
	}
	return r
}

// newBoard is a fresh project directory with `bb init` done.
func newBoard(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	must(t, dir, nil, "bb", "init")
	return dir
}
