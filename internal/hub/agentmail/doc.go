// Package agentmail holds the rules of Agent Mail v1 (the agent-mail
// drop-in's contract): identities of the form project:name, message ids,
// time-to-live, the order of a read, who may ack, the status counts and the
// cleanup of expired mail. Its messages are the board's messages: every
// other surface sees them.
//
// It is built over the kernel (*hub.Service) and never touches a store
// itself; internal/app composes it with the core into the API the surfaces
// use.
package agentmail

import "github.com/blackboard-hub/bb/internal/hub"

// Service holds the Agent Mail v1 use cases over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the Agent Mail service over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }
