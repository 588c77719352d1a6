package bb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/gitrepo"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/loadgen"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
	"github.com/blackboard-hub/bb/internal/server"
	"github.com/blackboard-hub/bb/internal/view"
)

func (a *app) serveCmd() *cobra.Command {
	var addr, token string
	var waitDB time.Duration
	var webhooks []string
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the board over HTTP: JSON API, live events, the Sessions dashboard",
		Long: `Run one long-lived server over this project's board:

  /                        the Sessions dashboard (live, no refresh needed)
  /api/v1/...              the JSON API (the bb --json envelope)
  /api/v1/events/stream    every new event as Server-Sent Events
  /mcp                     the bb mcp tools over MCP streamable HTTP

It listens on 127.0.0.1:7777 by default. Listening on any other address
needs a token (--token or $BB_TOKEN), checked on every request: send
"Authorization: Bearer <token>", or open the dashboard once with
?token=<token>. Other bb processes, agents and tools keep using the same
database while it runs.

A database server (BB_DATABASE_URL) that cannot be reached at start is
waited for, up to --wait-db, with a message on stderr. While it runs, an
unreachable database answers 503 DATABASE_UNAVAILABLE (with Retry-After)
and the server reconnects by itself. SIGINT or SIGTERM stop it gracefully:
no new connections, event streams closed, requests in progress answered
(at most 10 s), exit 0. See docs/serve.md.

Operating it for a team (docs/ops.md): /healthz and /readyz answer probes
without a credential; /metrics is Prometheus' text format (the operator's,
or on --metrics-addr without a credential); --log-format json writes one
JSON line per request; each credential may send --rate requests per second
(--burst at once) before it gets 429 RATE_LIMITED with Retry-After; every
--retention-every it forgets what the board's retention.* settings say
(bb config), in small batches.`,
		Example: `  bb serve
  bb serve --addr 0.0.0.0:7777 --token "$(openssl rand -hex 16)"
  bb serve --log-format json --metrics-addr 127.0.0.1:9777
  curl -s localhost:7777/api/v1/status
  curl -s localhost:7777/readyz`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = a.env.Getenv("BB_TOKEN") // kept as given: a blank token is refused, not ignored
			}
			if err := server.CheckBind(addr, token); err != nil {
				return err
			}
			if err := checkWebhooks(webhooks); err != nil {
				return err
			}
			if err := o.check(); err != nil {
				return err
			}
			a.logFormat = o.logFormat
			a.longLived, a.serving = true, true
			svc, err := a.waitService(cmd.Context(), waitDB)
			if err != nil {
				return err
			}
			// The board learns its repository from the server's own
			// checkout, before any clone calls (a board outside git
			// takes the first fingerprint a client sends).
			// A shallow checkout cannot tell its repository: the first
			// whole clone that calls does.
			if r, ok, err := gitrepo.FromEnv(a.env.Getenv, svc.Root()); ok && err == nil && r.Top != "" {
				if id := gitrepo.ID(cmd.Context(), r); id != gitrepo.ShallowID {
					if _, err := svc.ClaimRepository(cmd.Context(), id); err != nil {
						return err
					}
				}
			}
			o.addr, o.token, o.webhooks = addr, token, webhooks
			return a.runServer(cmd.Context(), svc, o)
		},
	}
	c.Flags().StringArrayVar(&webhooks, "webhook", nil, "POST what needs a person to this URL, as bb notify does (repeatable; docs/terminal.md)")
	c.AddCommand(a.serveBenchCmd())
	c.Flags().StringVar(&addr, "addr", server.DefaultAddr, "host:port to listen on (non-loopback needs --token)")
	c.Flags().StringVar(&token, "token", "", "require this bearer token on every request (default $BB_TOKEN)")
	c.Flags().DurationVar(&waitDB, "wait-db", time.Minute, "at start, how long to wait for a database server that cannot be reached (0: do not wait)")
	c.Flags().StringVar(&o.logFormat, "log-format", "text", "log lines on stderr: text or json (log/slog); one per request and per background job")
	c.Flags().StringVar(&o.metricsAddr, "metrics-addr", "", "also serve /metrics on this host:port, without a credential (for a Prometheus scraper)")
	c.Flags().Float64Var(&o.rate, "rate", server.DefaultRate, "requests per second each credential may send (fair use; a negative value turns the budget off)")
	c.Flags().IntVar(&o.burst, "burst", server.DefaultBurst, "requests a credential may send at once before --rate applies")
	c.Flags().DurationVar(&o.retentionEvery, "retention-every", 10*time.Minute, "how often to apply the board's retention.* settings (0: never; bb clear --events-before does it by hand)")
	return c
}

