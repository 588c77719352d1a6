package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// keepAlive is how often an idle stream sends a comment line, so proxies
// and the per-write deadline notice dead clients.
const keepAlive = 15 * time.Second

// stream serves GET /api/v1/events/stream: Server-Sent Events, one event
// per timeline entry, "id:" = seq. A client resumes with the Last-Event-ID
// header (EventSource does it itself) or ?after=<seq>; without either it
// gets only what happens from now on. Filters: ?type=a,b and ?agent=.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	after := int64(-1)
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, "events stream", hub.FieldErr(hub.CodeInvalidInput, "after", "Last-Event-ID/after must be an event sequence number, got %q", v), 0)
			return
		}
		after = n
		break
	}
	f := hub.EventFilter{AfterSeq: max(after, 0), Agent: r.URL.Query().Get("agent")}
	if v := r.URL.Query().Get("type"); v != "" {
		f.Types = strings.Split(v, ",")
	}

	// Writes come from Follow (events) and the keep-alive ticker.
	var mu sync.Mutex
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	var buf bytes.Buffer
	send := func(e hub.Event) error {
		buf.Reset()
		b, _ := json.Marshal(view.EventOf(e))
		fmt.Fprintf(&buf, "id: %d\ndata: %s\n\n", e.Seq, b)
		return write(buf.Bytes())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A stopping server ends the stream (the client reconnects elsewhere
	// or later, with Last-Event-ID).
	defer context.AfterFunc(s.streams, cancel)()
	started := func(from int64) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		// A stream outlives the server's ReadTimeout: clear the read
		// deadline (else the server's background read times out and
		// cancels the request); writes get their own deadlines. Tell the
		// client how fast to retry.
		_ = rc.SetReadDeadline(time.Time{})
		if err := write(fmt.Appendf(nil, "retry: 1000\n: bb events after seq %d\n\n", from)); err != nil {
			return err
		}
		go func() {
			tick := time.NewTicker(keepAlive)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					if write([]byte(": keep-alive\n\n")) != nil {
						cancel()
						return
					}
				}
			}
		}()
		return nil
	}
	// Replay what the client missed (after a Last-Event-ID), then every
	// new matching event, until the client leaves.
	_ = s.svc.Follow(ctx, hub.FollowInput{Filter: f, Backlog: after >= 0, Started: started}, send)
}
