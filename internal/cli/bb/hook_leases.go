package bb

import (
	"context"
	"fmt"
	"os"
	"strings"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
)

// sessionLeases acquires, at a session's start, the leases the board
// declares for every session (bb config set leases.session "port:web
// name:db"). It fails open: a lease that cannot be granted is a note on
// stderr, never a session that does not start.
func (a *app) sessionLeases(ctx context.Context, svc core.API, agent, session string, w hub.Where) ([]leases.Lease, string) {
	host := w.Host
	if host == "" {
		host, _ = os.Hostname()
	}
	held, err := svc.AcquireSessionLeases(ctx, leases.SessionInput{Agent: agent, Session: session, Worktree: w.Worktree, Host: host})
	if err != nil {
		return nil, "this session's leases (leases.session) were not granted: " + hookErrText(err)
	}
	return held, ""
}

// sessionEnd releases, as a client session ends (its SessionEnd hook),
// the leases the session was given at its start. Nothing else is done: the
// client is closing and gives its end hooks little time (Claude Code: 1.5
// s), so the session is not mapped anew (one the board never saw holds
// nothing) and a session without leases costs one read. It prints nothing
// on stdout: the client reads no reply.
func (a *app) sessionEnd(ctx context.Context, svc core.API, client, session, agent string) (hookReply, error) {
	if _, err := svc.ReleaseSessionLeases(ctx, leases.SessionEndInput{Agent: agent, Client: client, Session: session}); err != nil {
		return hookReply{note: hub.TextOf("this session's leases were not released (they end when their agent is evicted or their time runs out): " + hookErrText(err))}, nil
	}
	return hookReply{}, nil
}

// maxBriefLeases bounds the board's locks the session brief names.
const maxBriefLeases = 5

// leasesBrief is the brief's part about leases: the session's own (and
// the environment variables its shell has them in), then the locks and
// slots others hold, with their queues. "" when there are none.
func leasesBrief(ctx context.Context, svc core.API, agent string, held []leases.Lease) string {
	var b strings.Builder
	if env := leases.EnvLines(held); len(env) > 0 {
		fmt.Fprintf(&b, "Your leases for this session (your shell has them as environment variables; bb env --leases prints them): %s.\n", strings.Join(env, ", "))
	}
	all, err := svc.ListLeases(ctx, leases.ListFilter{})
	if err != nil {
		return b.String()
	}
	n := 0
	for _, s := range all {
		if s.Kind != leases.KindLock || len(s.Holders) == 0 || n == maxBriefLeases {
			continue
		}
		n++
		who := make([]string, len(s.Holders))
		for i, h := range s.Holders {
			who[i] = h.Agent
			if h.Agent == agent {
				who[i] = "you"
			}
		}
		line := fmt.Sprintf("The lease %s is held by %s", s.Name, strings.Join(who, " and "))
		if s.Capacity > 1 {
			line = fmt.Sprintf("The lease %s (%d slots, %d free) is held by %s", s.Name, s.Capacity, s.Free, strings.Join(who, " and "))
		}
		switch w := len(s.Waiters); {
		case w == 1:
			line += " and one is waiting"
		case w > 1:
			line += fmt.Sprintf(" and %d are waiting", w)
		}
		b.WriteString(line + " (bb lease acquire " + s.Name + " --wait 10m queues you).\n")
	}
	return b.String()
}
