package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Operating a server (docs/ops.md): health probes, one log line and one
// metrics observation per request, and the per-credential request budget.

// Paths of the probes and the scrape.
const (
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
	MetricsPath = "/metrics"
	rpcRoute    = "POST /api/v1/rpc/{method}"
)

// RequestIDResponseHeader names each request in the reply and in the log
// line (a client's own X-Request-Id is kept when it is a short token).
const RequestIDResponseHeader = "X-Request-Id"

// recorder is the ResponseWriter of one request: the status written, the
// route the mux matched and who spoke, for the log line and the metrics.
type recorder struct {
	http.ResponseWriter
	status    int
	route     string
	principal hub.Principal
	code      hub.Code
	wrote     bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Flush lets event streams and MCP flush through the recorder.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		if !r.wrote {
			r.status, r.wrote = http.StatusOK, true
		}
		f.Flush()
	}
}

// Unwrap serves http.ResponseController (deadlines of event streams).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe wraps the whole handler: probes bypass the credential check;
// every other request gets a request id, and once answered, a log line
// and its metrics.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case HealthPath:
			s.healthz(w, r)
			return
		case ReadyPath:
			s.readyz(w, r)
			return
		}
		start := time.Now()
		rid := requestIDOf(r.Header.Get(RequestIDResponseHeader))
		if rid == "" {
			rid = s.nextRequestID()
		}
		w.Header().Set(RequestIDResponseHeader, rid)
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		ctx := hub.OnReplay(r.Context(), s.metrics.replays.Inc)
		next.ServeHTTP(rec, r.WithContext(ctx))
		took := time.Since(start)
		route := rec.route
		if route == "" {
			route = "unmatched"
		}
		code := strconv.Itoa(rec.status)
		s.metrics.requests.WithLabelValues(route, r.Method, code).Inc()
		s.metrics.latency.WithLabelValues(route).Observe(took.Seconds())
		if rec.code != "" {
			s.metrics.errors.WithLabelValues(string(rec.code)).Inc()
		}
		if rec.route == "" && (rec.status == http.StatusUnauthorized || rec.status == http.StatusForbidden) {
			reason := "unauthorized"
			if rec.status == http.StatusForbidden {
				reason = "forbidden"
			}
			s.metrics.refusals.WithLabelValues(reason).Inc()
		}
		if s.cfg.RequestLog {
			attrs := []slog.Attr{
				slog.String("request_id", rid),
				slog.String("credential", rec.principal.Credential),
				slog.String("role", string(rec.principal.Role)),
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", rec.status),
				slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			}
			if rec.code != "" {
				attrs = append(attrs, slog.String("code", string(rec.code)))
			}
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
		}
	})
}

// requestIDOf keeps a client's request id when it is a short token of
// letters, digits and -_.: (never logged otherwise).
func requestIDOf(v string) string {
	if v == "" || len(v) > 64 {
		return ""
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:", c)) {
			return ""
		}
	}
	return v
}

// requestIDs numbers the requests of one server after a random prefix.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &requestIDs{prefix: hex.EncodeToString(b[:])}
}

func (s *Server) nextRequestID() string {
	return s.reqIDs.prefix + "-" + strconv.FormatUint(s.reqIDs.n.Add(1), 10)
}

// routeMux registers the server's routes on its ServeMux, each wrapped to
// name its route for the metrics and the log, spend its caller's request
// budget and count what it did; it remembers the patterns (the OpenAPI
// test compares them with docs).
type routeMux struct {
	s        *Server
	mux      *http.ServeMux
	patterns []string
}

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.mux.Handle(pattern, m.s.routed(pattern, h))
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(h))
}

// Routes lists the patterns the server registered, in order.
func (s *Server) Routes() []string { return append([]string(nil), s.rmux.patterns...) }

func (s *Server) routed(pattern string, h http.Handler) http.Handler {
	stream := ""
	switch {
	case pattern == "GET /api/v1/events/stream":
		stream = StreamSSE
	case strings.HasPrefix(pattern, "/mcp"):
		stream = StreamMCP
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec, _ := w.(*recorder)
		if rec != nil {
			rec.route = pattern
			rec.principal, _ = hub.PrincipalFrom(r.Context())
		}
		hook := pattern == rpcRoute && s.metrics.hookMethods[r.PathValue("method")]
		if !hook && !s.fair.exempt(pattern) {
			if wait, ok := s.fair.take(budgetKey(r), time.Now()); !ok {
				s.metrics.limited.WithLabelValues(credentialLabel(r)).Inc()
				w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
				writeError(w, "", hub.Errorf(hub.CodeRateLimited, "too many requests from this credential: over its budget of %g requests per second (burst %d); retry after %s",
					s.fair.rate, s.fair.burst, wait.Round(time.Second)), http.StatusTooManyRequests)
				return
			}
		}
		if stream != "" && r.Method == http.MethodGet {
			defer s.OpenStream(stream)()
		}
		h.ServeHTTP(w, r)
		if hook {
			s.metrics.hooks.WithLabelValues(r.PathValue("method")).Inc()
		}
		if rec != nil && r.Method == http.MethodPost && rec.status < 400 && rec.code == "" {
			s.metrics.writes.WithLabelValues(s.writeKind(pattern, r)).Inc()
		}
	})
}

