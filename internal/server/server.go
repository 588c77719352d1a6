// Package server is `bb serve`: the hub over HTTP. It exposes the JSON API
// under /api/v1/ (the bb --json envelope), a live event stream (SSE), the
// Sessions dashboard (html/template + htmx, embedded) and, when available,
// MCP over streamable HTTP. It is a thin adapter over one app.API:
// every rule stays in the core.
package server

import (
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
)

// DefaultAddr is where bb serve listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7777"

// Limits and timeouts of every connection.
const (
	MaxBodyBytes      = 1 << 20
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 120 * time.Second
	// streamWriteTimeout bounds each write of an SSE stream: a client that
	// stops reading is cut off instead of holding a goroutine forever.
	streamWriteTimeout = 10 * time.Second
)

// Config configures a Server.
type Config struct {
	Service app.API
	// Addr is host:port to listen on (DefaultAddr when empty).
	Addr string
	// Token, when set, is required on every request (Bearer header, or the
	// cookie a ?token= login sets). Required for non-loopback addresses.
	Token string
	// Log receives one line per notable server event (nil: discard).
	Log *slog.Logger
	// MCP, when set, is mounted at /mcp (behind the same token check).
	MCP http.Handler
	// Commands, when set, runs bb commands for POST /api/v1/command.
	Commands CommandRunner
	// CommandNames are the top-level bb commands Commands may run (the
	// command tree says which work on the board alone).
	CommandNames []string
	// Drain bounds how long a stopping server waits for the requests in
	// progress (0: DefaultDrain).
	Drain time.Duration
	// RequestLog writes one Log line per request (request id, credential,
	// role, method, route, status, duration); never a token or a body.
	RequestLog bool
	// MetricsAddr, when set, serves /metrics without a credential on a
	// listener of its own (else /metrics is the operator's, on Addr).
	MetricsAddr string
	// Rate and Burst are each credential's request budget (fair use):
	// Rate requests per second, Burst at once (0: DefaultRate and
	// DefaultBurst; a negative Rate turns the budget off).
	Rate  float64
	Burst int
}

// DefaultDrain is how long a stopping server lets the requests in progress
// finish before it closes their connections.
const DefaultDrain = 10 * time.Second

// Server is one running bb serve.
type Server struct {
	cfg Config
	svc app.API
	// backend names the board's storage (shown on the dashboard).
	backend string
	log     *slog.Logger
	posts   *committer
	access  *access
	ui      *ui
	mux     *http.ServeMux
	rmux    *routeMux
	metrics *metrics
	fair    *fairUse
	reqIDs  *requestIDs
	// stopping is set when the server starts to stop: /readyz says so, so
	// a load balancer sends new requests elsewhere.
	stopping atomic.Bool
	// rpcs are the app.API methods callable over /api/v1/rpc/.
	rpcs map[string]rpcMethod
	// streams ends when the server starts to stop: event streams (SSE,
	// MCP's GET streams) end with it, cleanly, instead of holding the
	// shutdown until its deadline.
	streams     context.Context
	stopStreams context.CancelFunc
	// repos are the repository fingerprints already accepted (rpc.go).
	repos sync.Map
	// beats batches the check-ins identified reads owe (heartbeats.go).
	beats *heartbeats
	// metricsLn is --metrics-addr's listener (Run opens it).
	metricsLn net.Listener
}

// New builds a server; Run starts its background work and listener.
func New(cfg Config) (*Server, error) {
	if cfg.Service == nil {
		return nil, errors.New("server: no service")
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if err := CheckBind(cfg.Addr, cfg.Token); err != nil {
		return nil, err
	}
	lg := cfg.Log
	if lg == nil {
		lg = discardLog()
	}
	info, err := cfg.Service.Info(context.Background())
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, svc: cfg.Service, backend: info.Backend, log: lg}
	s.streams, s.stopStreams = context.WithCancel(context.Background())
	s.posts = newCommitter(cfg.Service)
	s.beats = newHeartbeats(cfg.Service)
	s.access = newAccess()
	ui, err := newUI(s)
	if err != nil {
		return nil, err
	}
	s.ui = ui
	s.rpcs = rpcMethods()
	s.metrics = newMetrics(s)
	s.fair = newFairUse(cfg.Rate, cfg.Burst)
	s.reqIDs = newRequestIDs()
	s.mux = http.NewServeMux()
	s.rmux = &routeMux{s: s, mux: s.mux}
	s.routes()
	// The probes are answered by observe, before the credential check.
	s.rmux.patterns = append(s.rmux.patterns, "GET "+HealthPath, "GET "+ReadyPath)
	return s, nil
}

