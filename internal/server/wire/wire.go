// Package wire holds the HTTP header names of bb serve's API that both
// sides write: the server (internal/server, internal/mcp's streamable
// HTTP) and its clients (internal/server/remote, internal/loadgen). It
// imports nothing, so a client does not link the server to name a header.
package wire

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