// budgetKey is whose budget a request spends: its credential's, else
// (a token-less loopback server) the agent it names.
func budgetKey(r *http.Request) string {
	if p, ok := hub.PrincipalFrom(r.Context()); ok {
		if p.ID != "" {
			return "id:" + p.ID
		}
		return "cred:" + p.Credential
	}
	if a := strings.TrimSpace(r.Header.Get(AgentHeader)); a != "" {
		return "agent:" + a
	}
	if a := r.URL.Query().Get("as"); a != "" {
		return "agent:" + a
	}
	return "local"
}

func credentialLabel(r *http.Request) string {
	if p, ok := hub.PrincipalFrom(r.Context()); ok && p.Credential != "" {
		return p.Credential
	}
	return "none"
}

// Fair use defaults: generous for an agent, a brake for a runaway loop.
const (
	DefaultRate  = 100.0
	DefaultBurst = 400
	// maxBuckets bounds the budgets kept (a token-less server keys them by
	// the agent a request names): past it the idle ones are dropped.
	maxBuckets = 10000
)

// fairUse is one token bucket per credential: rate requests per second,
// up to burst at once.
type fairUse struct {
	rate  float64
	burst int
	off   bool

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newFairUse(rate float64, burst int) *fairUse {
	f := &fairUse{rate: rate, burst: burst, buckets: map[string]*bucket{}}
	if rate == 0 {
		f.rate = DefaultRate
	}
	if burst == 0 {
		f.burst = DefaultBurst
	}
	f.off = rate < 0
	return f
}

// exempt: a person's dashboard, its static files, the sign-in page and
// the metrics never spend a budget (an agent's write loop cannot starve
// them); neither do hooks (see routed).
func (f *fairUse) exempt(pattern string) bool {
	if f.off {
		return true
	}
	_, path, _ := strings.Cut(pattern, " ")
	if path == "" {
		path = pattern
	}
	return path == "/{$}" || path == loginPath || strings.HasPrefix(path, "/ui/") || strings.HasPrefix(path, "/static/") || path == MetricsPath
}

// take spends one token of key's bucket; when none is left it says how
// long until one is.
func (f *fairUse) take(key string, now time.Time) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.buckets[key]
	if b == nil {
		if len(f.buckets) >= maxBuckets {
			f.dropIdle(now)
		}
		b = &bucket{tokens: float64(f.burst), last: now}
		f.buckets[key] = b
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(float64(f.burst), b.tokens+el*f.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	wait := time.Duration((1 - b.tokens) / f.rate * float64(time.Second))
	return max(wait, time.Second), false
}

// dropIdle forgets the buckets that are full again (nothing to remember).
func (f *fairUse) dropIdle(now time.Time) {
	for k, b := range f.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*f.rate >= float64(f.burst) {
			delete(f.buckets, k)
		}
	}
}

// healthz answers that the process serves: no credential, no board data.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	writeProbe(w, http.StatusOK, map[string]any{"status": "ok"})
}

// readyTimeout bounds the database check of /readyz.
const readyTimeout = 2 * time.Second

// readyz answers whether the server can do its work: the database answers
// and its schema is this binary's. 503 with the reason (its stable code
// and message) otherwise; no credential, no board data.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	var err error
	if rd, ok := s.svc.(interface{ Ready(context.Context) error }); ok {
		err = rd.Ready(ctx)
	} else {
		_, err = s.svc.Info(ctx)
	}
	if err == nil && s.stopping.Load() {
		err = hub.Errorf(hub.CodeDatabaseUnavailable, "the server is stopping")
	}
	if err != nil {
		code, msg := hub.CodeInternal, "not ready"
		if he := (*hub.Error)(nil); errors.As(err, &he) {
			code, msg = he.Code, he.Render(jsonName)
		} else if ctx.Err() != nil {
			code, msg = hub.CodeDatabaseUnavailable, "the database did not answer within "+readyTimeout.String()
		}
		w.Header().Set("Retry-After", "2")
		writeProbe(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "code": code, "reason": msg})
		return
	}
	writeProbe(w, http.StatusOK, map[string]any{"status": "ready", "backend": s.backend})
}

func writeProbe(w http.ResponseWriter, status int, body map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(encode(body))
}

// metricsHandler serves /metrics on the main address: the operator's
// (or, on a token-less loopback server, anyone on this machine).
func (s *Server) metricsHandler() http.Handler {
	h := s.metrics.handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := hub.Allow(r.Context(), hub.Needs(hub.AccessOperator, "reading the metrics")); err != nil {
			writeError(w, "metrics", err, 0)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// MetricsHandler is /metrics alone, without a credential check: what
// --metrics-addr serves on its own listener.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, s.metrics.handler())
	return mux
}

// router is where routes are registered (routeMux).
type router interface {
	Handle(pattern string, h http.Handler)
	HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request))
}