// MinTokenLen is the shortest --token accepted: a short token can be guessed.
const MinTokenLen = 16

// CheckBind refuses a non-loopback address without a token, and a token
// that is blank or shorter than MinTokenLen bytes.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return hub.FieldErr(hub.CodeInvalidInput, "addr", "invalid --addr %q: expected host:port such as %s", addr, DefaultAddr)
	}
	if token != "" && strings.TrimSpace(token) == "" {
		return hub.FieldErr(hub.CodeInvalidInput, "token", "the token is blank: use at least %d random characters, e.g. from `openssl rand -hex 16`", MinTokenLen)
	}
	if token != "" && len(token) < MinTokenLen {
		return hub.FieldErr(hub.CodeInvalidInput, "token", "the token is too short: %d bytes, need at least %d (e.g. from `openssl rand -hex 16`)", len(token), MinTokenLen)
	}
	if token == "" && !isLoopbackHost(host) {
		return hub.FieldErr(hub.CodeUnauthorized, "token",
			"refusing to listen on %s without a token: set --token or BB_TOKEN (or bind to 127.0.0.1)", addr)
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// Handler is the full HTTP handler (auth included), for tests and embedding.
func (s *Server) Handler() http.Handler { return s.observe(s.guard(s.mux)) }

// Start runs the background goroutine (the group committer of posts)
// until ctx ends. Run calls it; tests using Handler directly call it too.
func (s *Server) Start(ctx context.Context) {
	s.posts.start(ctx, committers(s.backend))
	s.beats.start(ctx)
	go s.watchRevocations(ctx)
}

// committers is how many group commits of posts a server runs at once. On
// PostgreSQL a group of posts holds the write lock only for its writes
// (hub.OrderAtCommit), so a second group prepares (begins, counts its
// check-ins) while the first commits; on SQLite the writer lock is held
// from BEGIN, and one group at a time is fastest.
func committers(backend string) int {
	if backend == "postgres" {
		return 2
	}
	return 1
}

// Run listens on the configured address and serves until ctx ends. ready,
// when non-nil, receives the bound address once listening.
func (s *Server) Run(ctx context.Context, ready func(addr string)) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return &hub.Error{Code: hub.CodeInvalidInput, Field: "addr", Message: fmt.Sprintf("cannot listen on %s: %v", s.cfg.Addr, unwrapAll(err)), Err: err}
	}
	if s.cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", s.cfg.MetricsAddr)
		if err != nil {
			_ = ln.Close()
			return &hub.Error{Code: hub.CodeInvalidInput, Field: "metrics_addr", Message: fmt.Sprintf("cannot listen on --metrics-addr %s: %v", s.cfg.MetricsAddr, unwrapAll(err)), Err: err}
		}
		s.metricsLn = mln
	}
	return s.Serve(ctx, ln, ready)
}

// Serve serves on ln until ctx ends, then stops gracefully: it stops
// accepting connections, ends the event streams, lets the requests in
// progress finish (at most Config.Drain) and answers each with what was
// done; only then does the group commit stop. Requests are never
// cancelled because the server stops (a write that committed is answered
// as a success); only a request still running at the deadline loses its
// connection.
func (s *Server) Serve(ctx context.Context, ln net.Listener, ready func(addr string)) error {
	// The requests' context outlives ctx: it ends only after the drain.
	base, stopBase := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBase()
	s.Start(base)
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout, // SSE streams replace it with per-write deadlines
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.stopStreams)
	var ms *http.Server
	if s.metricsLn != nil {
		ms = &http.Server{Handler: s.MetricsHandler(), ReadHeaderTimeout: readHeaderTimeout, WriteTimeout: writeTimeout,
			ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
		go func() { _ = ms.Serve(s.metricsLn) }()
		defer func() { _ = ms.Close() }()
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.stopStreams()
		return err
	case <-ctx.Done():
	}
	s.stopping.Store(true)
	drain := s.cfg.Drain
	if drain <= 0 {
		drain = DefaultDrain
	}
	start := time.Now()
	s.log.Info("stopping: no new connections; finishing the requests in progress", "limit", drain)
	sctx, scancel := context.WithTimeout(context.Background(), drain)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		// Requests still running at the deadline: close their connections.
		_ = hs.Close()
		s.log.Warn("stopped after the drain limit: requests still running were cut off", "limit", drain)
	} else {
		s.log.Info("stopped: every request answered", "took", time.Since(start).Round(time.Millisecond))
	}
	stopBase()
	select {
	case <-s.posts.done:
	case <-time.After(drain): // a commit hung in the database
	}
	return nil
}

