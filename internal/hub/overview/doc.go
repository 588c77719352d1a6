// Package overview is the read model of the dashboard (seed 001 §6.3): the
// board's work grouped into sessions by what they need (input, active,
// stale, idle, done) and one conversation at a time, in the seed's labels.
//
// It is built over the kernel (*hub.Service) and only reads, but for the
// record of what a notifier delivered (notified.go); internal/app
// composes it with the core into the API the surfaces use.
package overview

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the dashboard's read model over the kernel.
type Service struct {
	*hub.Service
}

// New builds the read model over k.
func New(k *hub.Service) *Service { return &Service{Service: k} }

// API is the dashboard's role: sessions grouped by what they need, and one
// conversation.
type API interface {
	Sessions(ctx context.Context, viewer string) (Sessions, error)
	Conversation(ctx context.Context, key, viewer string) ([]TimelineItem, error)
	// Attention is what waits for a person (attention.go).
	Attention(ctx context.Context) (Attention, error)
	// Notified and MarkNotified are a notifier's record of the items it
	// delivered to each channel (notified.go).
	Notified(ctx context.Context, channel string, ids []string) ([]string, error)
	MarkNotified(ctx context.Context, channel string, ids []string) error
}

var _ API = (*Service)(nil)
