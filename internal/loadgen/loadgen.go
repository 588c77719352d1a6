// Package loadgen is the load generator behind `bb serve bench`: concurrent
// HTTP clients posting to and reading from a running bb serve, with one SSE
// subscriber measuring event delivery. It talks to the server over HTTP
// only.
package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blackboard-hub/bb/internal/server/wire"
)

// Config drives Run, the load generator behind `bb serve bench`.
type Config struct {
	URL      string // base URL of a running bb serve
	Token    string
	Clients  int           // concurrent clients (default 50)
	Duration time.Duration // how long to post (default 10s)
	// ReadEvery makes each client read the log after every n posts
	// (default 4; 0 keeps the default, negative disables reads).
	ReadEvery int
	// ClientTokens, when set, are the bearer tokens of the clients (one
	// per client: each an agent's credential for load-NN); Token is then
	// the subscriber's only.
	ClientTokens []string
	// IdentifiedReads makes each client read as its agent (X-BB-Agent),
	// which moves its read cursor and checks it in, as a read made with an
	// agent's credential always does; by default reads are anonymous.
	IdentifiedReads bool
}

// Report is what Run measured.
type Report struct {
	Clients       int           `json:"clients"`
	Duration      time.Duration `json:"duration_ns"`
	Posts         int64         `json:"posts"`
	Reads         int64         `json:"reads"`
	Errors        int64         `json:"errors"`
	PostsPerSec   float64       `json:"posts_per_sec"`
	WriteP50      time.Duration `json:"write_p50_ns"`
	WriteP99      time.Duration `json:"write_p99_ns"`
	WriteMax      time.Duration `json:"write_max_ns"`
	ReadP99       time.Duration `json:"read_p99_ns"`
	Delivered     int64         `json:"events_delivered"`
	DeliveryP50   time.Duration `json:"delivery_p50_ns"`
	DeliveryP99   time.Duration `json:"delivery_p99_ns"`
	DeliveryMax   time.Duration `json:"delivery_max_ns"`
	FirstErrorMsg string        `json:"first_error,omitempty"`
}

func (r Report) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
	s := fmt.Sprintf("clients %d, %s: %d posts (%.0f/s), %d reads, %d errors\n", r.Clients, r.Duration.Round(time.Millisecond), r.Posts, r.PostsPerSec, r.Reads, r.Errors)
	s += fmt.Sprintf("write latency  p50 %s  p99 %s  max %s\n", ms(r.WriteP50), ms(r.WriteP99), ms(r.WriteMax))
	s += fmt.Sprintf("read latency   p99 %s\n", ms(r.ReadP99))
	s += fmt.Sprintf("SSE delivery   %d events  p50 %s  p99 %s  max %s (write sent -> event received)\n", r.Delivered, ms(r.DeliveryP50), ms(r.DeliveryP99), ms(r.DeliveryMax))
	if r.FirstErrorMsg != "" {
		s += "first error: " + r.FirstErrorMsg + "\n"
	}
	return s
}

