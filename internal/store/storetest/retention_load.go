package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/housekeeping"
)

// batchStore records, per write transaction, the rows retention removes,
// and counts the other writes that commit. After each retention
// transaction has committed, it waits (holding no transaction) until
// another write commits: the writers' load interleaves with every batch.
type batchStore struct {
	hub.Store
	mu      sync.Mutex
	written *sync.Cond
	// batches are the retention transactions that committed, in order.
	batches []retainTx
	// writes counts the other write transactions that committed.
	writes int
}

func newBatchStore(st hub.Store) *batchStore {
	s := &batchStore{Store: st}
	s.written = sync.NewCond(&s.mu)
	return s
}

// retainTx is one committed retention transaction: its remove calls.
type retainTx struct {
	removes []removeCall
	// writesBefore is how many other writes had committed before it.
	writesBefore int
}

type removeCall struct {
	limit   int
	removed int64
}

func (s *batchStore) Write(ctx context.Context, fn func(hub.Tx) error) error {
	var rec retainTx
	err := s.Store.Write(ctx, func(tx hub.Tx) error {
		rec.removes = rec.removes[:0]
		return fn(&batchTx{Tx: tx, rec: &rec})
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(rec.removes) == 0 {
		s.writes++
		s.written.Broadcast()
		return nil
	}
	rec.writesBefore = s.writes
	s.batches = append(s.batches, rec)
	for s.writes == rec.writesBefore {
		s.written.Wait()
	}
	return nil
}

func (s *batchStore) snapshot() ([]retainTx, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]retainTx(nil), s.batches...), s.writes
}

// batchTx records retention's remove calls of one transaction.
type batchTx struct {
	hub.Tx
	rec *retainTx
}

func (t *batchTx) RemoveEventsBefore(ctx context.Context, cutoff time.Time, limit int) (int64, int64, error) {
	n, through, err := t.Tx.RemoveEventsBefore(ctx, cutoff, limit)
	t.rec.removes = append(t.rec.removes, removeCall{limit, n})
	return n, through, err
}

func (t *batchTx) RemoveReceiptsBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	n, err := t.Tx.RemoveReceiptsBefore(ctx, cutoff, limit)
	t.rec.removes = append(t.rec.removes, removeCall{limit, n})
	return n, err
}

func (t *batchTx) RemoveNotifiedBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	n, err := t.Tx.RemoveNotifiedBefore(ctx, cutoff, limit)
	t.rec.removes = append(t.rec.removes, removeCall{limit, n})
	return n, err
}

