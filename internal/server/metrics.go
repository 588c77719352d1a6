package server

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// metrics are the Prometheus collectors of one server, in a registry of
// its own (no process-wide state): GET /metrics, or --metrics-addr.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	writes    *prometheus.CounterVec
	errors    *prometheus.CounterVec
	replays   prometheus.Counter
	streams   *prometheus.GaugeVec
	hooks     *prometheus.CounterVec
	refusals  *prometheus.CounterVec
	limited   *prometheus.CounterVec
	retention *prometheus.CounterVec
	webhooks  *prometheus.CounterVec
	// hookMethods are the RPC methods a client's hook calls (hooks.API).
	hookMethods map[string]bool
}

// Stream kinds of bb_open_streams.
const (
	StreamSSE  = "sse"
	StreamMCP  = "mcp"
	StreamWait = "wait"
)

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), hookMethods: map[string]bool{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_http_requests_total", Help: "HTTP requests answered, by route pattern, method and status code.",
	}, []string{"route", "method", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "bb_http_request_duration_seconds", Help: "Time to answer an HTTP request (event streams: until they end), by route pattern.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.writes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_writes_total", Help: "Successful POST requests, by kind (the API resource or the RPC method).",
	}, []string{"kind"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_api_errors_total", Help: "Error replies by stable error code (DATABASE_BUSY, DATABASE_UNAVAILABLE, RATE_LIMITED, ...).",
	}, []string{"code"})
	m.replays = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bb_idempotent_replays_total", Help: "Mutations answered with the stored reply of an earlier request with the same Idempotency-Key.",
	})
	m.streams = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bb_open_streams", Help: "Open long-lived requests: event streams (sse), MCP GET streams (mcp), waiters (wait).",
	}, []string{"kind"})
	m.hooks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_hook_calls_total", Help: "Hook calls served (the RPC methods a client's hook uses), by method.",
	}, []string{"method"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_credential_refusals_total", Help: "Requests refused before any work: unauthorized (unknown, revoked or expired token) or forbidden (cross-site, foreign host).",
	}, []string{"reason"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_rate_limited_total", Help: "Requests answered 429 because their credential spent its request budget, by credential.",
	}, []string{"credential"})
	m.retention = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_retention_removed_total", Help: "Rows removed by retention, by kind (events, receipts, notifications).",
	}, []string{"kind"})
	m.webhooks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bb_webhook_deliveries_total", Help: "Webhook POSTs of --webhook, by outcome (ok, failed).",
	}, []string{"outcome"})
	for _, k := range []string{StreamSSE, StreamMCP, StreamWait} {
		m.streams.WithLabelValues(k)
	}
	for _, o := range []string{"ok", "failed"} {
		m.webhooks.WithLabelValues(o)
	}
	for _, r := range []string{"unauthorized", "forbidden"} {
		m.refusals.WithLabelValues(r)
	}
	for _, c := range []hub.Code{hub.CodeDatabaseBusy, hub.CodeDatabaseUnavailable, hub.CodeRateLimited} {
		m.errors.WithLabelValues(string(c))
	}
	t := reflect.TypeFor[hooks.API]()
	for i := range t.NumMethod() {
		m.hookMethods[t.Method(i).Name] = true
	}
	m.reg.MustRegister(m.requests, m.latency, m.writes, m.errors, m.replays, m.streams, m.hooks,
		m.refusals, m.limited, m.retention, m.webhooks, newBoardCollector(s),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// handler serves the registry in the Prometheus text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// OpenStream counts one open long-lived request of kind (StreamSSE,
// StreamMCP, StreamWait) in bb_open_streams until the returned func is
// called: a waiter (bb agent wait over HTTP) calls
// `defer s.OpenStream(server.StreamWait)()`.
func (s *Server) OpenStream(kind string) (done func()) {
	g := s.metrics.streams.WithLabelValues(kind)
	g.Inc()
	return g.Dec
}

// WebhookDelivered counts one webhook POST (bb serve --webhook) in
// bb_webhook_deliveries_total.
func (s *Server) WebhookDelivered(ok bool) {
	if ok {
		s.metrics.webhooks.WithLabelValues("ok").Inc()
		return
	}
	s.metrics.webhooks.WithLabelValues("failed").Inc()
}

// RetentionRemoved counts rows retention removed, by kind.
func (s *Server) RetentionRemoved(kind string, n int64) {
	if n > 0 {
		s.metrics.retention.WithLabelValues(kind).Add(float64(n))
	}
}

// boardCollector reads the board's gauges at each scrape: the database's
// state, agents by presence, what waits for a person, tasks by status.
type boardCollector struct {
	s                                    *Server
	dbUp, agents, attention, tasks, last *prometheus.Desc

	// The agents, attention and task gauges are read at most once per
	// boardGaugesFor and served from here in between: they cost several
	// reads of the board (the attention list most), about 30 ms a scrape
	// under load, which with a scrape a second was 5 % of the server's
	// CPU. The database's state and the newest event are read at every
	// scrape.
	mu     sync.Mutex
	readAt time.Time
	cached []prometheus.Metric
}

// boardGaugesFor is how long the board's counts are served from the last
// read (a scrape interval is usually 15 s or more).
const boardGaugesFor = 5 * time.Second

func newBoardCollector(s *Server) *boardCollector {
	return &boardCollector{s: s,
		dbUp:      prometheus.NewDesc("bb_database_up", "1 when the board's database answered this scrape, 0 otherwise.", nil, nil),
		agents:    prometheus.NewDesc("bb_agents", "Agents on the board, by presence.", []string{"presence"}, nil),
		attention: prometheus.NewDesc("bb_attention_items", "Unaccepted HANDOFF and BLOCKED messages, by kind and whether they are escalated.", []string{"kind", "escalated"}, nil),
		tasks:     prometheus.NewDesc("bb_tasks", "Tasks on the board, by status.", []string{"status"}, nil),
		last:      prometheus.NewDesc("bb_last_event_seq", "Sequence number of the newest timeline event.", nil, nil),
	}
}

func (c *boardCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.dbUp, c.agents, c.attention, c.tasks, c.last} {
		ch <- d
	}
}

