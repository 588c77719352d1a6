package bb

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestPostDashFromATerminal: "-" reads the text from stdin only when stdin
// is not a terminal (the rule of bb push's document); on a terminal bb
// refuses rather than wait for typing, and nothing is posted.
func TestPostDashFromATerminal(t *testing.T) {
	dir := t.TempDir()
	run := func(terminal bool, stdin string, args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		e := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, StdinTerminal: terminal,
			Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }}
		code := Run(context.Background(), args, e)
		return code, out.String(), errb.String()
	}
	if code, _, errs := run(false, "", "init"); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	code, _, errs := run(true, "typed text\n", "--as", "alice-1", "post", "-")
	if code != ExitError || !strings.Contains(errs, `the <content> argument "-" reads it from stdin, but stdin is a terminal`) {
		t.Fatalf("post - on a terminal: exit %d, %q", code, errs)
	}
	if _, out, _ := run(false, "", "--json", "log"); !strings.Contains(out, `"data": []`) {
		t.Fatalf("something was posted: %s", out)
	}
	if code, _, errs := run(false, "piped text\n", "--as", "alice-1", "post", "-"); code != 0 {
		t.Fatalf("post - from a pipe: %s", errs)
	}
	if _, out, _ := run(false, "", "--json", "log"); !strings.Contains(out, `"content": "piped text"`) {
		t.Fatalf("log: %s", out)
	}
}
