package kit

import (
	"context"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/cli/terminal"
)

// Env is everything a program (bb, vybe, agent-mail) takes from the
// outside world, so that a test can run it in-process with its own streams,
// environment and clock. The three programs share it, and so decide the
// same way which streams are terminals and whether stdin holds a document.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StdinTerminal, StdoutTerminal and StderrTerminal report whether the
	// stream is an interactive terminal (package terminal): only then may
	// a program prompt (stdin) or colour its output (stdout, stderr).
	StdinTerminal, StdoutTerminal, StderrTerminal bool
	// StdinClosed is true when the process was started with stdin closed,
	// and when an in-process caller gave none (Fill).
	StdinClosed bool
	Getenv      func(string) string
	Getwd       func() (string, error)
	// Exe is the absolute path of the running binary (written into the
	// clients' hook entries by bb install and vybe hook install).
	Exe string
	// Home is the user's home directory ($HOME when not given).
	Home string
	// Loc is the time zone local times are shown in.
	Loc *time.Location
	// ProcessExits is true when the process ends right after the command
	// (the real binaries). A program's SQLite connection is then left for
	// the OS to close: every transaction is already committed (durable in
	// the WAL), and skipping sqlite3_close skips its checkpoint, fsyncs and
	// the removal and re-creation of the -wal/-shm files by every call.
	ProcessExits bool
}

// OSEnv is the real process's environment.
func OSEnv() Env {
	exe, _ := os.Executable()
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	home, _ := os.UserHomeDir()
	_, err := os.Stdin.Stat()
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		StdinTerminal: terminal.Is(os.Stdin), StdoutTerminal: terminal.Is(os.Stdout), StderrTerminal: terminal.Is(os.Stderr),
		StdinClosed: err != nil, Getenv: os.Getenv, Getwd: os.Getwd, Exe: exe, Home: home, Loc: time.Local, ProcessExits: true}
}

// Fill fills in what an in-process caller (a test) may leave out: no
// environment variables, the process's working directory, an empty and
// closed stdin, output thrown away, $HOME as the home directory and the
// local time zone.
func (e *Env) Fill() {
	if e.Getenv == nil {
		e.Getenv = func(string) string { return "" }
	}
	if e.Getwd == nil {
		e.Getwd = os.Getwd
	}
	if e.Stdin == nil {
		e.Stdin, e.StdinClosed = strings.NewReader(""), true
	}
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Home == "" {
		e.Home = e.Getenv("HOME")
	}
	if e.Loc == nil {
		e.Loc = time.Local
	}
}

// StdinDocument reports whether stdin may hold a document for a command
// (a pipe, a file, /dev/null): it is open and not an interactive terminal,
// which is never read without a prompt.
func (e Env) StdinDocument() bool { return e.Stdin != nil && !e.StdinClosed && !e.StdinTerminal }

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
