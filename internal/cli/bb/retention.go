package bb

import (
	"context"
	"log/slog"
	"time"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/housekeeping"
	"github.com/blackboard-hub/bb/internal/server"
)

// retainer is the local board's retention (housekeeping.Service.Retain).
type retainer interface {
	Retain(ctx context.Context, batch int) (housekeeping.RetainReport, error)
}

// startRetention applies the board's retention settings at start and then
// every `every` (0: never), logging one line per pass that removed
// something or failed, and counting the rows in the server's metrics.
func (a *app) startRetention(ctx context.Context, svc core.API, srv *server.Server, lg *slog.Logger, every time.Duration) (stop func()) {
	r, ok := svc.(retainer)
	if !ok || every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			start := time.Now()
			rep, err := r.Retain(ctx, 0)
			srv.RetentionRemoved("events", rep.Events)
			srv.RetentionRemoved("receipts", rep.Receipts)
			srv.RetentionRemoved("notifications", rep.Notifications)
			switch {
			case err != nil && ctx.Err() == nil:
				lg.Warn("retention", "job", "retention", "error", hub.WordsOf(err, hub.Vocabulary{}), "events", rep.Events, "receipts", rep.Receipts, "notifications", rep.Notifications)
			case !rep.Empty():
				lg.Info("retention", "job", "retention", "events", rep.Events, "receipts", rep.Receipts, "notifications", rep.Notifications,
					"batches", rep.Batches, "events_removed_through", rep.EventsRemovedThrough, "duration_ms", time.Since(start).Milliseconds())
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
