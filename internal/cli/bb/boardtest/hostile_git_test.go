package boardtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileGits are the .git entries of a hostile checkout (issue 38 item
// 8): before, a symbolic link to /dev/zero made every bb command that
// finds its board from the working directory read without end, a FIFO
// blocked it in open, and a 100 MB .git file was read whole.
var hostileGits = []struct {
	name, want string
	make       func(p string) error
}{
	{"symlink to /dev/zero", "is a character device, not a regular file", func(p string) error { return os.Symlink("/dev/zero", p) }},
	{"FIFO", "is a FIFO, not a regular file", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
	{"100 MB file", "too large for a one-line git file", func(p string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.WriteString("gitdir: /nowhere\n"); err != nil {
			return err
		}
		return f.Truncate(100 << 20)
	}},
}

// ceiling is far above what a refusal takes (milliseconds): a command that
// reaches it read the hostile file instead of refusing it.
const ceiling = 8 * time.Second

// runBounded runs c, killed at ceiling, and returns its outputs and
// whether it finished by itself.
func runBounded(t *testing.T, c *exec.Cmd, stdin string) (string, string, error, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ceiling)
	defer cancel()
	k := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	k.Dir, k.Env = c.Dir, c.Env
	k.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	k.Stdout, k.Stderr = &out, &errb
	err := k.Run()
	return out.String(), errb.String(), err, ctx.Err() == nil
}

func TestHostileCheckoutIsRefused(t *testing.T) {
	board := initBoard(t)
	for _, h := range hostileGits {
		t.Run(h.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := h.make(filepath.Join(dir, ".git")); err != nil {
				t.Skipf("cannot make the .git: %v", err)
			}
			sub := filepath.Join(dir, "src")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			// A command that finds its board from the working directory.
			_, errOut, err, finished := runBounded(t, bbCmd(sub, nil, "status"), "")
			if !finished {
				t.Fatalf("bb status in a checkout whose .git is a %s did not answer within %s", h.name, ceiling)
			}
			if err == nil || !strings.Contains(errOut, h.want) || !strings.Contains(errOut, "--dir/BB_DIR") ||
				strings.Contains(errOut, "goroutine") || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("bb status: %v, stderr %q; want one line saying %q and the way out", err, errOut, h.want)
			}
			// A hook naming its board answers at once, whatever the
			// session's working directory holds.
			payload := `{"session_id":"s-hostile","cwd":"` + sub + `","hook_event_name":"UserPromptSubmit","prompt":"go on"}`
			out, errOut, err, finished := runBounded(t, bbCmd(sub, nil, "hook", "claude", "UserPromptSubmit", "--dir", board), payload)
			if !finished || err != nil {
				t.Fatalf("bb hook with --dir: finished %v, %v, stderr %q", finished, err, errOut)
			}
			if out != "" && !strings.HasPrefix(out, "{") {
				t.Errorf("bb hook stdout is not the client's JSON: %q", out)
			}
			if strings.Contains(errOut, "did not answer within") {
				t.Errorf("bb hook spent its budget: %q", errOut)
			}
		})
	}
}