// Run runs Clients concurrent clients against cfg.URL: each posts
// messages (and reads the log every ReadEvery posts) for Duration, while
// one SSE subscriber measures the delay from a post being sent to its
// event arriving. Each post's content carries its send time.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Clients <= 0 {
		cfg.Clients = 50
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.ReadEvery == 0 {
		cfg.ReadEvery = 4
	}
	base := strings.TrimRight(cfg.URL, "/")
	tr := &http.Transport{MaxIdleConns: cfg.Clients * 2, MaxIdleConnsPerHost: cfg.Clients * 2, MaxConnsPerHost: cfg.Clients * 2}
	defer tr.CloseIdleConnections()
	auth := func(r *http.Request) {
		if cfg.Token != "" {
			r.Header.Set("Authorization", "Bearer "+cfg.Token)
		}
	}
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	sub, err := subscribe(sctx, tr, base, auth)
	if err != nil {
		return Report{}, err
	}
	l := &load{cfg: cfg, base: base, auth: auth, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second},
		writeLat: make([][]time.Duration, cfg.Clients), readLat: make([][]time.Duration, cfg.Clients)}
	deadline := time.Now().Add(cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < cfg.Clients; c++ {
		wg.Go(func() { l.client(ctx, c, deadline) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	// Let the last events arrive, then stop the subscriber.
	want := l.posts.Load()
	for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		if sub.delivered.Load() >= want {
			break
		}
	}
	scancel()
	<-sub.done

	rep := Report{Clients: cfg.Clients, Duration: elapsed, Posts: l.posts.Load(), Reads: l.reads.Load(), Errors: l.errs.Load()}
	rep.PostsPerSec = float64(rep.Posts) / elapsed.Seconds()
	var wl, rl []time.Duration
	for c := range l.writeLat {
		wl = append(wl, l.writeLat[c]...)
		rl = append(rl, l.readLat[c]...)
	}
	rep.WriteP50, rep.WriteP99, rep.WriteMax = percentiles(wl)
	_, rep.ReadP99, _ = percentiles(rl)
	rep.Delivered = int64(len(sub.deliveries))
	rep.DeliveryP50, rep.DeliveryP99, rep.DeliveryMax = percentiles(sub.deliveries)
	if rep.Delivered < rep.Posts {
		rep.Errors += rep.Posts - rep.Delivered
		l.firstErr.CompareAndSwap(nil, fmt.Sprintf("%d posted messages never reached the SSE subscriber", rep.Posts-rep.Delivered))
	}
	if v, ok := l.firstErr.Load().(string); ok {
		rep.FirstErrorMsg = v
	}
	return rep, nil
}

// subscriber follows the server's event stream and times each load post
// from its send (the time it carries) to its arrival.
type subscriber struct {
	deliveries []time.Duration // read once done is closed
	delivered  atomic.Int64
	done       chan struct{}
}

// subscribe opens the event stream of posted messages; it is read until
// ctx ends.
func subscribe(ctx context.Context, tr http.RoundTripper, base string, auth func(*http.Request)) (*subscriber, error) {
	sreq, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/events/stream?type=message.posted", nil)
	auth(sreq)
	sresp, err := (&http.Client{Transport: tr}).Do(sreq)
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	if sresp.StatusCode != 200 {
		sresp.Body.Close()
		return nil, fmt.Errorf("subscribe: HTTP %d", sresp.StatusCode)
	}
	sub := &subscriber{done: make(chan struct{})}
	go func() {
		defer close(sub.done)
		defer sresp.Body.Close()
		sc := bufio.NewScanner(sresp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := deliveryOf(sc.Bytes(), time.Now()); ok {
				sub.deliveries = append(sub.deliveries, d)
				sub.delivered.Add(1)
			}
		}
	}()
	return sub, nil
}

// deliveryOf is how long the load post of one stream line took to arrive
// at now (its content is "load <client> <unix-nanos>").
func deliveryOf(line []byte, now time.Time) (time.Duration, bool) {
	if !bytes.HasPrefix(line, []byte("data: ")) {
		return 0, false
	}
	var ev struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(line[6:], &ev) != nil {
		return 0, false
	}
	f := strings.Fields(ev.Message)
	if len(f) != 3 || f[0] != "load" {
		return 0, false
	}
	ns, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return 0, false
	}
	return now.Sub(time.Unix(0, ns)), true
}

// load is one run's clients and what they counted.
type load struct {
	cfg               Config
	base              string
	auth              func(*http.Request)
	hc                *http.Client
	posts, reads      atomic.Int64
	errs              atomic.Int64
	firstErr          atomic.Value
	writeLat, readLat [][]time.Duration // one slice per client
}

func (l *load) fail(msg string) {
	l.errs.Add(1)
	l.firstErr.CompareAndSwap(nil, msg)
}

// client c posts until deadline, and reads every ReadEvery posts.
func (l *load) client(ctx context.Context, c int, deadline time.Time) {
	agent := fmt.Sprintf("load-%02d", c)
	auth := l.auth
	if c < len(l.cfg.ClientTokens) {
		tok := l.cfg.ClientTokens[c]
		auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
		if !l.post(ctx, c, agent, auth) {
			continue
		}
		if l.cfg.ReadEvery > 0 && i%l.cfg.ReadEvery == l.cfg.ReadEvery-1 {
			l.read(ctx, c, agent, auth)
		}
	}
}

// post sends one timed post as agent; false when it failed.
func (l *load) post(ctx context.Context, c int, agent string, auth func(*http.Request)) bool {
	t0 := time.Now()
	body := fmt.Sprintf(`{"content":"load %d %d","tags":["load"]}`, c, t0.UnixNano())
	r, _ := http.NewRequestWithContext(ctx, "POST", l.base+"/api/v1/messages", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(wire.AgentHeader, agent)
	auth(r)
	resp, err := l.hc.Do(r)
	if err != nil {
		l.fail(err.Error())
		return false
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	l.writeLat[c] = append(l.writeLat[c], time.Since(t0))
	if resp.StatusCode != 200 {
		l.fail(fmt.Sprintf("post: HTTP %d: %s", resp.StatusCode, b))
		return false
	}
	l.posts.Add(1)
	return true
}

// read reads the board's last 20 messages (as agent with IdentifiedReads).
func (l *load) read(ctx context.Context, c int, agent string, auth func(*http.Request)) {
	t1 := time.Now()
	r, _ := http.NewRequestWithContext(ctx, "GET", l.base+"/api/v1/messages?limit=20", nil)
	if l.cfg.IdentifiedReads {
		r.Header.Set(wire.AgentHeader, agent)
	}
	auth(r)
	resp, err := l.hc.Do(r)
	if err != nil {
		l.fail(err.Error())
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.readLat[c] = append(l.readLat[c], time.Since(t1))
	if resp.StatusCode != 200 {
		l.fail(fmt.Sprintf("read: HTTP %d", resp.StatusCode))
		return
	}
	l.reads.Add(1)
}

func percentiles(d []time.Duration) (p50, p99, mx time.Duration) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.99), d[len(d)-1]
}
