// Package hooks is the hook application: what the coding-agent clients'
// hooks ask of the board. Each session of a client (Claude Code, Codex CLI,
// Gemini CLI…) works as its own agent (session.go), receives a brief and
// new mail once (delivery.go), is stopped before editing a file another
// active agent holds and is reminded at the end of a turn (edit.go).
//
// It is built over the kernel (*hub.Service: the unit of work with
// idempotency and check-in, events, identity, reservations) and never
// touches a store itself; internal/app composes it with the core into the
// API the surfaces use.
package hooks

import "github.com/blackboard-hub/bb/internal/hub"

// Service is the hook application over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the hook application over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }
