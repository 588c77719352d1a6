package boardtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevNullIsNotATerminal: with stdin on /dev/null (a character device,
// but no terminal) bb never prompts: bb install does not ask about the git
// guard and bb clear deletes nothing without --confirm. (exec.Cmd with a
// nil Stdin opens os.DevNull.)
func TestDevNullIsNotATerminal(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is missing under CI")
		}
		t.Skip("git not installed")
	}
	dir := initBoard(t)
	if out, err := exec.Command(git, "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := func(env []string, args ...string) (string, string) {
		t.Helper()
		c := bbCmd(dir, append(env, "XDG_STATE_HOME="+filepath.Join(dir, "state")), args...)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("bb %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, errOut := run(nil, "install", "claude", "--absolute")
	if strings.Contains(errOut, "[y/N]") || strings.Contains(out, "[y/N]") {
		t.Fatalf("bb install asked with stdin on /dev/null:\n%s%s", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("bb install installed the git guard without being asked")
	}
	run([]string{"BB_NOW=2020-01-01T00:00:00Z"}, "--as", "a-1", "post", "hello")
	out, errOut = run(nil, "clear", "--messages-before", "1d")
	if strings.Contains(out, "Proceed?") || !strings.Contains(out, "Nothing deleted: run again with --confirm.") {
		t.Fatalf("bb clear with stdin on /dev/null:\n%s%s", out, errOut)
	}
}
