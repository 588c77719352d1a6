package kit

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestDocument(t *testing.T) {
	for _, c := range []struct {
		name             string
		given            bool
		value            string
		stdin            string
		terminal, closed bool
		want             string
	}{
		{"flag wins over stdin", true, `{"a":1}`, `{"b":2}`, false, false, `{"a":1}`},
		{"stdin when piped", false, "", `{"b":2}`, false, false, `{"b":2}`},
		{"a terminal is never read", false, "", `{"b":2}`, true, false, ""},
		{"a closed stdin is never read", false, "", `{"b":2}`, false, true, ""},
		{"at most limit+1 bytes", false, "", strings.Repeat("x", 20), false, false, strings.Repeat("x", 11)},
	} {
		e := Env{Stdin: strings.NewReader(c.stdin), StdinTerminal: c.terminal, StdinClosed: c.closed}
		got, err := e.Document("json", c.given, c.value, 10)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	_, err := Env{Stdin: iotest.ErrReader(errors.New("boom"))}.Document("json", false, "", 10)
	if !hub.IsCode(err, hub.CodeIOReadFailed) || strings.Contains(hub.MessageOf(err), "boom") {
		t.Fatalf("a failing stdin: %v", err)
	}
}

func TestFill(t *testing.T) {
	var e Env
	e.Fill()
	if e.Getenv("HOME") != "" || e.Getwd == nil || e.Home != "" || e.Loc == nil || e.Stdout == nil || e.Stderr == nil {
		t.Fatalf("an unset environment must read as empty, the working directory be the process's, output be thrown away: %+v", e)
	}
	if b, err := io.ReadAll(e.Stdin); err != nil || len(b) != 0 || !e.StdinClosed || e.StdinDocument() {
		t.Fatalf("an unset stdin must be empty and closed: %q, %v, %+v", b, err, e)
	}
	given := strings.NewReader("x")
	e = Env{Stdin: given, Getenv: func(k string) string { return "/h/" + k }}
	e.Fill()
	if e.Stdin != given || e.StdinClosed || !e.StdinDocument() || e.Home != "/h/HOME" {
		t.Fatalf("a given stdin must be kept, and $HOME read from the given environment: %+v", e)
	}
}

func TestExecute(t *testing.T) {
	var out strings.Builder
	var ran string
	root := &cobra.Command{Use: "p", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(&cobra.Command{Use: "echo", RunE: func(cmd *cobra.Command, args []string) error {
		b, _ := io.ReadAll(cmd.InOrStdin())
		ran = cmd.Name()
		_, err := cmd.OutOrStdout().Write(b)
		return err
	}})
	cmd, err := Execute(context.Background(), root, []string{"echo"}, strings.NewReader("in"), &out, io.Discard)
	if err != nil || ran != "echo" || cmd.Name() != "echo" || out.String() != "in" {
		t.Fatalf("ran %q: %q, %v", ran, out.String(), err)
	}
	cmd, err = Execute(context.Background(), root, []string{"echo", "--nope"}, nil, &out, io.Discard)
	if err == nil || cmd.Name() != "echo" {
		t.Fatalf("a parse error must name the command: %v, %v", cmd, err)
	}
}
