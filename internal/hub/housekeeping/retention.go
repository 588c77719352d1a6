package housekeeping

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// RetainBatch is how many rows one retention transaction removes at most:
// small enough that the write lock is held for a few milliseconds, so
// agents' writes interleave with a long clean-up (500 held it up to ~30
// ms under the serve bench's load on 2 cores; BENCHMARKS.md, issue 37).
const RetainBatch = 100

// RetainReport counts what one pass of retention removed.
type RetainReport struct {
	Events        int64 `json:"events"`
	Receipts      int64 `json:"receipts"`
	Notifications int64 `json:"notifications"`
	// EventsRemovedThrough is the highest event seq removed so far (0:
	// none): a follower with an older cursor is told.
	EventsRemovedThrough int64 `json:"events_removed_through"`
	Batches              int   `json:"batches"`
}

// Empty reports whether nothing was removed.
func (r RetainReport) Empty() bool { return r.Events == 0 && r.Receipts == 0 && r.Notifications == 0 }

// Retain applies the board's retention settings (retention.events,
// retention.receipts, retention.notifications) once: it removes what is
// older than each keeps, in transactions of at most batch rows
// (RetainBatch when 0), until nothing is left or ctx ends. bb serve runs
// it periodically; it needs the operator's rights.
func (s *Service) Retain(ctx context.Context, batch int) (RetainReport, error) {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOperator, "applying the board's retention")); err != nil {
		return RetainReport{}, err
	}
	entries, err := s.kernel.Config(ctx)
	if err != nil {
		return RetainReport{}, err
	}
	r := hub.RetentionOf(entries)
	now := s.kernel.Now()
	var rep RetainReport
	if r.Events > 0 {
		if err := s.removeEvents(ctx, now.Add(-r.Events), batch, &rep); err != nil {
			return rep, err
		}
	}
	if r.Receipts > 0 {
		n, err := s.removeBatches(ctx, batch, &rep, func(tx hub.Tx, limit int) (int64, error) {
			return tx.RemoveReceiptsBefore(ctx, now.Add(-r.Receipts), limit)
		})
		rep.Receipts += n
		if err != nil {
			return rep, err
		}
	}
	if r.Notifications > 0 {
		n, err := s.removeBatches(ctx, batch, &rep, func(tx hub.Tx, limit int) (int64, error) {
			return tx.RemoveNotifiedBefore(ctx, now.Add(-r.Notifications), limit)
		})
		rep.Notifications += n
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// removeEvents removes the events older than cutoff, batch by batch, and
// records the highest seq removed in the same transaction as each batch.
func (s *Service) removeEvents(ctx context.Context, cutoff time.Time, batch int, rep *RetainReport) error {
	n, err := s.removeBatches(ctx, batch, rep, func(tx hub.Tx, limit int) (int64, error) {
		n, through, err := tx.RemoveEventsBefore(ctx, cutoff, limit)
		if err != nil || through == 0 {
			return n, err
		}
		rep.EventsRemovedThrough = through
		return n, hub.RecordEventsRemoved(ctx, tx, through, s.kernel.Now())
	})
	rep.Events += n
	return err
}

// RetainRest is how long retention rests after each full batch, as a
// multiple of the time the batch took (waiting for the write lock
// included): with 3 it runs a quarter of the time at most, and rests
// longer when the board is busy, so agents' writes get the write lock and
// the CPU first. Batches back to back raised the write p99 of the serve
// bench by up to 1.6× on 2 cores (BENCHMARKS.md, issue 37).
const RetainRest = 3

// removeBatches runs remove in write transactions of at most batch rows,
// resting between them (RetainRest), until one removes fewer, or ctx
// ends; it returns the rows removed.
func (s *Service) removeBatches(ctx context.Context, batch int, rep *RetainReport, remove func(tx hub.Tx, limit int) (int64, error)) (int64, error) {
	if batch <= 0 {
		batch = RetainBatch
	}
	var total int64
	for ctx.Err() == nil {
		start := time.Now()
		n, err := hub.Write(ctx, s.kernel, hub.Maintenance{}, func(tx hub.Tx) (int64, error) { return remove(tx, batch) })
		if err != nil {
			return total, err
		}
		total += n
		rep.Batches++
		if n < int64(batch) {
			break
		}
		rest := time.NewTimer(RetainRest * time.Since(start))
		select {
		case <-ctx.Done():
		case <-rest.C:
		}
		rest.Stop()
	}
	return total, ctx.Err()
}
