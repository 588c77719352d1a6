package hub

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// CommitSignaler is implemented by stores that can say when a write
// commits, so followers of the timeline wake at once instead of waiting
// for the next poll.
type CommitSignaler interface {
	// OnCommit sets fn, called after every write this process commits.
	OnCommit(fn func())
	// WatchCommits calls wake after commits made by other processes
	// until ctx ends, and live(true) once the signal can be relied on
	// (PostgreSQL: listening; SQLite: watching the files), live(false)
	// when it cannot (the connection is lost). The feed polls often only
	// while the signal is not live. A backend that cannot watch returns
	// at once: the feed then finds those commits by polling.
	WatchCommits(ctx context.Context, wake func(), live func(bool)) error
}

// Matches reports whether e passes the filter's Types, Agent (the author
// or the addressee), BeadID and TaskID — the same selection the store
// makes for ListEvents. AfterSeq, Limit and Desc are not looked at.
func (f EventFilter) Matches(e Event) bool {
	if len(f.Types) > 0 && !slices.Contains(f.Types, e.Type) {
		return false
	}
	if f.Agent != "" && e.Agent != f.Agent && e.ToAgent != f.Agent {
		return false
	}
	if f.BeadID != "" && e.BeadID != f.BeadID {
		return false
	}
	return f.TaskID == "" || e.TaskID == f.TaskID
}

// FollowInput says which events Follow delivers.
type FollowInput struct {
	// Filter selects the events. Its Limit bounds the backlog only.
	Filter EventFilter
	// Backlog first delivers the stored events after Filter.AfterSeq;
	// without it only events committed from now on are delivered.
	Backlog bool
	// Started, when set, is called once before any event with the
	// sequence number delivery starts after (Filter.AfterSeq with
	// Backlog, else the newest event's). An error from it ends Follow.
	Started func(after int64) error
}

// followBatch is how many stored events Follow reads per query when it
// replays a backlog or a gap.
const followBatch = 500

// Follow calls emit with every matching timeline event, in order: the
// backlog when asked, then each new event as any process commits it. It
// returns nil when ctx ends, or emit's (or Started's) error. A follower
// that falls too far behind the live feed does not lose events: it
// replays the gap from the store.
func (s *Service) Follow(ctx context.Context, in FollowInput, emit func(Event) error) error {
	sub, pos, err := s.feed.subscribe(ctx)
	if err != nil {
		return ignoreDone(ctx, err)
	}
	defer func() { s.feed.unsubscribe(sub) }()
	// A filter names types in the timeline's scheme or by an older name.
	in.Filter.Types = EventTypesFor(in.Filter.Types)
	fl := &following{s: s, f: in.Filter, emit: emit, sent: pos}
	if in.Backlog {
		fl.sent = in.Filter.AfterSeq
	}
	if in.Started != nil {
		if err := in.Started(fl.sent); err != nil {
			return err
		}
	}
	if in.Backlog {
		if err := fl.replay(ctx, pos, in.Filter.Limit); err != nil {
			return ignoreDone(ctx, err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-sub.ch:
			if !ok {
				// Dropped for lagging: catch up from the store, then
				// follow the live feed again.
				if ctx.Err() != nil {
					return nil
				}
				if sub, pos, err = s.feed.subscribe(ctx); err != nil {
					return ignoreDone(ctx, err)
				}
				if err := fl.replay(ctx, pos, 0); err != nil {
					return ignoreDone(ctx, err)
				}
				continue
			}
			if err := fl.live(e); err != nil {
				return err
			}
		}
	}
}

// following is one Follow: what it delivers and the last sequence number
// it delivered up to (sent).
type following struct {
	s    *Service
	f    EventFilter
	emit func(Event) error
	sent int64
}

// live delivers e from the live feed unless it was delivered already or
// the filter leaves it out.
func (fl *following) live(e Event) error {
	if e.Seq <= fl.sent {
		return nil
	}
	fl.sent = e.Seq
	if !fl.f.Matches(e) {
		return nil
	}
	return fl.emit(e)
}

// replay delivers the stored events in (sent, upTo], at most limit of
// them (0: all), then moves sent to upTo. When retention removed some of
// them, the follower is told first and resumes at the oldest kept.
func (fl *following) replay(ctx context.Context, upTo int64, limit int) error {
	s := fl.s
	if through, err := s.expiredFrom(ctx, fl.sent); err != nil {
		return err
	} else if through > 0 {
		if err := fl.emit(s.cursorExpired(fl.sent, through)); err != nil {
			return err
		}
		fl.sent = through
	}
	n := 0
	for fl.sent < upTo {
		q := fl.f
		q.AfterSeq, q.Desc, q.Limit = fl.sent, false, followBatch
		evs, err := Read(ctx, s, func(tx Tx) ([]Event, error) {
			evs, err := tx.ListEvents(ctx, q)
			if err != nil {
				return nil, err
			}
			return evs, NameTasks(ctx, tx, evs)
		})
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Seq > upTo || limit > 0 && n == limit {
				fl.sent = max(fl.sent, upTo)
				return nil
			}
			if err := fl.emit(e); err != nil {
				return err
			}
			fl.sent = e.Seq
			n++
		}
		if len(evs) < followBatch {
			break
		}
	}
	fl.sent = max(fl.sent, upTo)
	return nil
}

