package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
)

// Leases beyond files (as bb lease).

type leaseAcquireIn struct {
	Name          string `json:"name" jsonschema:"e.g. deploy, build, port:web"`
	Capacity      *int   `json:"capacity,omitempty" jsonschema:"holders at once"`
	TTLMinutes    *int   `json:"ttl_minutes,omitempty" jsonschema:"default 120"`
	Wait          string `json:"wait,omitempty" jsonschema:"queue: 30s, 5m"`
	TakeoverStale bool   `json:"takeover_stale,omitempty" jsonschema:"from a stale holder"`
}

type leaseReleaseIn struct {
	Name   string `json:"name" jsonschema:"the lease"`
	Holder string `json:"holder,omitempty" jsonschema:"a person: whose"`
	Agent  string `json:"agent,omitempty" jsonschema:"a person: hand over to"`
}

type leaseListIn struct {
	Name string `json:"name,omitempty" jsonschema:"one lease"`
}

type leasesOut struct {
	Leases []leases.Status `json:"leases"`
}

// addLeaseTools registers three tools: acquire (which also renews the
// caller's own lease), release and list (holders with their fencing
// numbers; bb lease check is for scripts).
func (s *Server) addLeaseTools() {
	addTool(s, tool{name: "bb_lease_acquire", needsID: true, idempotent: true,
		desc: "Take (or renew) a lock, build slot, port:<x> or name:<x>."},
		func(ctx context.Context, c *call, in leaseAcquireIn) (leases.Grant, error) {
			ai := leases.AcquireInput{Agent: c.agent, Name: in.Name, Capacity: in.Capacity, TTLMinutes: in.TTLMinutes, TakeoverStale: in.TakeoverStale}
			if in.Wait != "" {
				d, err := hub.ParseDuration(in.Wait)
				if err != nil {
					return leases.Grant{}, err
				}
				ai.Wait = d
			}
			if w := s.opts.Where; !w.IsZero() {
				ai.Worktree, ai.Host = w.Worktree, w.Host
			}
			if ai.Wait <= 0 {
				return c.svc.AcquireLease(ctx, ai)
			}
			return s.acquireWaiting(ctx, c, ai)
		})
	addTool(s, tool{name: "bb_lease_release", needsID: true, destructive: true,
		desc: "Release your lease."},
		func(ctx context.Context, c *call, in leaseReleaseIn) (leases.ReleaseResult, error) {
			return c.svc.ReleaseLease(ctx, leases.ReleaseInput{Agent: c.agent, Name: in.Name, Holder: in.Holder, To: in.Agent})
		})
	addTool(s, tool{name: "bb_lease_list", readOnly: true,
		desc: "Leases held or waited for, with fences."},
		func(ctx context.Context, c *call, in leaseListIn) (leasesOut, error) {
			if in.Name != "" {
				st, err := c.svc.LeaseStatus(ctx, in.Name)
				return leasesOut{Leases: []leases.Status{st}}, err
			}
			ls, err := c.svc.ListLeases(ctx, leases.ListFilter{})
			return leasesOut{Leases: ls}, err
		})
}

// leaseProgressEvery is how often a waiting bb_lease_acquire tells the
// client it is alive, by default.
const leaseProgressEvery = 5 * time.Second

// acquireWaiting is an acquire that queues: it ends when the client
// cancels the call or bb serve starts to stop (the waiter leaves the
// queue), and it sends a progress
// notification every LeaseProgressEvery while it waits when the call asked
// for them (_meta.progressToken), which also tells clients that reset
// their timeout on progress that the call is alive.
func (s *Server) acquireWaiting(ctx context.Context, c *call, ai leases.AcquireInput) (leases.Grant, error) {
	wctx, stop := s.waiting(ctx, c)
	defer stop()
	if c.progressToken == nil || c.session == nil {
		return c.svc.AcquireLease(wctx, ai)
	}
	every := s.opts.LeaseProgressEvery
	if every <= 0 {
		every = leaseProgressEvery
	}
	// The notifications end before the reply is sent.
	pctx, pstop := context.WithCancel(wctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-t.C:
				_ = c.session.NotifyProgress(pctx, &sdk.ProgressNotificationParams{ProgressToken: c.progressToken,
					Progress: time.Since(start).Seconds(), Total: ai.Wait.Seconds(), Message: "waiting for the lease " + ai.Name})
			}
		}
	})
	g, err := c.svc.AcquireLease(wctx, ai)
	pstop()
	wg.Wait()
	return g, err
}