// serveOptions are bb serve's settings beyond its address and token.
type serveOptions struct {
	addr, token    string
	webhooks       []string
	logFormat      string
	metricsAddr    string
	rate           float64
	burst          int
	retentionEvery time.Duration
}

// check refuses settings that cannot work, before anything starts.
func (o *serveOptions) check() error {
	switch o.logFormat {
	case "", "text", "json":
	default:
		return hub.FieldErr(hub.CodeInvalidInput, "log-format", "--log-format %q: expected text or json", o.logFormat)
	}
	if o.metricsAddr != "" {
		if _, _, err := net.SplitHostPort(o.metricsAddr); err != nil {
			return hub.FieldErr(hub.CodeInvalidInput, "metrics-addr", "invalid --metrics-addr %q: expected host:port such as 127.0.0.1:9777", o.metricsAddr)
		}
	}
	if o.burst < 1 {
		return hub.FieldErr(hub.CodeInvalidInput, "burst", "--burst must be at least 1, got %d", o.burst)
	}
	if o.rate == 0 {
		return hub.FieldErr(hub.CodeInvalidInput, "rate", "--rate 0 would refuse every request: give requests per second (a negative value turns the budget off)")
	}
	if o.retentionEvery < 0 {
		return hub.FieldErr(hub.CodeInvalidInput, "retention-every", "--retention-every must not be negative")
	}
	return nil
}

