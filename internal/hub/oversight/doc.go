// Package oversight is what the people in charge do to the agents' work:
// a person (an agent registered with the role hub.RolePerson, or a
// credential with the overseer's rights) releases another agent's
// reservation, or hands it to another agent, once its holder is past the
// takeover threshold (hub.TakeoverAllowed); and a person answers what
// needs them, nudges the agent it waits on, or steps in on mail between
// two agents (answer.go), or hands every reservation such an item
// concerns to its other agent in one transaction (reassign.go). The
// dashboard, bb top, bb needs and bb agent release --as-person use it.
//
// It is built over the kernel (*hub.Service), which keeps the
// reservations and the rules for overlapping scopes, and reads what needs
// a person through the read model (internal/hub/overview, which never
// imports oversight): the item a choice is made on; internal/app
// composes it with the kernel's roles into the API the surfaces use.
package oversight

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// Service is the people's oversight over the kernel.
type Service struct {
	kernel *hub.Service
	// overview is the read model of what needs a person: the items whose
	// choices (overview.AttentionItem.Choices) the operations here make.
	overview *overview.Service
}

// New builds the oversight over k.
func New(k *hub.Service) *Service { return &Service{kernel: k, overview: overview.New(k)} }

// API is the oversight's role.
type API interface {
	StepIn(ctx context.Context, in StepInInput) (StepInResult, error)
	// ReassignItem hands every reservation an item between two agents
	// concerns to its other agent, all or none (reassign.go).
	ReassignItem(ctx context.Context, in ReassignItemInput) (ReassignItemResult, error)
	// Answer and Nudge are a person acting on an item that needs them
	// (answer.go): the one meaning of "answer" on every surface.
	Answer(ctx context.Context, in AnswerInput) (AnswerResult, error)
	Nudge(ctx context.Context, in NudgeInput) (hub.MailItem, error)
	// EnsurePerson registers a person the first time they act from a
	// person's view (the dashboard, bb needs).
	EnsurePerson(ctx context.Context, name string) error
}

// EnsurePerson registers name as a person (role hub.RolePerson) when the
// board does not know it yet: a person acting for the first time from the
// dashboard or `bb needs`. A name already registered is left as it is,
// whatever its role (the core's checks then decide what it may do).
func (s *Service) EnsurePerson(ctx context.Context, name string) error {
	_, _, err := s.kernel.RegisterAgent(ctx, hub.RegisterInput{ID: name, Role: hub.RolePerson})
	if err != nil && !hub.IsCode(err, hub.CodeDuplicateAgentID) {
		return err
	}
	return nil
}

var _ API = (*Service)(nil)
