package server

import (
	"context"
	"sync"

	"github.com/blackboard-hub/bb/internal/app"
)

// heartbeats batches the check-ins that identified reads owe: a read
// answers with its notices from a read transaction (ReadCheckIn) and hands
// its agent here; one goroutine makes every pending check-in in one write
// transaction (CheckInAgents), so that a read never waits for the write
// path and 120 agents reading cost one write per batch, not 120.
type heartbeats struct {
	svc     app.API
	mu      sync.Mutex
	pending map[string]struct{}
	// running is set by start; before it (a server used through Handler
	// alone) a check-in is made at once.
	running bool
	kick    chan struct{}
}

func newHeartbeats(svc app.API) *heartbeats {
	return &heartbeats{svc: svc, pending: map[string]struct{}{}, kick: make(chan struct{}, 1)}
}

// owe records that agent's check-in is owed.
func (h *heartbeats) owe(ctx context.Context, agent string) {
	h.mu.Lock()
	if !h.running {
		h.mu.Unlock()
		_, _ = h.svc.CheckIn(ctx, agent)
		return
	}
	h.pending[agent] = struct{}{}
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// take empties the pending set.
func (h *heartbeats) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.pending))
	for a := range h.pending {
		out = append(out, a)
	}
	clear(h.pending)
	return out
}

// start makes the owed check-ins until ctx ends, then the last ones.
func (h *heartbeats) start(ctx context.Context) {
	h.mu.Lock()
	h.running = true
	h.mu.Unlock()
	go func() {
		for {
			select {
			case <-ctx.Done():
				h.mu.Lock()
				h.running = false
				h.mu.Unlock()
				// The check-ins owed when the server stops are still made.
				_ = h.svc.CheckInAgents(context.WithoutCancel(ctx), h.take())
				return
			case <-h.kick:
				// A failed batch loses heartbeats only: the agents' next
				// reads owe them again.
				_ = h.svc.CheckInAgents(ctx, h.take())
			}
		}
	}()
}