// waitService opens the board; a database that cannot be reached
// (DATABASE_UNAVAILABLE: a PostgreSQL server still starting, or restarting)
// is tried again every half second for up to wait, with one line on
// stderr saying so.
func (a *app) waitService(ctx context.Context, wait time.Duration) (core.API, error) {
	deadline := time.Now().Add(wait)
	told := false
	for {
		svc, err := a.localService(ctx)
		if err == nil || !hub.IsCode(err, hub.CodeDatabaseUnavailable) || !time.Now().Before(deadline) {
			if err != nil && told {
				return nil, &hub.Error{Code: hub.CodeDatabaseUnavailable, Err: err,
					Message: fmt.Sprintf("%s (waited %s; see --wait-db)", hub.MessageOf(err), wait)}
			}
			return svc, err
		}
		if !told {
			fmt.Fprintf(a.env.Stderr, "bb serve: %s\nbb serve: waiting up to %s for the database (Ctrl+C to stop)\n", hub.MessageOf(err), wait)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// serveBenchCmd is the load generator of BENCHMARKS.md: it starts a real
// `bb serve` child process on a fresh temporary board, drives it with
// concurrent clients through the HTTP API and reports latency, throughput,
// SSE delivery delay and the server's peak RSS.
// benchFlags are bb serve bench's flags.
type benchFlags struct {
	clients, rounds int
	dur             time.Duration
	url, token      string
	creds           bool
}

func (a *app) serveBenchCmd() *cobra.Command {
	var fl benchFlags
	c := &cobra.Command{
		Use:    "bench",
		Short:  "Load-test bb serve: concurrent clients posting and reading through the API",
		Hidden: true,
		Args:   usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runServeBench(cmd.Context(), &fl)
		},
	}
	f := c.Flags()
	f.IntVar(&fl.clients, "clients", 50, "concurrent clients")
	f.DurationVar(&fl.dur, "duration", 10*time.Second, "how long to run")
	f.StringVar(&fl.url, "url", "", "bench an already running server instead of starting one")
	f.StringVar(&fl.token, "token", "", "token of the server given by --url")
	f.BoolVar(&fl.creds, "credentials", false, "compare the operator's token with one agent credential per client, in interleaved rounds on one server")
	f.IntVar(&fl.rounds, "rounds", 8, "with --credentials: rounds, alternating operator and agent credentials (--duration is split among them)")
	return c
}

// runServeBench is bb serve bench's body: without --url it starts a bb
// serve on a new board in a temporary directory, then runs the load (or,
// with --credentials, the rounds comparing tokens) and reports.
func (a *app) runServeBench(ctx context.Context, fl *benchFlags) error {
	var pid int
	var clientTokens []string
	if fl.url == "" {
		dir, err := os.MkdirTemp("", "bb-serve-bench-")
		if err != nil {
			return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create a temporary directory", Err: err}
		}
		defer os.RemoveAll(dir)
		srv, tokens, err := a.benchStartServer(ctx, dir, fl)
		if err != nil {
			return err
		}
		defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
		pid, clientTokens = srv.Process.Pid, tokens
	}
	if fl.creds {
		if clientTokens == nil {
			return usageErr{errorString("--credentials starts its own server: drop --url")}
		}
		return a.benchCredentials(ctx, fl.url, fl.token, clientTokens, fl.clients, fl.rounds, fl.dur)
	}
	fmt.Fprintf(a.env.Stderr, "bench: %d clients for %s against %s\n", fl.clients, fl.dur, fl.url)
	rep, err := loadgen.Run(ctx, loadgen.Config{URL: fl.url, Token: fl.token, Clients: fl.clients, Duration: fl.dur})
	if err != nil {
		return hub.Errorf(hub.CodeInternal, "load test: %v", err)
	}
	rss := ""
	if pid != 0 {
		rss = peakRSS(pid)
	}
	if a.g.json {
		writeJSON(a.env.Stdout, view.Envelope{OK: true, Command: "serve bench", Data: map[string]any{"report": rep, "server_peak_rss": rss}})
		return nil
	}
	fmt.Fprint(a.env.Stdout, rep.String())
	if rss != "" {
		fmt.Fprintf(a.env.Stdout, "server peak RSS %s\n", rss)
	}
	return nil
}

// benchStartServer makes a board in dir and starts a bb serve on it, on a
// free local port, without the fair-use budget; it sets fl.url to it once
// it answers. With --credentials it creates one agent credential per client
// (returned) and gives the server a new operator token (fl.token).
func (a *app) benchStartServer(ctx context.Context, dir string, fl *benchFlags) (*exec.Cmd, []string, error) {
	exe := a.env.Exe
	if exe == "" {
		exe, _ = os.Executable()
	}
	if out, err := exec.CommandContext(ctx, exe, "--dir", dir, "init").CombinedOutput(); err != nil {
		return nil, nil, hub.Errorf(hub.CodeInternal, "bb init: %v: %s", err, out)
	}
	var clientTokens []string
	if fl.creds {
		// One agent credential per client; the server gets an
		// operator token.
		var raw [16]byte
		_, _ = rand.Read(raw[:])
		fl.token = hex.EncodeToString(raw[:])
		var err error
		if clientTokens, err = benchAgentTokens(ctx, exe, dir, fl.clients); err != nil {
			return nil, nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, hub.Errorf(hub.CodeInternal, "find a free port: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// The fair-use budget is off: a load test measures what the
	// server can take, not the brake on one runaway client.
	srv := exec.CommandContext(ctx, exe, "--dir", dir, "-q", "serve", "--addr", addr, "--rate", "-1")
	if fl.token != "" {
		srv.Env = append(os.Environ(), "BB_TOKEN="+fl.token)
	}
	srv.Stderr = a.env.Stderr
	if err := srv.Start(); err != nil {
		return nil, nil, hub.Errorf(hub.CodeInternal, "start bb serve: %v", err)
	}
	fl.url = "http://" + addr
	if err := waitUp(ctx, fl.url); err != nil {
		_ = srv.Process.Kill()
		_ = srv.Wait()
		return nil, nil, err
	}
	return srv, clientTokens, nil
}

// benchAgentTokens creates one agent credential per client on the board in
// dir (agents load-00, load-01, …).
func benchAgentTokens(ctx context.Context, exe, dir string, clients int) ([]string, error) {
	var tokens []string
	for c := 0; c < clients; c++ {
		out, err := exec.CommandContext(ctx, exe, "--dir", dir, "--json", "token", "create", "--agent", fmt.Sprintf("load-%02d", c)).Output()
		var env struct {
			Data struct {
				Token string `json:"token"`
			} `json:"data"`
		}
		if err != nil || json.Unmarshal(out, &env) != nil || env.Data.Token == "" {
			return nil, hub.Errorf(hub.CodeInternal, "bb token create: %v: %s", err, out)
		}
		tokens = append(tokens, env.Data.Token)
	}
	return tokens, nil
}

// benchCredentials runs rounds of the load alternately (ABBA) with the
// operator's token and with one agent credential per client, on the same
// server, and reports posts/s of each and their ratio.
func (a *app) benchCredentials(ctx context.Context, url, operator string, tokens []string, clients, rounds int, dur time.Duration) error {
	if rounds < 2 {
		rounds = 2
	}
	var posts [2]int64
	var spent [2]time.Duration
	per := dur / time.Duration(rounds)
	for r := 0; r < rounds; r++ {
		// ABBA order: neither mode always runs first (warm-up) or later
		// (a larger board).
		mode := [4]int{0, 1, 1, 0}[r%4]
		// Identified reads in both modes: a credential's read is its
		// agent's (cursor and check-in), so the operator's must be too for
		// the two to do the same work.
		cfg := loadgen.Config{URL: url, Token: operator, Clients: clients, Duration: per, IdentifiedReads: true}
		if mode == 1 {
			cfg.ClientTokens = tokens
		}
		rep, err := loadgen.Run(ctx, cfg)
		if err != nil {
			return hub.Errorf(hub.CodeInternal, "load test: %v", err)
		}
		if rep.Errors != 0 {
			return hub.Errorf(hub.CodeInternal, "load test: %d errors: %s", rep.Errors, rep.FirstErrorMsg)
		}
		posts[mode] += rep.Posts
		spent[mode] += rep.Duration
	}
	op := float64(posts[0]) / spent[0].Seconds()
	ag := float64(posts[1]) / spent[1].Seconds()
	data := map[string]any{"operator_posts_per_sec": op, "agent_posts_per_sec": ag, "ratio": ag / op, "rounds": rounds, "clients": clients}
	if a.g.json {
		writeJSON(a.env.Stdout, view.Envelope{OK: true, Command: "serve bench", Data: data})
		return nil
	}
	fmt.Fprintf(a.env.Stdout, "operator token      %.0f posts/s\nagent credentials   %.0f posts/s\nratio (agent/operator) %.3f over %d interleaved rounds\n", op, ag, ag/op, rounds)
	return nil
}

func waitUp(ctx context.Context, url string) error {
	for i := 0; i < 100; i++ {
		resp, err := http.Get(url + "/api/v1/events?limit=1")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return hub.Errorf(hub.CodeInternal, "bb serve did not come up at %s", url)
}

// peakRSS reads the high-water mark of a process's resident memory (Linux).
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// serveDir serves the board in dir (bb demo --serve).
func (a *app) serveDir(ctx context.Context, dir, addr string) error {
	if err := server.CheckBind(addr, ""); err != nil {
		return err
	}
	a.g.dir = dir
	a.longLived, a.serving = true, true
	svc, err := a.localService(ctx)
	if err != nil {
		return err
	}
	return a.runServer(ctx, svc, serveOptions{addr: addr, rate: server.DefaultRate, burst: server.DefaultBurst})
}

// runServer runs bb serve over svc until ctx ends, printing where it listens.
func (a *app) runServer(ctx context.Context, svc core.API, o serveOptions) error {
	addr, token := o.addr, o.token
	a.logFormat = o.logFormat
	lg := a.logger()
	ms, err := bbmcp.New(svc, bbmcp.Options{Version: Version})
	if err != nil {
		return err
	}
	mcpHandler := ms.HTTPHandler(bbmcp.HTTPOptions{SessionTimeout: 30 * time.Minute})
	srv, err := server.New(server.Config{Service: svc, Addr: addr, Token: token, Log: lg, MCP: mcpHandler,
		Commands: a.commandRunner(svc), CommandNames: a.remoteCommands(),
		RequestLog: true, MetricsAddr: o.metricsAddr, Rate: o.rate, Burst: o.burst})
	if err != nil {
		return err
	}
	defer a.startNotify(ctx, svc, o.webhooks, "http://"+addr+"/", srv.WebhookDelivered)()
	defer a.startRetention(ctx, svc, srv, lg, o.retentionEvery)()
	return listenHint(srv.Run(ctx, func(bound string) {
		url := "http://" + bound + "/"
		if a.g.json {
			writeJSON(a.env.Stdout, view.Envelope{OK: true, Command: "serve", Data: map[string]any{
				"url": url, "api": url + "api/v1/", "mcp": url + "mcp", "project_dir": svc.Root(), "auth": token != ""}})
			return
		}
		fmt.Fprintf(a.env.Stdout, "Blackboard is serving %s\n  dashboard  %s\n  API        %sapi/v1/\n  events     %sapi/v1/events/stream\n  MCP        %smcp\n", svc.Root(), url, url, url, url)
		if o.metricsAddr != "" {
			fmt.Fprintf(a.env.Stdout, "  metrics    http://%s/metrics\n", o.metricsAddr)
		}
		if token != "" {
			fmt.Fprintf(a.env.Stdout, "  auth       Authorization: Bearer <token> (browser: open %s?token=<token> once)\n", url)
		}
		fmt.Fprintln(a.env.Stdout, "Press Ctrl+C to stop.")
	}), addr, o.metricsAddr)
}

// listenHint adds the way out to bb serve's failure to listen on a taken
// address: stop what listens there, or choose another with --addr.
func listenHint(err error, addr, metricsAddr string) error {
	var he *hub.Error
	if !errors.As(err, &he) || !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	flag, other := "--addr", nextPort(addr)
	if he.Field == "metrics_addr" {
		flag, other = "--metrics-addr", nextPort(metricsAddr)
	}
	hint := fmt.Sprintf("%s; another program (perhaps another bb serve) is listening there: stop it, or serve on another address with %s", he.Message, flag)
	if other != "" {
		hint += " " + other
	}
	return &hub.Error{Code: he.Code, Field: he.Field, Message: hint, Err: he.Err}
}

// nextPort is addr with the port after its own ("127.0.0.1:7778" for
// 127.0.0.1:7777), "" when addr has no numeric port.
func nextPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n >= 65535 {
		return ""
	}
	return net.JoinHostPort(host, strconv.Itoa(n+1))
}

// logger is the diagnostic log of a long-lived command (bb serve, bb mcp):
// text lines on stderr; -q keeps warnings and errors only.
func (a *app) logger() *slog.Logger {
	lvl := slog.LevelInfo
	if a.g.quiet {
		lvl = slog.LevelWarn
	}
	if a.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(a.env.Stderr, &slog.HandlerOptions{Level: lvl}))
	}
	return slog.New(slog.NewTextHandler(a.env.Stderr, &slog.HandlerOptions{Level: lvl}))
}

// commandRunner runs bb commands in-process on svc for the server's
// POST /api/v1/command: --json, acting as the given agent, with the
// server's environment (BB_SERVER cleared) and no stdin.
func (a *app) commandRunner(svc core.API) server.CommandRunner {
	return func(ctx context.Context, agent string, args []string) []byte {
		var out, errb bytes.Buffer
		env := a.env
		env.Stdin, env.Stdout, env.Stderr = strings.NewReader(""), &out, &errb
		env.StdinTerminal, env.StdinClosed = false, true
		env.Getwd = func() (string, error) { return svc.Root(), nil }
		parent := a.env.Getenv
		env.Getenv = func(k string) string {
			switch k {
			case EnvServer, "BB_TOKEN", "BB_AGENT_ID", "BB_DIR":
				return ""
			}
			return parent(k)
		}
		c := newApp(env)
		c.local, c.api = svc, svc
		full := []string{"--json"}
		if agent != "" {
			full = append(full, "--as", agent)
		}
		c.run(ctx, append(full, args...))
		return out.Bytes()
	}
}
