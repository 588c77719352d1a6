package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// keepAlive is how often an idle stream sends a comment line, so proxies
// and the per-write deadline notice dead clients.
const keepAlive = 15 * time.Second

// replayLimit bounds the events replayed from the database per query when
// a client resumes.
const replayLimit = 500

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
	var types []string
	if v := r.URL.Query().Get("type"); v != "" {
		types = strings.Split(v, ",")
	}
	agent := r.URL.Query().Get("agent")
	match := func(e hub.Event) bool {
		if len(types) > 0 && !slices.Contains(types, e.Type) {
			return false
		}
		return agent == "" || e.Agent == agent || e.ToAgent == agent
	}

	sub, pos, err := s.broker.subscribe(ctx)
	if err != nil {
		return
	}
	defer s.broker.unsubscribe(sub)

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	var buf bytes.Buffer
	send := func(e hub.Event) error {
		buf.Reset()
		b, _ := json.Marshal(view.EventOf(e))
		fmt.Fprintf(&buf, "id: %d\ndata: %s\n\n", e.Seq, b)
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		return rc.Flush()
	}
	comment := func(c string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := fmt.Fprintf(w, ": %s\n\n", c); err != nil {
			return err
		}
		return rc.Flush()
	}
	// The server's WriteTimeout does not apply to a stream: each write
	// gets its own deadline instead. Tell the client how fast to retry.
	// A stream outlives the server's ReadTimeout: clear the read deadline
	// (else the server's background read times out and cancels the
	// request); writes get their own deadlines below.
	_ = rc.SetReadDeadline(time.Time{})
	from := pos
	if after >= 0 {
		from = after
	}
	_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := fmt.Fprintf(w, "retry: 1000\n: bb events after seq %d\n\n", from); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}

	sent := pos
	if after >= 0 {
		// Replay what the client missed, from the database, up to the
		// broker's position; newer events come from the subscription.
		sent = after
		for sent < pos {
			var evs []hub.Event
			err := s.local.Store.Read(ctx, func(tx hub.Tx) error {
				var err error
				evs, err = tx.ListEvents(ctx, hub.EventFilter{AfterSeq: sent, Limit: replayLimit})
				return err
			})
			if err != nil || len(evs) == 0 {
				break
			}
			for _, e := range evs {
				if e.Seq > pos {
					break
				}
				if match(e) {
					if send(e) != nil {
						return
					}
				}
				sent = e.Seq
			}
			if len(evs) < replayLimit {
				break
			}
		}
		sent = max(sent, pos)
	}

	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if comment("keep-alive") != nil {
				return
			}
		case e, ok := <-sub.ch:
			if !ok {
				// Dropped for lagging (or shutting down): the client
				// reconnects with Last-Event-ID and replays the gap.
				return
			}
			if e.Seq <= sent {
				continue
			}
			sent = e.Seq
			if match(e) && send(e) != nil {
				return
			}
		}
	}
}
