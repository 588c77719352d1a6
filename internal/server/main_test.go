package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server"
	"github.com/blackboard-hub/bb/internal/testkit"
)

// bbBin is the real bb binary, built once for the package.
var bbBin string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb", "vybe", "agent-mail"}, Built: func(dir string) { bbBin = filepath.Join(dir, "bb") }})
}

// env is one test's board, service and running server.
type env struct {
	t    testing.TB
	dir  string
	svc  app.API
	srv  *server.Server
	http *httptest.Server
	// token sent on every request when set.
	token string
}

// envConfig is what a test's options change before the server starts.
type envConfig struct {
	server.Config
	// dir is the project directory of the board.
	dir string
	// clock is the service's clock (nil: the system clock).
	clock hub.Clock
}

type opt func(*envConfig)

func withToken(tok string) opt { return func(c *envConfig) { c.Token = tok } }

// withDir serves the board of an existing project directory.
func withDir(dir string) opt { return func(c *envConfig) { c.dir = dir } }

// withClock fixes the service's clock (what BB_NOW does for a CLI process).
func withClock(t time.Time) opt {
	return func(c *envConfig) { c.clock = hub.FixedClock{T: t} }
}

// stepClock is a service clock that stands still until the test moves it,
// so a rule that falls due in time (an escalation) does so when the test
// says, not when a loaded machine gets there.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.UTC()
}

// advance moves the clock on by d.
func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// withStepClock gives the service the test's clock.
func withStepClock(c *stepClock) opt {
	return func(cfg *envConfig) { cfg.clock = c }
}

// openBoard opens the board of project dir.
func openBoard(t testing.TB, dir string, clock hub.Clock) app.API {
	t.Helper()
	b, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), ProjectRoot: dir, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b.API
}

// newEnvB starts a server for a benchmark.
func newEnvB(b *testing.B) *httptest.Server {
	dir := b.TempDir()
	if out, err := exec.Command(bbBin, "--dir", dir, "init").CombinedOutput(); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	srv, err := server.New(server.Config{Service: openBoard(b, dir, nil), Rate: -1}) // a benchmark measures the server, not the fair-use brake
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(func() { hs.CloseClientConnections(); hs.Close(); cancel() })
	return hs
}

// newEnvWithCommands is newEnv with POST /api/v1/command wired to the
// real bb binary (the CLI form wires bb's in-process runner).
func newEnvWithCommands(t testing.TB) *env {
	return newEnv(t, func(c *envConfig) {
		dir := c.dir
		// What bb's command tree marks remote (cli/bb topCommands), as far
		// as these tests use it.
		c.CommandNames = []string{"agent", "events", "log", "post", "status", "task"}
		c.Commands = func(ctx context.Context, agent string, args []string) []byte {
			full := []string{"--json"}
			if agent != "" {
				full = append(full, "--as", agent)
			}
			cmd := exec.CommandContext(ctx, bbBin, append(full, args...)...)
			cmd.Dir = dir
			cmd.Env = filteredEnv()
			out, _ := cmd.Output()
			return out
		}
	})
}

func newEnv(t testing.TB, opts ...opt) *env {
	t.Helper()
	cfg := envConfig{dir: t.TempDir()}
	for _, o := range opts {
		o(&cfg)
	}
	dir := cfg.dir
	if _, err := os.Stat(filepath.Join(dir, ".bb")); err != nil {
		run(t, dir, "init")
	}
	svc := openBoard(t, dir, cfg.clock)
	cfg.Service = svc
	srv, err := server.New(cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close(); cancel() })
	return &env{t: t, dir: dir, svc: svc, srv: srv, http: hs, token: cfg.Token}
}

// run runs the bb binary in dir and returns stdout; it fails the test on a
// non-zero exit.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, errOut, code := runCode(t, dir, nil, args...)
	if code != 0 {
		t.Fatalf("bb %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func runCode(t testing.TB, dir string, extraEnv []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bbBin, args...)
	cmd.Dir = dir
	cmd.Env = append(filteredEnv(), extraEnv...)
	out, errb, code := testkit.Run(t, cmd)
	return out, errb, code
}

func filteredEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "BB_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

type envelope struct {
	OK      bool            `json:"ok"`
	Command string          `json:"command"`
	Data    json.RawMessage `json:"data"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
	Notices *hub.Notices `json:"notices"`
}

type req struct {
	method string
	path   string
	body   string
	agent  string
	header map[string]string
}

// do sends r and decodes the envelope; it returns the HTTP status too.
func (e *env) do(r req) (int, envelope) {
	e.t.Helper()
	resp := e.raw(r)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		e.t.Fatalf("%s %s: not an envelope (%d): %s", r.method, r.path, resp.StatusCode, b)
	}
	return resp.StatusCode, env
}

func (e *env) raw(r req) *http.Response {
	e.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequest(r.method, e.http.URL+r.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.agent != "" {
		hr.Header.Set(server.AgentHeader, r.agent)
	}
	if e.token != "" {
		hr.Header.Set("Authorization", "Bearer "+e.token)
	}
	for k, v := range r.header {
		if k == "Host" {
			hr.Host = v
			continue
		}
		hr.Header.Set(k, v)
	}
	resp, err := e.http.Client().Do(hr)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

func (e *env) ok(r req, into any) envelope {
	e.t.Helper()
	code, env := e.do(r)
	if code != http.StatusOK || !env.OK {
		e.t.Fatalf("%s %s: status %d, envelope %+v %+v", r.method, r.path, code, env, env.Error)
	}
	if into != nil {
		if err := json.Unmarshal(env.Data, into); err != nil {
			e.t.Fatalf("decode data: %v: %s", err, env.Data)
		}
	}
	return env
}
