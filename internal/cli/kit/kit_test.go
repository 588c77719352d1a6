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
		name     string
		given    bool
		value    string
		stdin    string
		terminal bool
		want     string
	}{
		{"flag wins over stdin", true, `{"a":1}`, `{"b":2}`, false, `{"a":1}`},
		{"stdin when piped", false, "", `{"b":2}`, false, `{"b":2}`},
		{"a terminal is never read", false, "", `{"b":2}`, true, ""},
		{"at most limit+1 bytes", false, "", strings.Repeat("x", 20), false, strings.Repeat("x", 11)},
	} {
		got, err := Document("json", c.given, c.value, strings.NewReader(c.stdin), c.terminal, 10)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	_, err := Document("json", false, "", iotest.ErrReader(errors.New("boom")), false, 10)
	if !hub.IsCode(err, hub.CodeIOReadFailed) || strings.Contains(hub.MessageOf(err), "boom") {
		t.Fatalf("a failing stdin: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	var getenv func(string) string
	var getwd func() (string, error)
	var stdin io.Reader
	Defaults(&getenv, &getwd, &stdin)
	if getenv("HOME") != "" || getwd == nil {
		t.Fatal("an unset environment must read as empty and the working directory be the process's")
	}
	if b, err := io.ReadAll(stdin); err != nil || len(b) != 0 {
		t.Fatalf("an unset stdin must be empty: %q, %v", b, err)
	}
	given := strings.NewReader("x")
	stdin = given
	Defaults(nil, nil, &stdin)
	if stdin != given {
		t.Fatal("a given stdin must be kept")
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
