package server_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/server"
)

// BenchmarkIdentifiedReads is issue 38's rule for reads that check in: 120
// agents read GET /api/v1/info, identified (X-BB-Agent) or anonymous,
// while one agent posts on the board without pause (so that every
// identified read has new notices, and so a check-in to record). Rounds
// alternate the two kinds in the same run; reported: the p50 of each and
// their ratio (identified / anonymous), which must stay at or below 3.
func BenchmarkIdentifiedReads(b *testing.B) {
	const agents, readsEach, rounds = 120, 10, 3
	for i := 0; i < b.N; i++ {
		hs := newEnvB(b)
		hc := hs.Client()
		hc.Transport.(*http.Transport).MaxIdleConnsPerHost = agents + 4
		do := func(method, path, agent, body string) (time.Duration, error) {
			var rd io.Reader
			if body != "" {
				rd = strings.NewReader(body)
			}
			r, _ := http.NewRequest(method, hs.URL+path, rd)
			if agent != "" {
				r.Header.Set(server.AgentHeader, agent)
			}
			if body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			t0 := time.Now()
			resp, err := hc.Do(r)
			if err != nil {
				return 0, err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return 0, fmt.Errorf("%s %s: %d", method, path, resp.StatusCode)
			}
			return time.Since(t0), nil
		}
		for a := range agents {
			if _, err := do("POST", "/api/v1/status", fmt.Sprintf("reader-%03d", a), `{"task":"reading","status":"coding"}`); err != nil {
				b.Fatal(err)
			}
		}
		stop := make(chan struct{})
		var poster sync.WaitGroup
		poster.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = do("POST", "/api/v1/messages", "poster", fmt.Sprintf(`{"content":"news %d"}`, n))
			}
		})
		round := func(identified bool) []time.Duration {
			var mu sync.Mutex
			var wg sync.WaitGroup
			var lat []time.Duration
			for a := range agents {
				who := ""
				if identified {
					who = fmt.Sprintf("reader-%03d", a)
				}
				wg.Go(func() {
					for range readsEach {
						d, err := do("GET", "/api/v1/info", who, "")
						if err != nil {
							b.Error(err)
							return
						}
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			return lat
		}
		var anon, ident []time.Duration
		for range rounds {
			anon = append(anon, round(false)...)
			ident = append(ident, round(true)...)
		}
		close(stop)
		poster.Wait()
		pa, pi := p50(anon), p50(ident)
		b.ReportMetric(float64(pa)/1e6, "anon-p50-ms")
		b.ReportMetric(float64(pi)/1e6, "ident-p50-ms")
		b.ReportMetric(float64(pi)/float64(pa), "ident/anon")
	}
}

func p50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
