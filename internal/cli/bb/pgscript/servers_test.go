package pgscript

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/loadgen"
	"github.com/blackboard-hub/bb/internal/server"
	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// serveProc is one `bb serve` process.
type serveProc struct {
	URL string
	cmd *exec.Cmd
}

// startServe starts `bb serve` in dir on a free loopback port with env
// (e.g. BB_DATABASE_URL) and waits until it listens.
func startServe(tb testing.TB, dir string, env ...string) *serveProc {
	tb.Helper()
	c := exec.Command(bin("bb"), "serve", "--addr", "127.0.0.1:0", "--json", "-q")
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &serveProc{cmd: c}
	tb.Cleanup(func() {
		_ = c.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = c.Process.Kill()
			<-done
		}
	})
	var env0 struct {
		OK   bool `json:"ok"`
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	got := make(chan error, 1)
	go func() { got <- json.NewDecoder(out).Decode(&env0) }()
	select {
	case err := <-got:
		if err != nil || !env0.OK {
			tb.Fatalf("bb serve did not start: %v %+v", err, env0)
		}
	case <-time.After(30 * time.Second):
		tb.Fatal("bb serve did not report its address within 30s")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	p.URL = strings.TrimRight(env0.Data.URL, "/")
	return p
}

// twoServers starts two `bb serve` processes on one fresh PostgreSQL
// database, for a project in a new temporary directory.
func twoServers(tb testing.TB, dbURL string) (a, b *serveProc) {
	tb.Helper()
	return twoServersIn(tb, tb.TempDir(), dbURL)
}

func twoServersIn(tb testing.TB, dir, dbURL string) (a, b *serveProc) {
	tb.Helper()
	if out, err := exec.Command(bin("bb"), "--dir", dir, "--database-url", dbURL, "init").CombinedOutput(); err != nil {
		tb.Fatalf("init: %v %s", err, out)
	}
	a = startServe(tb, dir, "BB_DATABASE_URL="+dbURL)
	b = startServe(tb, dir, "BB_DATABASE_URL="+dbURL)
	return a, b
}

type postReply struct {
	OK   bool `json:"ok"`
	Data struct {
		ID   int64  `json:"id"`
		UUID string `json:"uuid"`
	} `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func post(t *testing.T, base, agent, content, idemKey string) postReply {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"content": content})
	r, _ := http.NewRequest("POST", base+"/api/v1/messages", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(server.AgentHeader, agent)
	if idemKey != "" {
		r.Header.Set(server.RequestIDHeader, idemKey)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Error(err)
		return postReply{}
	}
	defer resp.Body.Close()
	var rep postReply
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Errorf("post reply: %v", err)
	}
	if resp.StatusCode != 200 || !rep.OK {
		t.Errorf("post via %s: HTTP %d %+v", base, resp.StatusCode, rep.Error)
	}
	return rep
}

// stream subscribes to base's SSE stream and sends the data of every event.
func stream(t *testing.T, ctx context.Context, base string) <-chan string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/events/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("stream: HTTP %d", resp.StatusCode)
	}
	ch := make(chan string, 64)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

func waitFor(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case d, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended before %q arrived", want)
			}
			if strings.Contains(d, want) {
				return
			}
		case <-timeout:
			t.Fatalf("%q did not arrive on the other server's stream", want)
		}
	}
}

// A message posted through one server appears on the other server's SSE
// stream, both ways.
func TestTwoServersCrossSSE(t *testing.T) {
	a, b := twoServers(t, pgtest.URL(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sa, sb := stream(t, ctx, a.URL), stream(t, ctx, b.URL)
	post(t, a.URL, "alice", "written through A", "")
	waitFor(t, sb, "written through A")
	post(t, b.URL, "bob", "written through B", "")
	waitFor(t, sa, "written through B")
}

// 16 concurrent retries of one request id, alternating between the two
// servers, store one message and all get its reply.
func TestTwoServersIdempotency(t *testing.T) {
	dbURL := pgtest.URL(t)
	a, b := twoServers(t, dbURL)
	servers := []*serveProc{a, b}
	var wg sync.WaitGroup
	replies := make([]postReply, 16)
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = post(t, servers[i%2].URL, "alice", "exactly once", "req-42")
		}()
	}
	wg.Wait()
	for i, r := range replies {
		if r.Data.UUID == "" || r.Data.UUID != replies[0].Data.UUID || r.Data.ID != replies[0].Data.ID {
			t.Errorf("reply %d: %+v, want the same message as reply 0 (%+v)", i, r.Data, replies[0].Data)
		}
	}
	st, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	if err := st.SQL().QueryRow(`SELECT COUNT(*) FROM messages WHERE body = 'exactly once'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d messages stored for one request id, want 1", n)
	}
}

