package bb

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every entry of topCommands builds the command it is named after, and
// the whole tree holds each top-level command exactly once.
func TestTopCommandsNamesMatch(t *testing.T) {
	a := newApp(Env{})
	var names []string
	for _, c := range a.topCommands() {
		if got := c.build().Name(); got != c.name {
			t.Errorf("topCommands entry %q builds the command %q", c.name, got)
		}
		if slices.Contains(names, c.name) {
			t.Errorf("topCommands lists %q twice", c.name)
		}
		names = append(names, c.name)
	}
	// cobra's own help and completion come on top of topCommands.
	if n := len(a.rootCmd().Commands()); n != len(names)+2 {
		t.Errorf("the whole tree has %d commands, topCommands %d (+ help and completion)", n, len(names))
	}
}

// Every command's --help (and man page) shows an example, hidden ones
// included: a command written without one needs its entry in examples (examples.go).
func TestEveryCommandHasAnExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no example: give it an Example or add it to examples in examples.go", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newApp(Env{}).rootCmd())
	// The tree a single call builds fills them in too.
	for _, c := range newApp(Env{}).topCommands() {
		cmd, _, err := newApp(Env{}).commandTree([]string{c.name, "--help"}).Find([]string{c.name})
		if err != nil || cmd.Example == "" {
			t.Errorf("bb %s --help: no example (%v)", c.name, err)
		}
	}
}

// resolve is the command path cobra runs for args in tree.
func resolve(t testing.TB, a *app, full bool, args []string) string {
	root := a.commandTree(args)
	if full {
		root = a.rootCmd()
	}
	cmd, _, err := root.Find(args)
	if err != nil {
		return "error"
	}
	return cmd.CommandPath()
}

// FuzzCommandTree: for any command line, the tree a call builds resolves
// to the same command as the whole tree (or the whole tree is built).
func FuzzCommandTree(f *testing.F) {
	for _, s := range [][]string{
		{"post", "hello"}, {"--as", "alice", "post", "hi"}, {"--as", "post", "log"}, {"--as=alice", "log"},
		{"--json", "-q", "agent", "send", "--to", "b"}, {"hook", "claude", "PreToolUse", "--dir", "/x"},
		{"--version"}, {"help", "post"}, {"--", "post"}, {"agent", "inbox", "--help"}, {"nosuch"}, {},
		{"--dir", "/p", "--database-url", "postgres://x", "--request-id", "r1", "task", "create", "t"},
	} {
		var in []byte
		for _, a := range s {
			in = append(append(in, a...), 0)
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		args := slices.Collect(splitNUL(in))
		a := newApp(Env{})
		if lazy, full := resolve(t, a, false, args), resolve(t, a, true, args); lazy != full {
			t.Fatalf("args %q: the built tree resolves to %q, the whole tree to %q", args, lazy, full)
		}
	})
}

func splitNUL(b []byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(b) > 0 {
			i := slices.Index(b, 0)
			if i < 0 {
				i = len(b)
			}
			if !yield(string(b[:i])) || i == len(b) {
				return
			}
			b = b[i+1:]
		}
	}
}

// The commands a bb serve runs over POST /api/v1/command come from the
// command tree: the board's commands, never those that manage the
// installation, start servers or read the local machine.
func TestRemoteCommandsComeFromTheTree(t *testing.T) {
	got := newApp(Env{}).remoteCommands()
	for _, name := range []string{"status", "post", "log", "agent", "task", "memory", "search", "events"} {
		if !slices.Contains(got, name) {
			t.Errorf("%s does not run over HTTP: %v", name, got)
		}
	}
	for _, name := range []string{"init", "destroy", "install", "uninstall", "migrate", "serve", "mcp", "hook", "guard", "env", "demo"} {
		if slices.Contains(got, name) {
			t.Errorf("%s runs over HTTP: %v", name, got)
		}
	}
}
