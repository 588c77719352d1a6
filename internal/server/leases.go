package server

import (
	"context"
	"strconv"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
)

// Leases beyond files over HTTP (as bb lease; docs/serve.md).

func (s *Server) leaseRoutes() {
	m := s.mux
	m.HandleFunc("GET /api/v1/leases", s.api("lease list", s.listLeases))
	m.HandleFunc("GET /api/v1/leases/{name}", s.api("lease show", s.showLease))
	m.HandleFunc("POST /api/v1/leases/{name}/acquire", s.api("lease acquire", s.acquireLease))
	m.HandleFunc("POST /api/v1/leases/{name}/release", s.api("lease release", s.releaseLease))
	m.HandleFunc("POST /api/v1/leases/{name}/renew", s.api("lease renew", s.renewLease))
	m.HandleFunc("GET /api/v1/leases/{name}/check", s.api("lease check", s.checkLease))
}

func (s *Server) listLeases(c *call) (any, error) {
	q := c.r.URL.Query()
	return s.svc.ListLeases(c.ctx, leases.ListFilter{Agent: q.Get("agent"), All: q.Get("all") == "true"})
}

func (s *Server) showLease(c *call) (any, error) {
	return s.svc.LeaseStatus(c.ctx, c.r.PathValue("name"))
}

type acquireBody struct {
	Capacity      *int   `json:"capacity"`
	TTLMinutes    *int   `json:"ttl_minutes"`
	Wait          string `json:"wait"`
	TakeoverStale bool   `json:"takeover_stale"`
	Worktree      string `json:"worktree"`
	// Host names the caller's host (ports are per host); "" is the
	// server's.
	Host  string `json:"host"`
	Avoid []int  `json:"avoid"`
}

func (s *Server) acquireLease(c *call) (any, error) {
	var b acquireBody
	if err := decodeOptionalBody(c, &b); err != nil {
		return nil, err
	}
	in := leases.AcquireInput{Agent: c.agent, Name: c.r.PathValue("name"), Capacity: b.Capacity, TTLMinutes: b.TTLMinutes,
		TakeoverStale: b.TakeoverStale, Worktree: b.Worktree, Host: b.Host, Avoid: b.Avoid}
	if b.Wait != "" {
		d, err := hub.ParseDuration(b.Wait)
		if err != nil {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "wait", "{field}: %s", hub.MessageOf(err))
		}
		in.Wait = d
	}
	if in.Wait > 0 && in.Wait <= leases.MaxWait {
		lift(c.w, in.Wait) // the wait outlives the server's timeouts
		ctx, cancel := context.WithCancel(c.ctx)
		defer cancel()
		defer context.AfterFunc(s.streams, cancel)()
		return s.svc.AcquireLease(ctx, in)
	}
	return s.svc.AcquireLease(c.ctx, in)
}

type releaseBody struct {
	Holder string `json:"holder"`
	To     string `json:"to"`
}

func (s *Server) releaseLease(c *call) (any, error) {
	var b releaseBody
	if err := decodeOptionalBody(c, &b); err != nil {
		return nil, err
	}
	return s.svc.ReleaseLease(c.ctx, leases.ReleaseInput{Agent: c.agent, Name: c.r.PathValue("name"), Holder: b.Holder, To: b.To})
}

type renewBody struct {
	TTLMinutes *int `json:"ttl_minutes"`
}

func (s *Server) renewLease(c *call) (any, error) {
	var b renewBody
	if err := decodeOptionalBody(c, &b); err != nil {
		return nil, err
	}
	return s.svc.RenewLease(c.ctx, leases.RenewInput{Agent: c.agent, Name: c.r.PathValue("name"), TTLMinutes: b.TTLMinutes})
}

func (s *Server) checkLease(c *call) (any, error) {
	fence, err := strconv.ParseInt(c.r.URL.Query().Get("fence"), 10, 64)
	if err != nil {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "fence", "{field} must be the grant's fencing number (?fence=7)")
	}
	return s.svc.CheckLease(c.ctx, c.agent, c.r.PathValue("name"), fence)
}

// decodeOptionalBody reads a JSON body into v; an empty body is {}.
func decodeOptionalBody(c *call, v any) error {
	if c.r.ContentLength == 0 {
		return nil
	}
	return decodeBody(c.w, c.r, v)
}
