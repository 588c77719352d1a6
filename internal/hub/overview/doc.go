// Package overview is the board's read models for people: the dashboard's
// sessions grouped by what they need (input, active, stale, idle, done)
// and one conversation at a time, in seed 001 §6.3's labels; what needs a
// person's attention; the coordination status of a work item or agent
// (bb agent status); and the board at one glance (bb summary).
//
// It is built over the kernel (*hub.Service) and only reads, but for the
// record of what a notifier delivered (notified.go); internal/app
// composes it with the core into the API the surfaces use.
package overview

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// Service is the dashboard's read model over the kernel.
type Service struct {
	kernel *hub.Service
	// hooks knows what a hook would deliver to an agent, so the list of
	// what needs a person names the idle sessions with mail unheard.
	hooks *hooks.Service
}

// New builds the read model over k.
func New(k *hub.Service) *Service { return &Service{kernel: k, hooks: hooks.New(k)} }

// API is the dashboard's role: sessions grouped by what they need, and one
// conversation.
type API interface {
	Sessions(ctx context.Context, viewer string) (Sessions, error)
	Conversation(ctx context.Context, key, viewer string) ([]TimelineItem, error)
	// Attention is what waits for a person, on the whole board or about
	// one work item or agent (attention.go).
	Attention(ctx context.Context, f AttentionFilter) (Attention, error)
	// CoordinationStatus is the coordination state of a work item or an
	// agent: reservations, mail waiting for an ack, the protocol timeline
	// (status.go).
	CoordinationStatus(ctx context.Context, bead, agent string) (CoordStatus, error)
	// Summary is the board at one glance (status.go).
	Summary(ctx context.Context) (Summary, error)
	// Notified and MarkNotified are a notifier's record of the items it
	// delivered to each channel (notified.go).
	Notified(ctx context.Context, channel string, ids []string) ([]string, error)
	MarkNotified(ctx context.Context, channel string, ids []string) error
}

var _ API = (*Service)(nil)