// testRetentionUnderLoad: retention removes a long backlog of old events
// in small transactions while 8 writers post messages and create tasks
// through the core. Every retention transaction removes at most one batch
// in one statement; writers commit between the batches; no message or task
// (old or new) and no event newer than the cutoff is removed, and every
// older event is.
func testRetentionUnderLoad(t *testing.T, open Opener) {
	st := newBatchStore(open(t))
	t.Cleanup(func() { _ = st.Close() })
	clock := &Clock{T: T0()}
	svc := hub.NewService(st, clock, t.TempDir())
	ctx := context.Background()

	// The backlog: old posts and tasks, every one with its event.
	const oldPosts, oldTasks = 120, 30
	for i := 0; i < oldPosts; i++ {
		if _, err := svc.Post(ctx, hub.PostInput{From: "alice", Content: fmt.Sprintf("old %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < oldTasks; i++ {
		if _, err := svc.CreateTask(ctx, "alice", hub.TaskInput{Title: fmt.Sprintf("old task %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var old []hub.Event
	Ok(t, st.Read(ctx, func(tx hub.Tx) (err error) { old, err = tx.ListEvents(ctx, hub.EventFilter{}); return }))
	// Everything from now on is newer than the cutoff (the clock is not
	// moved while the writers run).
	clock.Advance(48 * time.Hour)
	_, err := svc.SetConfig(ctx, "operator", hub.ConfigRetentionEvents, "1d")
	Ok(t, err)

	const writers = 8
	started := make(chan struct{}, writers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var posted []string
	var tasks []string
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				from := fmt.Sprintf("writer-%d", w)
				if i%4 == 3 {
					r, err := svc.CreateTask(ctx, from, hub.TaskInput{Title: fmt.Sprintf("w%d task %d", w, i)})
					if err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
					mu.Lock()
					tasks = append(tasks, r.Task.ID)
					mu.Unlock()
				} else {
					body := fmt.Sprintf("w%d-%d", w, i)
					if _, err := svc.Post(ctx, hub.PostInput{From: from, Content: body}); err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
					mu.Lock()
					posted = append(posted, body)
					mu.Unlock()
				}
				if i == 0 {
					started <- struct{}{}
				}
			}
		}(w)
	}
	// The writers are running once each has committed.
	for w := 0; w < writers; w++ {
		<-started
	}
	const batch = 7
	rep, err := housekeeping.New(svc).Retain(ctx, batch)
	close(stop)
	wg.Wait()
	Ok(t, err)

	batches, _ := st.snapshot()
	// Every retention transaction: one remove statement, of at most one
	// batch, and writers committed between consecutive ones.
	var removed int64
	for i, b := range batches {
		if len(b.removes) != 1 || b.removes[0].limit != batch || b.removes[0].removed > batch {
			t.Fatalf("retention transaction %d: %+v, want one remove of at most %d rows", i, b.removes, batch)
		}
		removed += b.removes[0].removed
		if i > 0 && b.writesBefore == batches[i-1].writesBefore {
			t.Fatalf("no write committed between retention transactions %d and %d", i-1, i)
		}
	}
	if want := (len(old) + batch - 1) / batch; len(batches) < want {
		t.Fatalf("%d retention transactions for %d events, want at least %d", len(batches), len(old), want)
	}
	if removed != int64(len(old)) || rep.Events != int64(len(old)) || rep.EventsRemovedThrough != old[len(old)-1].Seq {
		t.Fatalf("removed %d events (report %+v), want the %d older than the cutoff, through %d", removed, rep, len(old), old[len(old)-1].Seq)
	}

	// What must be kept is kept: every message and task, old and new, and
	// every event newer than the cutoff.
	var msgs []hub.Message
	var all []hub.Task
	var evs []hub.Event
	Ok(t, st.Read(ctx, func(tx hub.Tx) (err error) {
		if msgs, err = tx.ListMessages(ctx, hub.MessageFilter{}); err != nil {
			return err
		}
		if all, err = tx.ListTasks(ctx, hub.TaskFilter{}); err != nil {
			return err
		}
		evs, err = tx.ListEvents(ctx, hub.EventFilter{})
		return err
	}))
	have := map[string]bool{}
	for _, m := range msgs {
		have[m.Body] = true
	}
	for i := 0; i < oldPosts; i++ {
		if !have[fmt.Sprintf("old %d", i)] {
			t.Fatalf("old message %d removed by retention", i)
		}
	}
	for _, b := range posted {
		if !have[b] {
			t.Fatalf("message %q written during retention is gone", b)
		}
	}
	ids := map[string]bool{}
	for _, task := range all {
		ids[task.ID] = true
	}
	if len(all) != oldTasks+len(tasks) {
		t.Fatalf("%d tasks after retention, want %d old + %d new", len(all), oldTasks, len(tasks))
	}
	for _, id := range tasks {
		if !ids[id] {
			t.Fatalf("task %s created during retention is gone", id)
		}
	}
	cutoff := clock.T.Add(-24 * time.Hour)
	for _, e := range evs {
		if e.Seq <= rep.EventsRemovedThrough || e.CreatedAt.Before(cutoff) {
			t.Fatalf("event %d (%s) older than what is kept survived", e.Seq, e.CreatedAt)
		}
	}
	// Every event a writer's acknowledged write made is there: one per
	// post and task, plus the setting's.
	if want := len(posted) + len(tasks); len(evs) < want {
		t.Fatalf("%d events kept, want at least the %d of the writes during retention", len(evs), want)
	}
	t.Logf("%d events removed in %d transactions of ≤%d rows while %d posts and %d tasks were written", removed, len(batches), batch, len(posted), len(tasks))
}