func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

const tokenCookie = "bb_token"

// guard authenticates every request and attaches who it speaks for
// (hub.WithPrincipal): the server's token is the operator's, a credential
// (bb token) its agent's with its role; unknown, revoked or expired is
// 401. A ?token= visit (or the login page) turns into a cookie for
// browsers. A server without a token accepts only loopback Host names (no
// DNS rebinding) and, without a credential, serves as before credentials
// existed: anyone on this machine can act.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := crossSite(r); why != "" && !navigable(r) {
			writeError(w, "", hub.Errorf(hub.CodeUnauthorized, "cross-site request refused (%s): call the API from the dashboard's own origin or from a non-browser client", why), http.StatusForbidden)
			return
		}
		if s.cfg.Token == "" {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !isLoopbackHost(host) {
				writeError(w, "", hub.Errorf(hub.CodeUnauthorized, "host %q not allowed: this server only answers on loopback names", r.Host), http.StatusForbidden)
				return
			}
		}
		if r.URL.Path == loginPath {
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
			if s.linkSignIn(w, r, q) {
				return
			}
		}
		tok := requestToken(r)
		if s.cfg.Token == "" && !strings.HasPrefix(tok, credentials.SecretPrefix) {
			// A token-less loopback server: a request without a credential
			// acts as it names, as before.
			next.ServeHTTP(w, r)
			return
		}
		p, err := s.principal(r.Context(), tok)
		if err != nil {
			s.unauthorized(w, r, err)
			return
		}
		ctx := hub.WithPrincipal(r.Context(), p)
		if longLivedRequest(r) {
			var done func()
			ctx, done = s.track(ctx, p)
			defer done()
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, err error) {
	if !hub.IsCode(err, hub.CodeUnauthorized) {
		writeError(w, "", err, 0)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/mcp") || r.Method != http.MethodGet {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bb"`)
		writeError(w, "", err, http.StatusUnauthorized)
		return
	}
	renderLogin(w, http.StatusUnauthorized, "")
}

func setTokenCookie(w http.ResponseWriter, r *http.Request, tok string) {
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

func requestToken(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if t, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(t)
		}
		return ""
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// crossSite reports why a request comes from another site's page, or "" if
// it does not. A browser says where a request comes from in Sec-Fetch-Site
// (every current browser), else in Origin, else in Referer; a request with
// none of them is not from a browser page (curl, scripts, the bb client) and
// cannot be forged by one. "same-site" is refused too: another port on the
// same host is another origin.
func crossSite(r *http.Request) string {
	if v := r.Header.Get("Sec-Fetch-Site"); v != "" {
		if v == "same-origin" || v == "none" {
			return ""
		}
		return "Sec-Fetch-Site: " + v
	}
	if o := r.Header.Get("Origin"); o != "" {
		if sameOrigin(o, r.Host) {
			return ""
		}
		return "Origin " + o
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		if u, err := url.Parse(ref); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == r.Host {
			return ""
		}
		return "foreign Referer"
	}
	return ""
}

// navigable reports the requests another site may make: following a link to
// the dashboard page or loading its static files, which read nothing and
// change nothing. Every API, fragment and MCP request, reads included (they
// may refresh the caller's last_seen or read cursor), needs same-origin
// proof.
func navigable(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/" || r.URL.Path == loginPath || strings.HasPrefix(r.URL.Path, "/static/")
}

func sameOrigin(origin, host string) bool {
	o, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		o, ok = strings.CutPrefix(origin, "https://")
	}
	return ok && o == host
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
