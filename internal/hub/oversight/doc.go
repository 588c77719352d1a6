// Package oversight is what the people in charge do to the agents' work:
// a person (an agent registered with the role hub.RolePerson, or a
// credential with the overseer's rights) releases another agent's
// reservation, or hands it to another agent, once its holder is past the
// takeover threshold (hub.TakeoverAllowed). The dashboard, bb top and bb
// agent release --as-person use it.
//
// It is built over the kernel (*hub.Service), which keeps the
// reservations and the rules for overlapping scopes; internal/app
// composes it with the kernel's roles into the API the surfaces use.
package oversight

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the people's oversight over the kernel.
type Service struct {
	*hub.Service
}

// New builds the oversight over k.
func New(k *hub.Service) *Service { return &Service{Service: k} }

// API is the oversight's role.
type API interface {
	StepIn(ctx context.Context, in StepInInput) (StepInResult, error)
}

var _ API = (*Service)(nil)
