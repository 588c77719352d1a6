package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server"

	_ "modernc.org/sqlite"
)

const opsToken = "ops-token-0123456789abcdef"

func get(t *testing.T, url, token string) (*http.Response, []byte) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// The probes answer without a credential on a server that has a token,
// and say nothing about the board.
func TestProbesNeedNoCredential(t *testing.T) {
	e := newEnv(t, withToken(opsToken))
	run(t, e.dir, "--as", "alice", "post", "a secret plan")
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, body := get(t, e.http.URL+p, "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
		}
		if strings.Contains(string(body), "secret") || strings.Contains(string(body), "alice") {
			t.Fatalf("%s leaks board data: %s", p, body)
		}
	}
	// The API itself still needs the token.
	if resp, _ := get(t, e.http.URL+"/api/v1/status", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status without a token: %d", resp.StatusCode)
	}
}

// readyz is 503 with the reason once the database's schema is not this
// binary's (a newer bb migrated it).
func TestReadyzSaysWhyNotReady(t *testing.T) {
	e := newEnv(t)
	if resp, body := get(t, e.http.URL+"/readyz", ""); resp.StatusCode != 200 {
		t.Fatalf("readyz: %d %s", resp.StatusCode, body)
	}
	db, err := sql.Open("sqlite", filepath.Join(e.dir, ".bb", "blackboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("PRAGMA user_version = 9999"); err != nil {
		t.Fatal(err)
	}
	resp, body := get(t, e.http.URL+"/readyz", "")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"SCHEMA_TOO_NEW"`) {
		t.Fatalf("readyz on a newer schema: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, e.http.URL+"/healthz", ""); resp.StatusCode != 200 {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
}

// parseScrape parses a /metrics reply with Prometheus' own text parser.
func parseScrape(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("scrape does not parse: %v\n%s", err, body)
	}
	return fams
}

func counterWith(f *dto.MetricFamily, labels map[string]string) float64 {
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		for k, v := range labels {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// /metrics is the operator's: parsed with expfmt, it counts requests by
// route and code, writes by kind, refusals, and the board's gauges.
func TestMetricsScrape(t *testing.T) {
	e := newEnv(t, withToken(opsToken))
	e.token = opsToken
	for i := 0; i < 3; i++ {
		if st, env := e.do(req{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":"hello"}`}); st != 200 {
			t.Fatalf("post: %d %+v", st, env.Error)
		}
	}
	// An idempotent retry is a replay.
	for i := 0; i < 2; i++ {
		e.do(req{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":"once"}`, header: map[string]string{"Idempotency-Key": "k-1"}})
	}
	if resp, _ := get(t, e.http.URL+"/api/v1/status", "wrong-token-0123456789"); resp.StatusCode != 401 {
		t.Fatalf("wrong token: %d", resp.StatusCode)
	}
	if resp, _ := get(t, e.http.URL+"/metrics", ""); resp.StatusCode != 401 {
		t.Fatalf("metrics without the token: %d", resp.StatusCode)
	}
	// An agent's credential may not read the metrics.
	out := run(t, e.dir, "--json", "token", "create", "--agent", "alice")
	var created struct {
		Data struct{ Token string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Data.Token == "" {
		t.Fatalf("token create: %s", out)
	}
	if resp, _ := get(t, e.http.URL+"/metrics", created.Data.Token); resp.StatusCode != 403 {
		t.Fatalf("metrics with an agent's credential: %d", resp.StatusCode)
	}
	resp, body := get(t, e.http.URL+"/metrics", opsToken)
	if resp.StatusCode != 200 {
		t.Fatalf("metrics: %d %s", resp.StatusCode, body)
	}
	fams := parseScrape(t, body)
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"bb_http_requests_total", map[string]string{"route": "POST /api/v1/messages", "code": "200"}, 5},
		{"bb_http_request_duration_seconds", map[string]string{"route": "POST /api/v1/messages"}, 5},
		{"bb_writes_total", map[string]string{"kind": "messages"}, 5},
		{"bb_idempotent_replays_total", nil, 1},
		{"bb_credential_refusals_total", map[string]string{"reason": "unauthorized"}, 2},
		{"bb_database_up", nil, 1},
		{"bb_agents", map[string]string{"presence": "active"}, 1},
		{"bb_open_streams", map[string]string{"kind": "wait"}, 0},
		{"bb_tasks", map[string]string{"status": "pending"}, 0},
	}
	for _, c := range checks {
		if got := counterWith(fams[c.name], c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for name := range fams {
		if strings.HasPrefix(name, "bb_") && strings.HasSuffix(name, "_total") && fams[name].GetType() != dto.MetricType_COUNTER {
			t.Errorf("%s ends in _total but is a %s", name, fams[name].GetType())
		}
	}
	// A waiter (POST /api/v1/wait) held open counts in the gauge until
	// what it waits for arrives.
	openWaiters := func() float64 {
		_, body := get(t, e.http.URL+"/metrics", opsToken)
		return counterWith(parseScrape(t, body)["bb_open_streams"], map[string]string{"kind": "wait"})
	}
	waited := make(chan envelope, 1)
	go func() {
		_, env := e.do(req{method: "POST", path: "/api/v1/wait", agent: "alice", body: `{"timeout_s":600}`})
		waited <- env
	}()
	for deadline := time.Now().Add(time.Minute); openWaiters() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("open waiters = %v while a wait is held, want 1", openWaiters())
		}
	}
	if _, _, err := e.svc.RegisterAgent(context.Background(), hub.RegisterInput{ID: "bob", Role: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SendMail(context.Background(), hub.SendInput{From: "bob", To: "alice", BeadID: "bb-1", Category: hub.CategoryHandoff, Subject: "yours", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	if env := <-waited; !env.OK {
		t.Fatalf("wait: %+v", env.Error)
	}
	if got := openWaiters(); got != 0 {
		t.Errorf("open waiters = %v after the wait returned, want 0", got)
	}
}

// A credential past its budget gets 429 RATE_LIMITED with Retry-After,
// counted; hooks and the dashboard are not held back, nor other agents.
func TestFairUse(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.Rate, c.Burst = 0.001, 3 })
	for i := 0; i < 3; i++ {
		if st, env := e.do(req{method: "GET", path: "/api/v1/status", agent: "loop"}); st != 200 {
			t.Fatalf("request %d: %d %+v", i, st, env.Error)
		}
	}
	resp := e.raw(req{method: "GET", path: "/api/v1/status", agent: "loop"})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), `"RATE_LIMITED"`) {
		t.Fatalf("over budget: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	// Another agent has its own budget.
	if st, _ := e.do(req{method: "GET", path: "/api/v1/status", agent: "other"}); st != 200 {
		t.Fatalf("another agent: %d", st)
	}
	// The dashboard and a hook call of the same agent still answer.
	if resp := e.raw(req{method: "GET", path: "/ui/agents", agent: "loop"}); resp.StatusCode != 200 {
		t.Fatalf("dashboard fragment: %d", resp.StatusCode)
	}
	if resp := e.raw(req{method: "POST", path: "/api/v1/rpc/GetHookSettings", agent: "loop", body: `[]`}); resp.StatusCode == http.StatusTooManyRequests {
		t.Fatal("a hook call was rate limited")
	}
	_, body := get(t, e.http.URL+"/metrics", "")
	fams := parseScrape(t, body)
	if got := counterWith(fams["bb_rate_limited_total"], nil); got != 1 {
		t.Errorf("bb_rate_limited_total = %v, want 1", got)
	}
	if got := counterWith(fams["bb_hook_calls_total"], map[string]string{"method": "GetHookSettings"}); got != 1 {
		t.Errorf("hook calls = %v, want 1", got)
	}
}

// loadOpenAPI loads and validates the served document with kin-openapi.
func loadOpenAPI(t *testing.T, e *env) *openapi3.T {
	t.Helper()
	resp, body := get(t, e.http.URL+"/api/v1/openapi.json", e.token)
	if resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %d", resp.StatusCode)
	}
	doc, err := openapi3.NewLoader().LoadFromData(body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document does not validate: %v", err)
	}
	return doc
}

// Every route the server registers under /api/ (and the probes and the
// scrape) is described, and every described route exists.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	e := newEnv(t)
	doc := loadOpenAPI(t, e)
	var registered []string
	for _, p := range e.srv.Routes() {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			continue // any-method catch-alls: /api/ (404), /mcp
		}
		if !strings.HasPrefix(path, "/api/") && path != server.HealthPath && path != server.ReadyPath && path != server.MetricsPath {
			continue // the dashboard (HTML), not the API
		}
		path = strings.Replace(path, "{path...}", "{path}", 1)
		registered = append(registered, method+" "+path)
	}
	var described []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			described = append(described, method+" "+path)
		}
	}
	sort.Strings(registered)
	sort.Strings(described)
	for _, r := range registered {
		if !slices.Contains(described, r) {
			t.Errorf("registered but not described in openapi.json: %s", r)
		}
	}
	for _, d := range described {
		if !slices.Contains(registered, d) {
			t.Errorf("described in openapi.json but not registered: %s", d)
		}
	}
}

