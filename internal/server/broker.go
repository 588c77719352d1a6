package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// subBuffer bounds the events queued for one subscriber. A subscriber that
// falls this far behind is dropped (its stream ends) and resumes from its
// Last-Event-ID; it never slows the broker or other subscribers.
const subBuffer = 512

// brokerBatch is how many events the broker reads per query.
const brokerBatch = 500

// Broker follows the events table and fans new events out to subscribers.
// One goroutine reads; it wakes on every in-process commit (Wake) and polls
// the newest sequence number for writes made by other processes.
type Broker struct {
	store hub.Store
	poll  time.Duration
	log   *slog.Logger
	wake  chan struct{}

	mu   sync.Mutex
	subs map[*subscriber]struct{}
	last int64 // highest seq delivered to subscribers
	// started is closed once last has been initialized.
	started chan struct{}
}

type subscriber struct {
	ch chan hub.Event
	// lagged is set (under Broker.mu) when the subscriber was dropped
	// because its buffer was full.
	lagged bool
}

func newBroker(st hub.Store, poll time.Duration, lg *slog.Logger) *Broker {
	return &Broker{store: st, poll: poll, log: lg, wake: make(chan struct{}, 1),
		subs: map[*subscriber]struct{}{}, started: make(chan struct{})}
}

// Wake tells the broker that a write committed (cheap, never blocks).
func (b *Broker) Wake() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// subscribe registers a subscriber; events with seq > the broker's
// position at that moment will be sent to it. It returns that position.
func (b *Broker) subscribe(ctx context.Context) (*subscriber, int64, error) {
	select {
	case <-b.started:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	s := &subscriber{ch: make(chan hub.Event, subBuffer)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	pos := b.last
	b.mu.Unlock()
	return s, pos, nil
}

func (b *Broker) unsubscribe(s *subscriber) {
	b.mu.Lock()
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.ch)
	}
	b.mu.Unlock()
}

func (b *Broker) subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

func (b *Broker) run(ctx context.Context) {
	var last int64
	for {
		err := b.store.Read(ctx, func(tx hub.Tx) error {
			var err error
			last, err = tx.LastEventSeq(ctx)
			return err
		})
		if err == nil {
			break
		}
		b.log.Warn("event broker: cannot read the timeline", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	b.mu.Lock()
	b.last = last
	b.mu.Unlock()
	close(b.started)
	t := time.NewTicker(b.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			b.mu.Lock()
			for s := range b.subs {
				delete(b.subs, s)
				close(s.ch)
			}
			b.mu.Unlock()
			return
		case <-t.C:
		case <-b.wake:
		}
		b.catchUp(ctx)
	}
}

// catchUp reads every event after the broker's position and delivers it.
func (b *Broker) catchUp(ctx context.Context) {
	for {
		b.mu.Lock()
		after := b.last
		b.mu.Unlock()
		var evs []hub.Event
		err := b.store.Read(ctx, func(tx hub.Tx) error {
			newest, err := tx.LastEventSeq(ctx)
			if err != nil || newest <= after {
				evs = nil
				return err
			}
			evs, err = tx.ListEvents(ctx, hub.EventFilter{AfterSeq: after, Limit: brokerBatch})
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				b.log.Warn("event broker: read failed", "err", err)
			}
			return
		}
		if len(evs) == 0 {
			return
		}
		b.mu.Lock()
		for _, e := range evs {
			for s := range b.subs {
				select {
				case s.ch <- e:
				default:
					s.lagged = true
					delete(b.subs, s)
					close(s.ch)
				}
			}
		}
		b.last = evs[len(evs)-1].Seq
		b.mu.Unlock()
		if len(evs) < brokerBatch {
			return
		}
	}
}
