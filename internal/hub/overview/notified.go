package overview

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// A notifier (bb notify, bb serve --webhook) tells each item once per
// channel — a webhook, the desktop — and records it here once delivered,
// so that a restarted notifier sends only what it never delivered.

// NotifiedKeep is how long a record of a delivered notice is kept: an
// item still waiting after that is told again once by a restarted
// notifier.
const NotifiedKeep = 30 * 24 * time.Hour

// Limits of one call, so a record stays small.
const (
	notifiedMaxIDs     = 1000
	notifiedMaxChannel = 128
	notifiedMaxID      = 300
)

// Notified returns those of ids (AttentionItem.ID, ":escalated" appended
// for an escalation) recorded as delivered to channel.
func (s *Service) Notified(ctx context.Context, channel string, ids []string) ([]string, error) {
	if err := checkNotified(ctx, channel, ids); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return []string{}, nil
	}
	out, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]string, error) { return tx.NotifiedOf(ctx, channel, ids) })
	if out == nil {
		out = []string{}
	}
	return out, err
}

// MarkNotified records ids as delivered to channel now, and forgets the
// channel's records older than NotifiedKeep.
func (s *Service) MarkNotified(ctx context.Context, channel string, ids []string) error {
	if err := checkNotified(ctx, channel, ids); err != nil {
		return err
	}
	now := s.kernel.Now()
	_, err := hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) (struct{}, error) {
		return struct{}{}, tx.MarkNotified(ctx, channel, ids, now, now.Add(-NotifiedKeep))
	})
	return err
}

// checkNotified is the rule of a notifier's record: a person's (or the
// operator's) credential, a named channel, bounded ids.
func checkNotified(ctx context.Context, channel string, ids []string) error {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOverseer, "recording what a notifier delivered")); err != nil {
		return err
	}
	if channel == "" || len(channel) > notifiedMaxChannel {
		return hub.FieldErr(hub.CodeInvalidArgs, "channel", "a notifier's channel is 1..%d characters", notifiedMaxChannel)
	}
	if len(ids) > notifiedMaxIDs {
		return hub.FieldErr(hub.CodeInvalidArgs, "ids", "at most %d items at once", notifiedMaxIDs)
	}
	for _, id := range ids {
		if id == "" || len(id) > notifiedMaxID {
			return hub.FieldErr(hub.CodeInvalidArgs, "ids", "an item id is 1..%d characters", notifiedMaxID)
		}
	}
	return nil
}
