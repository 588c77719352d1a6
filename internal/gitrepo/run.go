package gitrepo

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
)

// RunError is a git command that failed: the command, git's own message
// (its standard error, trimmed) and the process error it wraps, so that
// errors.Is(err, exec.ErrNotFound) tells that git is not installed.
type RunError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *RunError) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

func (e *RunError) Unwrap() error { return e.Err }

// Run runs git with args in dir, stdin its input (nil: none), and returns
// its standard output. It is the one place bb starts git: the rest of
// this package reads the repository's files instead, which costs no
// process.
func Run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &RunError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return out, nil
}
