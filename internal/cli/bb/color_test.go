package bb

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestColorOnATerminal runs bb in-process with stdout and stderr reported
// as terminals (a test cannot give the real binary one): colour is on by
// default there, and off with NO_COLOR (non-empty, https://no-color.org/),
// TERM=dumb, --color never or --json. NO_COLOR set to "" does not count.
func TestColorOnATerminal(t *testing.T) {
	dir := t.TempDir()
	run := func(env map[string]string, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		e := Env{Stdout: &out, Stderr: &errb, StdoutTerminal: true, StderrTerminal: true,
			Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil }}
		Run(context.Background(), args, e)
		return out.String(), errb.String()
	}
	none := map[string]string{}
	if _, errs := run(none, "init"); errs != "" {
		t.Fatalf("init: %s", errs)
	}
	run(none, "agent", "register", "--name", "alice-1", "--role", "dev")

	const active = "\x1b[32mactive\x1b[0m"
	const errWord = "\x1b[31mError\x1b[0m"
	for _, c := range []struct {
		name  string
		env   map[string]string
		args  []string
		color bool
	}{
		{"terminal", none, nil, true},
		{"NO_COLOR empty", map[string]string{"NO_COLOR": ""}, nil, true},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, nil, false},
		{"TERM dumb", map[string]string{"TERM": "dumb"}, nil, false},
		{"never", none, []string{"--color", "never"}, false},
		{"NO_COLOR and always", map[string]string{"NO_COLOR": "1"}, []string{"--color", "always"}, true},
	} {
		out, _ := run(c.env, append(c.args, "agent", "list")...)
		if got := strings.Contains(out, active); got != c.color {
			t.Errorf("%s: agent list coloured = %v, want %v:\n%q", c.name, got, c.color, out)
		}
		if !c.color && strings.Contains(out, "\x1b") {
			t.Errorf("%s: escape code without colour:\n%q", c.name, out)
		}
		_, errs := run(c.env, append(c.args, "agent", "show", "--agent", "nobody-1")...)
		if got := strings.HasPrefix(errs, errWord+" [AGENT_NOT_FOUND]"); got != c.color {
			t.Errorf("%s: error coloured = %v, want %v:\n%q", c.name, got, c.color, errs)
		}
	}
	if out, _ := run(none, "--json", "agent", "list"); strings.Contains(out, "\x1b") {
		t.Errorf("--json on a terminal has an escape code:\n%s", out)
	}
	// Colour on stdout only when stdout is the terminal.
	var out bytes.Buffer
	Run(context.Background(), []string{"agent", "list"}, Env{Stdout: &out, Stderr: &bytes.Buffer{}, StderrTerminal: true,
		Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil }})
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("stdout is a pipe but coloured:\n%q", out.String())
	}
}
