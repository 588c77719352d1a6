// Package faulttest drives a real `bb serve` process through the faults a
// long-lived server meets — SIGTERM under load, its SQLite -wal file
// deleted, its PostgreSQL server restarted — and checks, against what the
// database holds afterwards, that no write the server acknowledged was lost
// or stored twice, and that no write it stored was answered as a failure.
package faulttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/testkit"
)

var binDir string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"bb"}, BinDir: &binDir})
}

func bb() string { return filepath.Join(binDir, "bb") }

// baseEnv is the environment of every bb process of these tests: nothing
// inherited but PATH, so no BB_* variable of the caller leaks in.
func baseEnv(dir string, extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, extra...)
}

// initBoard makes a project directory with an SQLite board.
func initBoard(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bb(), "--dir", dir, "init")
	cmd.Env = baseEnv(dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bb init: %v\n%s", err, out)
	}
	return dir
}

// syncBuffer collects a process's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveProc is one running `bb serve`.
type serveProc struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	stdout io.Reader
	exited chan struct{}
	err    error // Wait's result, once exited is closed
}

// startServe starts `bb serve --json` on a free port in dir and waits
// (up to wait) for the line that says where it listens.
func startServe(t *testing.T, dir string, env []string, wait time.Duration, args ...string) *serveProc {
	t.Helper()
	p := launchServe(t, dir, env, args...)
	p.awaitURL(t, wait)
	return p
}

// launchServe starts `bb serve --json` on a free port in dir and returns
// at once; awaitURL waits for the line that says where it listens. The
// fair-use budget is off (--rate -1): these tests load the server from
// many writers without credentials, which all share one budget, and what
// they check is what a fault loses, not the brake on a runaway loop
// (internal/server's fair-use tests check that).
func launchServe(t *testing.T, dir string, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(bb(), append([]string{"--dir", dir, "--json", "serve", "--addr", "127.0.0.1:0", "--rate", "-1"}, args...)...)
	cmd.Env = env
	p := &serveProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("bb serve stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// awaitURL waits (up to wait) for the line of bb serve that says where it
// listens.
func (p *serveProc) awaitURL(t *testing.T, wait time.Duration) {
	t.Helper()
	out := p.stdout
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
			t.Fatalf("bb serve did not start: %v %+v\n%s", err, env0, p.stderr.String())
		}
	case <-time.After(wait):
		t.Fatalf("bb serve did not report its address within %s\n%s", wait, p.stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	p.url = strings.TrimRight(env0.Data.URL, "/")
}

// waitUntil waits for cond, failing after limit (a hang guard, not a
// measure).
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
	}
}

// stop sends sig and waits for the exit (failing after limit); it returns
// the exit status and how long the process took to exit.
func (p *serveProc) stop(t *testing.T, sig syscall.Signal, limit time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(limit):
		t.Fatalf("bb serve still running %s after %v", limit, sig)
	}
	took := time.Since(start)
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), took
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0, took
}

// outcome is what the clients were told, by message content (each post
// has its own).
type outcome struct {
	mu sync.Mutex
	// acked: answered 2xx. failed: answered with an error status. cut:
	// no answer (the connection failed), for posts never acknowledged.
	acked, failed, cut map[string]int
	// codes counts the error codes answered; retryAfter counts the 503
	// answers that carried a Retry-After header.
	codes      map[string]int
	status503  int
	retryAfter int
}

func newOutcome() *outcome {
	return &outcome{acked: map[string]int{}, failed: map[string]int{}, cut: map[string]int{}, codes: map[string]int{}}
}

func (o *outcome) ackedCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.acked)
}

// driver posts from several clients at once until its context ends.
type driver struct {
	url     string
	clients int
	// idempotent clients send an Idempotency-Key (the content) and retry
	// a post until it is acknowledged; the others post each content once.
	idempotent bool
	// reads makes every client read the log after each post.
	reads bool
	hc    *http.Client
	out   *outcome
}

func newDriver(url string, clients int, idempotent bool) *driver {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	return &driver{url: url, clients: clients, idempotent: idempotent, out: newOutcome(),
		hc: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
}

// run posts until ctx ends (or, for clients that do not retry, until the
// server refuses connections); it returns when every client stopped.
func (d *driver) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range d.clients {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				content := fmt.Sprintf("c%d-%d", i, n)
				if !d.post(ctx, content) {
					return
				}
				if d.reads {
					d.read()
				}
			}
		})
	}
	wg.Wait()
	d.hc.CloseIdleConnections()
}

