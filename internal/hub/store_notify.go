package hub

import (
	"context"
	"time"
)

// NotifyTx records what a notifier told each of its channels (overview's
// attention items, by id), so a restart does not tell them again.
type NotifyTx interface {
	// NotifiedOf returns those of ids recorded as told to channel.
	NotifiedOf(ctx context.Context, channel string, ids []string) ([]string, error)
	// MarkNotified records ids as told to channel at at (a record that
	// exists keeps its time) and forgets the channel's records older than
	// forgetBefore.
	MarkNotified(ctx context.Context, channel string, ids []string, at, forgetBefore time.Time) error
}
