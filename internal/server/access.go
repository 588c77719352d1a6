package server

import (
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// access is who a request speaks for: the server's own token is the
// operator's; any other secret is a credential the core authenticates
// (bb token). Principals are kept by secret hash so that a request costs
// no read; a revocation (an event on the timeline, from this server or
// any process) drops them and ends the live streams opened with them.
type access struct {
	mu    sync.RWMutex
	cache map[string]hub.Principal // by credentials.HashSecret
	// live are the cancel functions of long-lived requests (event
	// streams, MCP GET streams), by credential id.
	live map[string]map[*liveReq]struct{}
}

type liveReq struct{ cancel context.CancelFunc }

func newAccess() *access {
	return &access{cache: map[string]hub.Principal{}, live: map[string]map[*liveReq]struct{}{}}
}

// principal authenticates a presented secret.
func (s *Server) principal(ctx context.Context, secret string) (hub.Principal, error) {
	if s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(s.cfg.Token)) == 1 {
		return hub.Principal{Credential: hub.OperatorCredential, Role: hub.AccessOperator}, nil
	}
	if !strings.HasPrefix(secret, credentials.SecretPrefix) {
		return hub.Principal{}, hub.Errorf(hub.CodeUnauthorized, "missing or invalid token: send Authorization: Bearer <token>")
	}
	h := credentials.HashSecret(secret)
	a := s.access
	a.mu.RLock()
	p, ok := a.cache[h]
	a.mu.RUnlock()
	if !ok {
		var err error
		if p, err = s.svc.Authenticate(ctx, secret); err != nil {
			return hub.Principal{}, err
		}
		a.mu.Lock()
		a.cache[h] = p
		a.mu.Unlock()
	}
	if p.ExpiresAt != nil && !s.svc.Now().Before(*p.ExpiresAt) {
		a.mu.Lock()
		delete(a.cache, h)
		a.mu.Unlock()
		return hub.Principal{}, credentials.Invalid()
	}
	return p, nil
}

// track makes ctx end when p's credential is revoked or expires; done
// forgets it.
func (s *Server) track(ctx context.Context, p hub.Principal) (context.Context, func()) {
	if p.ID == "" {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	if p.ExpiresAt != nil {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, p.ExpiresAt.Sub(s.svc.Now()))
		c0 := cancel
		cancel = func() { stop(); c0() }
	}
	l := &liveReq{cancel: cancel}
	a := s.access
	a.mu.Lock()
	if a.live[p.ID] == nil {
		a.live[p.ID] = map[*liveReq]struct{}{}
	}
	a.live[p.ID][l] = struct{}{}
	a.mu.Unlock()
	return ctx, func() {
		a.mu.Lock()
		delete(a.live[p.ID], l)
		if len(a.live[p.ID]) == 0 {
			delete(a.live, p.ID)
		}
		a.mu.Unlock()
		cancel()
	}
}

// revoked forgets credential id and ends its live requests.
func (s *Server) revoked(id string) {
	a := s.access
	a.mu.Lock()
	for h, p := range a.cache {
		if p.ID == id {
			delete(a.cache, h)
		}
	}
	live := a.live[id]
	delete(a.live, id)
	a.mu.Unlock()
	for l := range live {
		l.cancel()
	}
}

// watchRevocations follows the timeline for revoked credentials and for
// changes of the repository claim until ctx ends (a change made by another
// process is seen when the feed polls): a revoked credential is forgotten,
// and a claimed or reset repository makes the fingerprints accepted so far
// checked again.
func (s *Server) watchRevocations(ctx context.Context) {
	in := hub.FollowInput{Filter: hub.EventFilter{Types: []string{hub.EventCredentialRevoked, hub.EventRepositoryClaimed, hub.EventRepositoryReset}}}
	for ctx.Err() == nil {
		_ = s.svc.Follow(ctx, in, func(e hub.Event) error {
			if e.Type != hub.EventCredentialRevoked {
				s.repos.Clear()
				return nil
			}
			var p struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(e.Payload, &p) == nil && p.ID != "" {
				s.revoked(p.ID)
			}
			return nil
		})
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// longLivedRequest reports the requests that stay open: the event stream
// and MCP's server-to-client stream.
func longLivedRequest(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/api/v1/events/stream" || strings.HasPrefix(r.URL.Path, "/mcp"))
}
