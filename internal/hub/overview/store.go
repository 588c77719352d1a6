package overview

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// Tx is the read model's persistence port: the hook application's (the
// kernel's transaction and the hook sessions, for the sessions left
// unheard) and the record of what a notifier told each of its channels
// (attention items, by id), so a restart does not tell them again.
// The SQL store implements it (internal/store/sqlstore proves it at
// compile time); the kernel's hub.Tx does not name it.
type Tx interface {
	hooks.Tx
	// NotifiedOf returns those of ids recorded as told to channel.
	NotifiedOf(ctx context.Context, channel string, ids []string) ([]string, error)
	// MarkNotified records ids as told to channel at at (a record that
	// exists keeps its time) and forgets the channel's records older than
	// forgetBefore.
	MarkNotified(ctx context.Context, channel string, ids []string, at, forgetBefore time.Time) error
}
