// Package wire holds the HTTP header names of bb serve's API that both
// sides write: the server (internal/server, internal/mcp's streamable
// HTTP) and its clients (internal/server/remote, internal/loadgen), and
// what the server hands internal/mcp's handler with a request. It
// imports only the standard library, so a client does not link the server
// to name a header.
package wire

import (
	"context"
	"time"
)

const (
	// AgentHeader names the acting agent of a request (like bb --as); on
	// MCP's streamable HTTP it pins a session's identity when it starts.
	AgentHeader = "X-BB-Agent"
	// RepositoryHeader carries the caller's repository fingerprint, so the
	// server refuses a checkout of another repository than the board's.
	RepositoryHeader = "X-BB-Repository"
	// IdempotencyAgentHeader and IdempotencyCommandHeader name the agent
	// and the command an idempotent RPC call is made for.
	IdempotencyAgentHeader   = "X-BB-Idempotency-Agent"
	IdempotencyCommandHeader = "X-BB-Idempotency-Command"
)

// Waiter is an argument of a call that may block on the server for up to
// CallWait (leases.AcquireInput with --wait): the server lifts its write
// and read timeouts for that long, and the remote client waits that long
// beyond its own timeout, so one request stays open for the whole wait.
type Waiter interface {
	CallWait() time.Duration
}

type stoppingKey struct{}

// WithStopping marks a request's context with stop, which ends when the
// server serving it starts to stop: a handler that blocks for long (an MCP
// tool call that waits) ends its wait then, instead of holding the stop
// until the drain limit.
func WithStopping(ctx, stop context.Context) context.Context {
	return context.WithValue(ctx, stoppingKey{}, stop)
}

// Stopping is the stop signal WithStopping put in ctx (nil: none).
func Stopping(ctx context.Context) context.Context {
	stop, _ := ctx.Value(stoppingKey{}).(context.Context)
	return stop
}