// post sends one content (retrying it when idempotent) and reports whether
// the client should go on.
func (d *driver) post(ctx context.Context, content string) bool {
	body := fmt.Sprintf(`{"content":%q}`, content)
	for {
		req, _ := http.NewRequest(http.MethodPost, d.url+"/api/v1/messages", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if d.idempotent {
			req.Header.Set("Idempotency-Key", content)
		}
		resp, err := d.hc.Do(req)
		o := d.out
		if err != nil {
			if !d.idempotent {
				o.mu.Lock()
				o.cut[content]++
				o.mu.Unlock()
				// A refused connection: the server is gone.
				return !errors.Is(err, syscall.ECONNREFUSED)
			}
			if ctx.Err() != nil {
				return false
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		var env struct {
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		o.mu.Lock()
		if resp.StatusCode/100 == 2 {
			o.acked[content]++
			o.mu.Unlock()
			return true
		}
		code := "(none)"
		if env.Error != nil {
			code = env.Error.Code
		}
		o.codes[fmt.Sprintf("%d %s", resp.StatusCode, code)]++
		if resp.StatusCode == http.StatusServiceUnavailable {
			o.status503++
			if resp.Header.Get("Retry-After") != "" {
				o.retryAfter++
			}
		}
		if !d.idempotent {
			o.failed[content]++
			o.mu.Unlock()
			return true
		}
		o.mu.Unlock()
		if ctx.Err() != nil {
			return false
		}
		// Honouring Retry-After would make the test slow; a short pause
		// keeps the retries going through the whole fault.
		time.Sleep(20 * time.Millisecond)
	}
}

// read lists the newest messages; an error answer is counted.
func (d *driver) read() {
	resp, err := d.hc.Get(d.url + "/api/v1/messages?limit=5")
	if err != nil {
		return
	}
	var env struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 && env.Error != nil {
		d.out.mu.Lock()
		d.out.codes[fmt.Sprintf("%d %s (read)", resp.StatusCode, env.Error.Code)]++
		d.out.mu.Unlock()
	}
}

// waitAcked waits until at least n posts were acknowledged.
func (d *driver) waitAcked(t *testing.T, n int, limit time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for d.out.ackedCount() < n {
		if time.Now().After(deadline) {
			d.out.mu.Lock()
			codes := fmt.Sprint(d.out.codes)
			d.out.mu.Unlock()
			t.Fatalf("%s: only %d posts acknowledged within %s (errors answered: %s)", what, d.out.ackedCount(), limit, codes)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stored counts the messages of the board by content, read by a fresh
// `bb export` (env selects the board).
func stored(t *testing.T, dir string, env []string) map[string]int {
	t.Helper()
	cmd := exec.Command(bb(), "--dir", dir, "export")
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bb export: %v\n%s", err, errb.String())
	}
	var dump struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		t.Fatalf("bb export: %v", err)
	}
	m := map[string]int{}
	for _, msg := range dump.Messages {
		m[msg.Content]++
	}
	return m
}

// checkAcknowledged asserts 0 lost and 0 duplicated acknowledged writes,
// and that the board holds nothing but what the clients sent, once.
func checkAcknowledged(t *testing.T, o *outcome, db map[string]int) {
	t.Helper()
	lost, dup := 0, 0
	for c := range o.acked {
		switch n := db[c]; {
		case n == 0:
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged post %q is not in the database", c)
			}
		case n > 1:
			dup++
			if dup <= 5 {
				t.Errorf("acknowledged post %q is stored %d times", c, n)
			}
		}
	}
	for c, n := range db {
		if n > 1 && o.acked[c] == 0 {
			dup++
			t.Errorf("post %q is stored %d times", c, n)
		}
		if !strings.HasPrefix(c, "c") || !strings.Contains(c, "-") {
			t.Errorf("the board holds a message nobody sent: %q", c)
		}
	}
	if lost+dup > 0 {
		t.Errorf("%d acknowledged posts lost, %d stored twice (of %d acknowledged, %d stored)", lost, dup, len(o.acked), len(db))
	}
}

// countLines counts the lines of s holding sub.
func countLines(s, sub string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.Contains(sc.Text(), sub) {
			n++
		}
	}
	return n
}