// 32 agents, each with its own MCP session (streamable HTTP) on one of two
// servers in turn, race to reserve scopes that all overlap one another:
// exactly one wins, the other 31 get RESERVATION_CONFLICT.
func TestTwoServersReservationRace(t *testing.T) {
	dbURL := pgtest.URL(t)
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/src/lib", 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := twoServersIn(t, dir, dbURL)
	servers := []*serveProc{a, b}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 32
	scopes := []string{"src/*", "src/lib/*", "src/lib/parser.go"}
	sessions := make([]*sdk.ClientSession, n)
	for i := range sessions {
		c := sdk.NewClient(&sdk.Implementation{Name: "race", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: servers[i%2].URL + "/mcp", DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatalf("connect %d: %v", i, err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bb_identify", Arguments: map[string]any{"agent_id": agentName(i)}})
		if err != nil || res.IsError {
			t.Fatalf("identify %d: %v %+v", i, err, res)
		}
		sessions[i] = cs
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	codes := make([]string, n)
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bb_reserve",
				Arguments: map[string]any{"scope": scopes[i%len(scopes)], "bead": "bb-1"}})
			switch {
			case err != nil:
				codes[i] = "call failed: " + err.Error()
			case !res.IsError:
				codes[i] = "OK"
			default:
				var body struct {
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				}
				raw, _ := json.Marshal(res.StructuredContent)
				_ = json.Unmarshal(raw, &body)
				codes[i] = body.Error.Code
			}
		}()
	}
	close(start)
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	if count["OK"] != 1 || count["RESERVATION_CONFLICT"] != n-1 {
		t.Errorf("outcomes %v; want exactly 1 OK and %d RESERVATION_CONFLICT", count, n-1)
	}
	st, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var active int
	if err := st.SQL().QueryRow(`SELECT COUNT(*) FROM reservations WHERE state = 'active'`).Scan(&active); err != nil {
		t.Fatal(err)
	}
	if active != 1 {
		t.Errorf("%d active reservations, want 1", active)
	}
}

func agentName(i int) string { return "agent-" + string(rune('a'+i/10)) + string(rune('0'+i%10)) }

