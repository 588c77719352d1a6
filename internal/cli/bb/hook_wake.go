package bb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/procid"
)

// The idle session's waiter: `bb hook <client> wake`, which the client
// runs in the background at the start of a session and at the end of
// every turn (bb install wires it where the client can be woken). It
// waits on the board's own signal until something arrives for the
// session's agent, then hands the items to the client and ends:
//   - Claude Code (an "asyncRewake" hook): the items on stderr and exit
//     status 2, which wakes the model even while the session is idle;
//   - OpenCode (bb's plugin): {"text": …} on stdout, which the plugin sends
//     into the idle session as its next prompt.
// It ends without a word for the model (exit 0, a reason on stderr for
// the client's log) when a newer waiter of the same session takes over,
// when the client's process is gone (checked every wakeAliveCheck, so a
// waiter left by a killed client exits on its own), and on any error: a
// missing board, a stopped server, a revoked credential. The items it
// hands over are recorded as delivered by a wake, once: the woken turn's
// prompt hook does not repeat them.

// wakeAliveCheck is how often the waiter looks whether its client still
// runs (one read of the process table entry, no board read).
const wakeAliveCheck = 2 * time.Second

// headlessClaude reports whether Claude Code's CLAUDE_CODE_ENTRYPOINT,
// which it exports to its hooks, names a headless run: "sdk-cli" for
// claude -p, "sdk-ts"/"sdk-py" for the Agent SDK (2.1.328's own test for
// an SDK entrypoint; the interactive client is "cli"). Such a run does not
// exit while an asyncRewake hook still runs: with a waiter, claude -p
// never ended (TestClaudeCode hung until killed), so none is started.
func headlessClaude(entrypoint string) bool {
	switch strings.TrimSpace(entrypoint) {
	case "sdk-cli", "sdk-ts", "sdk-py":
		return true
	}
	return false
}

// exitStatus ends a command with this exit status, having printed what it
// had to.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func (a *app) runWake(ctx context.Context, client, agent string) error {
	data, err := io.ReadAll(io.LimitReader(a.env.Stdin, hookio.MaxPayload+1))
	if err != nil || len(data) > hookio.MaxPayload {
		a.errorf("bb hook wake: cannot read the hook input; no waiter\n")
		return nil
	}
	in, ok := hookio.Parse(client, data)
	if !ok {
		a.errorf("bb hook wake: the hook input is not a JSON object; no waiter\n")
		return nil
	}
	if agent == "" {
		agent = strings.TrimSpace(a.env.Getenv("BB_AGENT_ID"))
	}
	if client == "claude" && headlessClaude(a.env.Getenv("CLAUDE_CODE_ENTRYPOINT")) {
		a.errorf("bb hook wake: a headless Claude Code run (claude -p or the Agent SDK) waits for its background hooks before it exits; no waiter\n")
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The client is gone when its process is, or when the walk up from
	// this waiter no longer reaches it (the client, or the shell it ran
	// the hook with, ended and its children were handed to another
	// parent). A client that ends as it starts a waiter leaves the shell
	// between them orphaned before the waiter looked, so the walk reaches
	// another process from the start: the hook command names the client
	// in BB_WAKE_CLIENT_PID (OpenCode's plugin its own process.pid,
	// Claude Code's entry the shell's $PPID), and a waiter whose way up
	// does not pass it has lost its client. A pid of 1 or less names no
	// one there (a Cygwin or MSYS shell reports 1 for a parent of
	// Windows' own), and is ignored.
	ppid := os.Getppid()
	path := procid.ClientPath()
	pid := path[len(path)-1]
	if want, err := strconv.ParseInt(strings.TrimSpace(a.env.Getenv("BB_WAKE_CLIENT_PID")), 10, 64); err == nil && want > 1 && !slices.Contains(path, want) {
		a.errorf("bb hook wake: the %s process %d has ended; no waiter\n", client, want)
		return nil
	}
	gone := make(chan struct{})
	go func() {
		t := time.NewTicker(wakeAliveCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if !procid.Alive(pid) || os.Getppid() != ppid || procid.Client() != pid {
					close(gone)
					cancel()
					return
				}
			}
		}
	}()
	svc, err := a.service(ctx)
	if err != nil {
		a.errorf("bb hook wake: %s; this session will not be woken until its next turn\n", hookErrText(err))
		return nil
	}
	sin := hooks.SessionInput{Client: client, SessionID: in.SessionID, ClientPID: pid, Explicit: agent}
	for {
		res, err := svc.Wait(ctx, hooks.WaitInput{Session: &sin, Timeout: hooks.MaxWait, Via: hooks.ViaWake}, nil)
		select {
		case <-gone:
			a.errorf("bb hook wake: the %s process %d has ended; the waiter stops\n", client, pid)
			return nil
		default:
		}
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			a.errorf("bb hook wake: %s; this session will not be woken until its next turn\n", hookErrText(err))
			return nil
		}
		switch {
		case res.Superseded:
			return nil // a newer waiter of this session listens now
		case res.TimedOut:
			continue
		}
		text := hookWords(deliveryText(res.Delivery))
		if text == "" {
			continue
		}
		return a.wakeReply(client, text)
	}
}

// wakeReply hands what arrived to the client, in its way of being woken.
func (a *app) wakeReply(client, text string) error {
	switch client {
	case "opencode":
		b, _ := json.Marshal(map[string]string{"text": text})
		_, _ = a.env.Stdout.Write(append(b, '\n'))
		return nil
	default: // Claude Code's asyncRewake: exit 2 wakes the model with stderr
		_, _ = io.WriteString(a.env.Stderr, text)
		return exitStatus(2)
	}
}