// scrapeTimeout bounds the board reads of one scrape.
const scrapeTimeout = 5 * time.Second

func (c *boardCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	svc := c.s.svc
	info, err := svc.Info(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.dbUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.dbUp, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, float64(info.LastEventSeq))
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); c.cached == nil || now.Sub(c.readAt) >= boardGaugesFor {
		c.cached = c.counts(ctx)
		c.readAt = now
	}
	for _, m := range c.cached {
		ch <- m
	}
}

// counts reads the board's gauges: agents by presence, what waits for a
// person, tasks by status (a gauge whose read failed is left out).
func (c *boardCollector) counts(ctx context.Context) []prometheus.Metric {
	svc := c.s.svc
	var out []prometheus.Metric
	add := func(m prometheus.Metric) { out = append(out, m) }
	if agents, err := svc.ListAgentInfos(ctx, hub.AgentQuery{}); err == nil {
		n := map[hub.Presence]int{}
		for _, a := range agents {
			n[a.Presence]++
		}
		for _, p := range hub.Presences {
			add(prometheus.MustNewConstMetric(c.agents, prometheus.GaugeValue, float64(n[p]), string(p)))
		}
	}
	if att, err := svc.Attention(ctx, overview.AttentionFilter{}); err == nil {
		type key struct {
			kind string
			esc  bool
		}
		n := map[key]int{}
		for _, it := range att.Items {
			if it.Kind == overview.AttentionHandoff || it.Kind == overview.AttentionBlocked {
				n[key{it.Kind, it.Escalated}]++
			}
		}
		for _, k := range []string{overview.AttentionHandoff, overview.AttentionBlocked} {
			for _, e := range []bool{false, true} {
				add(prometheus.MustNewConstMetric(c.attention, prometheus.GaugeValue, float64(n[key{k, e}]), k, boolLabel(e)))
			}
		}
	}
	if tasks, err := svc.ListTasks(ctx, hub.TaskFilter{}); err == nil {
		n := map[string]int{}
		for _, t := range tasks {
			n[t.Status]++
		}
		for _, st := range hub.TaskStatuses {
			add(prometheus.MustNewConstMetric(c.tasks, prometheus.GaugeValue, float64(n[st]), st))
		}
	}
	return out
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// writeKind names a successful POST for bb_writes_total: the RPC method,
// or the API resource ("messages", "status/clear"), or the dashboard's
// action ("ui/post").
func (s *Server) writeKind(route string, r *http.Request) string {
	if route == rpcRoute {
		if m := r.PathValue("method"); s.rpcs[m].Name != "" {
			return m
		}
		return "rpc"
	}
	_, path, _ := strings.Cut(route, " ")
	path = strings.TrimPrefix(path, "/api/v1/")
	path = strings.TrimPrefix(path, "/")
	if i := strings.Index(path, "/{"); i >= 0 {
		path = path[:i]
	}
	return path
}