// roundRobin is the "any HTTP load balancer" in front of the servers: each
// request goes to the next server in turn (SSE streams included).
func roundRobin(tb testing.TB, backends ...*serveProc) string {
	tb.Helper()
	var next atomic.Uint64
	targets := make([]*url.URL, len(backends))
	for i, b := range backends {
		u, err := url.Parse(b.URL)
		if err != nil {
			tb.Fatal(err)
		}
		targets[i] = u
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[next.Add(1)%uint64(len(targets))])
		},
		FlushInterval: -1,
		Transport:     &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256},
	}
	srv := &http.Server{Handler: rp}
	ln, err := netListen()
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// BenchmarkScaleOut: 50 concurrent clients posting (and reading the log)
// through a round-robin balancer, with one SSE subscriber measuring
// delivery, against one `bb serve` on a SQLite board, one `bb serve` on
// PostgreSQL and two `bb serve` on one PostgreSQL, interleaved in every
// iteration (the machine's load moves; ratios within one iteration are
// what to compare). CPU is the servers' and PostgreSQL's (every process
// of the test cluster), read from /proc before and after the load.
func BenchmarkScaleOut(b *testing.B) {
	pgtest.Require(b)
	dur := 5 * time.Second
	if v := os.Getenv("BB_BENCH_DURATION"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			dur = d
		}
	}
	type result struct {
		rep loadgen.Report
		cpu time.Duration
	}
	run := func(b *testing.B, lb string, pids func() []int) result {
		before := cpuOf(pids())
		rep, err := loadgen.Run(context.Background(), loadgen.Config{URL: lb, Clients: 50, Duration: dur})
		if err != nil {
			b.Fatal(err)
		}
		cpu := cpuOf(pids()) - before
		if rep.Errors != 0 {
			b.Fatalf("%d errors: %s", rep.Errors, rep.FirstErrorMsg)
		}
		return result{rep, cpu}
	}
	variants := []struct {
		name string
		run  func(b *testing.B) result
	}{
		{"sqlite-1", func(b *testing.B) result {
			dir := b.TempDir()
			if out, err := exec.Command(bin("bb"), "--dir", dir, "init").CombinedOutput(); err != nil {
				b.Fatalf("init: %v %s", err, out)
			}
			s := startServe(b, dir)
			return run(b, roundRobin(b, s), func() []int { return []int{s.cmd.Process.Pid} })
		}},
		{"postgres-1", func(b *testing.B) result {
			dbURL, drop, err := pgtest.NewDatabase(b.Name())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = drop() })
			dir := b.TempDir()
			if out, err := exec.Command(bin("bb"), "--dir", dir, "--database-url", dbURL, "init").CombinedOutput(); err != nil {
				b.Fatalf("init: %v %s", err, out)
			}
			s := startServe(b, dir, "BB_DATABASE_URL="+dbURL)
			pm := postmaster(b, dbURL)
			return run(b, roundRobin(b, s), func() []int { return append(clusterPids(pm), s.cmd.Process.Pid) })
		}},
		{"postgres-2", func(b *testing.B) result {
			dbURL, drop, err := pgtest.NewDatabase(b.Name())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = drop() })
			s1, s2 := twoServers(b, dbURL)
			pm := postmaster(b, dbURL)
			return run(b, roundRobin(b, s1, s2), func() []int {
				return append(clusterPids(pm), s1.cmd.Process.Pid, s2.cmd.Process.Pid)
			})
		}},
	}
	for i := 0; i < b.N; i++ {
		res := map[string]result{}
		for k := range variants {
			v := variants[(i+k)%len(variants)] // rotate the order every round
			res[v.name] = v.run(b)
		}
		load, _ := os.ReadFile("/proc/loadavg")
		b.Logf("round %d, load average %s", i+1, strings.Fields(string(load) + " ")[0])
		for _, v := range variants {
			r := res[v.name]
			b.Logf("%-11s %6.0f posts/s  p50 %6.1f ms  p99 %6.1f ms  sse p99 %6.1f ms  CPU %.2f s per 1,000 posts",
				v.name, r.rep.PostsPerSec, float64(r.rep.WriteP50)/1e6, float64(r.rep.WriteP99)/1e6,
				float64(r.rep.DeliveryP99)/1e6, r.cpu.Seconds()/float64(max(r.rep.Posts, 1))*1000)
		}
		sq, p1, p2 := res["sqlite-1"], res["postgres-1"], res["postgres-2"]
		perPost := func(r result) float64 { return r.cpu.Seconds() / float64(max(r.rep.Posts, 1)) }
		b.ReportMetric(p1.rep.PostsPerSec/sq.rep.PostsPerSec, "pg1/sqlite-posts")
		b.ReportMetric(float64(p1.rep.WriteP99)/float64(sq.rep.WriteP99), "pg1/sqlite-p99")
		b.ReportMetric(perPost(p1)/perPost(sq), "pg1/sqlite-cpu")
		b.ReportMetric(p2.rep.PostsPerSec/p1.rep.PostsPerSec, "pg2/pg1-posts")
	}
}

// postmaster returns the pid of the PostgreSQL server behind dbURL (the
// parent of a backend), for CPU accounting.
func postmaster(tb testing.TB, dbURL string) int {
	tb.Helper()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var backend int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		tb.Fatal(err)
	}
	st, err := procStat(backend)
	if err != nil || len(st) < 2 {
		tb.Fatalf("read /proc/%d/stat: %v", backend, err)
	}
	ppid, _ := strconv.Atoi(st[1])
	return ppid
}

// clusterPids is the postmaster and its children.
func clusterPids(pm int) []int {
	pids := []int{pm}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procStat(pid); err == nil && len(st) > 1 && st[1] == strconv.Itoa(pm) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat returns the fields of /proc/pid/stat after the command name
// (state, ppid, …).
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Fields(s), nil
}

// cpuOf sums the user and system time of pids (processes that ended are
// not counted: the cluster's backends live as long as the servers' pools).
func cpuOf(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		st, err := procStat(pid)
		if err != nil || len(st) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(st[11], 10, 64)
		s, _ := strconv.ParseInt(st[12], 10, 64)
		ticks += u + s
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