// Real replies of the server validate against the document (kin-openapi's
// request and response validation).
func TestOpenAPIRepliesValidate(t *testing.T) {
	e := newEnv(t)
	doc := loadOpenAPI(t, e)
	doc.Servers = openapi3.Servers{{URL: e.http.URL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	cases := []req{
		{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":"hello","tags":["x"]}`},
		{method: "GET", path: "/api/v1/messages?limit=5"},
		{method: "GET", path: "/api/v1/status"},
		{method: "GET", path: "/api/v1/messages/999"},
		{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":""}`},
		{method: "GET", path: "/api/v1/info"},
		{method: "GET", path: "/healthz"},
		{method: "GET", path: "/readyz"},
	}
	for _, c := range cases {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		hr, _ := http.NewRequest(c.method, e.http.URL+c.path, body)
		if c.body != "" {
			hr.Header.Set("Content-Type", "application/json")
		}
		if c.agent != "" {
			hr.Header.Set(server.AgentHeader, c.agent)
		}
		route, params, err := router.FindRoute(hr)
		if err != nil {
			t.Fatalf("%s %s: no route in the document: %v", c.method, c.path, err)
		}
		in := &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if c.body != "" {
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("%s %s: request does not validate: %v", c.method, c.path, err)
			}
			hr.Body = io.NopCloser(strings.NewReader(c.body))
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
			Body: io.NopCloser(bytes.NewReader(rb)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s %s: reply %d does not validate: %v\n%s", c.method, c.path, resp.StatusCode, err, rb)
		}
	}
}
