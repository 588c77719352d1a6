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
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	auth := func(r *http.Request) {
		if cfg.Token != "" {
			r.Header.Set("Authorization", "Bearer "+cfg.Token)
		}
	}

	// The subscriber.
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	sreq, _ := http.NewRequestWithContext(sctx, "GET", base+"/api/v1/events/stream?type=message.posted", nil)
	auth(sreq)
	sresp, err := (&http.Client{Transport: tr}).Do(sreq)
	if err != nil {
		return Report{}, fmt.Errorf("subscribe: %w", err)
	}
	if sresp.StatusCode != 200 {
		sresp.Body.Close()
		return Report{}, fmt.Errorf("subscribe: HTTP %d", sresp.StatusCode)
	}
	var deliveries []time.Duration
	var delivered atomic.Int64
	subDone := make(chan struct{})
	go func() {
		defer close(subDone)
		defer sresp.Body.Close()
		sc := bufio.NewScanner(sresp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !bytes.HasPrefix(line, []byte("data: ")) {
				continue
			}
			now := time.Now()
			var ev struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(line[6:], &ev) != nil {
				continue
			}
			// content = "load <client> <unix-nanos>"
			f := strings.Fields(ev.Message)
			if len(f) != 3 || f[0] != "load" {
				continue
			}
			ns, err := strconv.ParseInt(f[2], 10, 64)
			if err == nil {
				deliveries = append(deliveries, now.Sub(time.Unix(0, ns)))
				delivered.Add(1)
			}
		}
	}()

	var posts, reads, errs atomic.Int64
	var firstErr atomic.Value
	fail := func(msg string) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, msg)
	}
	writeLat := make([][]time.Duration, cfg.Clients)
	readLat := make([][]time.Duration, cfg.Clients)
	deadline := time.Now().Add(cfg.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < cfg.Clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			agent := fmt.Sprintf("load-%02d", c)
			auth := auth
			if c < len(cfg.ClientTokens) {
				tok := cfg.ClientTokens[c]
				auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
			}
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				t0 := time.Now()
				body := fmt.Sprintf(`{"content":"load %d %d","tags":["load"]}`, c, t0.UnixNano())
				r, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/messages", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set(wire.AgentHeader, agent)
				auth(r)
				resp, err := hc.Do(r)
				if err != nil {
					fail(err.Error())
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				writeLat[c] = append(writeLat[c], time.Since(t0))
				if resp.StatusCode != 200 {
					fail(fmt.Sprintf("post: HTTP %d: %s", resp.StatusCode, b))
					continue
				}
				posts.Add(1)
				if cfg.ReadEvery > 0 && i%cfg.ReadEvery == cfg.ReadEvery-1 {
					t1 := time.Now()
					r, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/messages?limit=20", nil)
					if cfg.IdentifiedReads {
						r.Header.Set(wire.AgentHeader, agent)
					}
					auth(r)
					resp, err := hc.Do(r)
					if err != nil {
						fail(err.Error())
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					readLat[c] = append(readLat[c], time.Since(t1))
					if resp.StatusCode != 200 {
						fail(fmt.Sprintf("read: HTTP %d", resp.StatusCode))
						continue
					}
					reads.Add(1)
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	// Let the last events arrive, then stop the subscriber.
	want := posts.Load()
	for wait := time.Now().Add(3 * time.Second); time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		if delivered.Load() >= want {
			break
		}
	}
	scancel()
	<-subDone

	rep := Report{Clients: cfg.Clients, Duration: elapsed, Posts: posts.Load(), Reads: reads.Load(), Errors: errs.Load()}
	rep.PostsPerSec = float64(rep.Posts) / elapsed.Seconds()
	var wl, rl []time.Duration
	for c := range writeLat {
		wl = append(wl, writeLat[c]...)
		rl = append(rl, readLat[c]...)
	}
	rep.WriteP50, rep.WriteP99, rep.WriteMax = percentiles(wl)
	_, rep.ReadP99, _ = percentiles(rl)
	rep.Delivered = int64(len(deliveries))
	rep.DeliveryP50, rep.DeliveryP99, rep.DeliveryMax = percentiles(deliveries)
	if rep.Delivered < rep.Posts {
		rep.Errors += rep.Posts - rep.Delivered
		firstErr.CompareAndSwap(nil, fmt.Sprintf("%d posted messages never reached the SSE subscriber", rep.Posts-rep.Delivered))
	}
	if v, ok := firstErr.Load().(string); ok {
		rep.FirstErrorMsg = v
	}
	return rep, nil
}

func percentiles(d []time.Duration) (p50, p99, mx time.Duration) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.99), d[len(d)-1]
}