// ignoreDone turns an error caused by ctx ending into the normal end.
func ignoreDone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// feedBuffer bounds the events queued for one follower. A follower that
// falls this far behind is dropped from the live feed (and replays the gap
// from the store); it never slows the feed or other followers.
const feedBuffer = 512

// FeedPoll is how often the feed looks for events written by other
// processes when the store cannot signal them.
const FeedPoll = 50 * time.Millisecond

// FeedSafetyPoll is how often the feed looks anyway while the store's
// signal is live: nothing is missed even if a signal were lost, and an
// idle board costs one read per this interval. 30 s, not 10: an idle
// waiter (bb agent wait, a session's wake) is one feed, and the read
// costs ~1.5 ms of CPU, 0.17 ms per second at 10 s against issue 33's
// 0.1 ms per second; a signal that stops is noticed by the store
// (live false), which puts the feed back on FeedPoll.
const FeedSafetyPoll = 30 * time.Second

// feed follows the events table for every follower of one Service: one
// goroutine reads new events once and fans them out. It runs only while
// someone follows; it wakes on every commit made in this process, on the
// store's signal for other processes' commits, and on a poll.
type feed struct {
	st Store
	// poll and safety: the feed's interval without and with a live signal.
	poll, safety time.Duration
	wake         chan struct{}

	mu   sync.Mutex
	subs map[*follower]struct{}
	last int64 // highest seq delivered to followers
	// stop ends the running feed goroutine (nil: not running).
	stop context.CancelFunc
}

type follower struct {
	ch chan Event
	// lagged is set (under feed.mu) when the follower was dropped because
	// its buffer was full.
	lagged bool
}

func newFeed(st Store) *feed {
	f := &feed{st: st, poll: FeedPoll, safety: FeedSafetyPoll, wake: make(chan struct{}, 1), subs: map[*follower]struct{}{}}
	if cs, ok := st.(CommitSignaler); ok {
		cs.OnCommit(f.signal)
	}
	return f
}

// signal tells the feed that a write committed (cheap, never blocks).
func (f *feed) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// subscribe registers a follower and returns the newest event committed
// when it subscribed: the follower is sent every event after the feed's
// position, and a follower of the new events starts after the returned
// one. The two differ while the feed has not yet read a commit (it reads
// after each commit, not inside it): reading the newest event here keeps
// an event committed just before the subscription out of "what is new".
func (f *feed) subscribe(ctx context.Context) (*follower, int64, error) {
	var last int64
	err := f.st.Read(ctx, func(tx Tx) error {
		var err error
		last, err = tx.LastEventSeq(ctx)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stop == nil {
		f.last = last
		run, stop := context.WithCancel(context.WithoutCancel(ctx))
		f.stop = stop
		go f.run(run)
	}
	s := &follower{ch: make(chan Event, feedBuffer)}
	f.subs[s] = struct{}{}
	return s, max(f.last, last), nil
}

// unsubscribe removes s; the feed stops when nobody follows.
func (f *feed) unsubscribe(s *follower) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[s]; ok {
		delete(f.subs, s)
		close(s.ch)
	}
	if len(f.subs) == 0 && f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

func (f *feed) run(ctx context.Context) {
	var live atomic.Bool
	if cs, ok := f.st.(CommitSignaler); ok {
		go func() {
			_ = cs.WatchCommits(ctx, f.signal, func(up bool) {
				live.Store(up)
				f.signal() // look now, and choose the next interval
			})
		}()
	}
	t := time.NewTimer(f.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.wake:
		}
		f.catchUp(ctx)
		if live.Load() {
			t.Reset(f.safety)
		} else {
			t.Reset(f.poll)
		}
	}
}

// catchUp reads every event after the feed's position and delivers it.
func (f *feed) catchUp(ctx context.Context) {
	for {
		f.mu.Lock()
		after := f.last
		f.mu.Unlock()
		var evs []Event
		err := f.st.Read(ctx, func(tx Tx) error {
			newest, err := tx.LastEventSeq(ctx)
			if err != nil || newest <= after {
				evs = nil
				return err
			}
			evs, err = tx.ListEvents(ctx, EventFilter{AfterSeq: after, Limit: followBatch})
			if err != nil {
				return err
			}
			// Named once here for every follower, as a paged read names
			// them: a followed task event says which task.
			return NameTasks(ctx, tx, evs)
		})
		if err != nil || len(evs) == 0 {
			return
		}
		f.mu.Lock()
		if ctx.Err() != nil { // stopped meanwhile: a newer run delivers
			f.mu.Unlock()
			return
		}
		for _, e := range evs {
			if e.Seq <= f.last {
				continue
			}
			for s := range f.subs {
				select {
				case s.ch <- e:
				default:
					s.lagged = true
					delete(f.subs, s)
					close(s.ch)
				}
			}
			f.last = e.Seq
		}
		f.mu.Unlock()
		if len(evs) < followBatch {
			return
		}
	}
}
