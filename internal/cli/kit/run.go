package kit

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/cli/terminal"
)

// Std is the process's standard streams and what each is, decided once for
// the three programs at start-up.
type Std struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StdinTerminal, StdoutTerminal and StderrTerminal report whether the
	// stream is an interactive terminal (see package terminal).
	StdinTerminal, StdoutTerminal, StderrTerminal bool
	// StdinOpen is false when the process was started with stdin closed.
	StdinOpen bool
}

// OSStd is the real process's streams.
func OSStd() Std {
	_, err := os.Stdin.Stat()
	return Std{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		StdinTerminal: terminal.Is(os.Stdin), StdoutTerminal: terminal.Is(os.Stdout), StderrTerminal: terminal.Is(os.Stderr),
		StdinOpen: err == nil}
}

// Defaults fills in what an in-process caller (a test) may leave out of a
// program's environment: no environment variables, the process's working
// directory, and an empty stdin. A nil pointer is a part the program does
// not take.
func Defaults(getenv *func(string) string, getwd *func() (string, error), stdin *io.Reader) {
	if getenv != nil && *getenv == nil {
		*getenv = func(string) string { return "" }
	}
	if getwd != nil && *getwd == nil {
		*getwd = os.Getwd
	}
	if stdin != nil && *stdin == nil {
		*stdin = strings.NewReader("")
	}
}

// Interruptible runs run with a context that an interrupt (Ctrl-C) or
// SIGTERM cancels, and returns its exit status.
func Interruptible(run func(context.Context) int) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx)
}

// Execute runs the command line args on root with the given streams (a nil
// stdin leaves the process's) and returns the command that ran, or that
// failed to parse, with its error.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, error) {
	root.SetArgs(args)
	if stdin != nil {
		root.SetIn(stdin)
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.ExecuteContextC(ctx)
}
