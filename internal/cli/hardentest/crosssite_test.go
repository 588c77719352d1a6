package hardentest

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serve starts the real `bb serve` on a free loopback port and returns its
// base URL; the server stops with the test.
func serve(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c := exec.CommandContext(ctx, filepath.Join(binDir, "bb"), append([]string{"serve", "--addr", addr}, args...)...)
	c.Dir = dir
	c.Env = []string{"HOME=" + dir, "TZ=UTC"}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = c.Wait() })
	// The banner is printed once the listener is up.
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("bb serve did not start: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return "http://" + addr
}

func request(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCrossSiteRequestsHaveNoEffect reproduces the report: a page on another
// site loading <img src="http://127.0.0.1:PORT/api/v1/messages?as=bob"> must
// not refresh bob's last_seen nor advance his read cursor, and a POST with
// Sec-Fetch-Site: cross-site or a foreign Referer (no Origin) must not post.
func TestCrossSiteRequestsHaveNoEffect(t *testing.T) {
	dir := newBoard(t)
	env := []string{"BB_NOW=2026-11-23T10:00:00Z"}
	must(t, dir, env, "bb", "--as", "alice", "post", "hello everyone")
	must(t, dir, env, "bb", "--as", "bob-two", "status", "set", "idle work")
	base := serve(t, dir)
	unread := func() string {
		return jsonField(t, must(t, dir, env, "bb", "--json", "--as", "bob-two", "-q", "status", "get", "bob-two").stdout, "notices.unread")
	}
	if got := unread(); got != "1" {
		t.Fatalf("bob starts with %s unread", got)
	}
	for name, h := range map[string]map[string]string{
		"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"},
		"Sec-Fetch-Site same-site":  {"Sec-Fetch-Site": "same-site"},
		"foreign Origin":            {"Origin": "http://evil.example"},
		"null Origin":               {"Origin": "null"},
		"foreign Referer":           {"Referer": "http://evil.example/page.html"},
	} {
		for _, path := range []string{"/api/v1/messages?as=bob-two", "/api/v1/status?as=bob-two", "/ui/feed", "/api/v1/export"} {
			if code, body := request(t, "GET", base+path, "", h); code != http.StatusForbidden || !strings.Contains(body, "cross-site request refused") {
				t.Errorf("%s GET %s: %d %s", name, path, code, body)
			}
		}
		code, body := request(t, "POST", base+"/api/v1/messages", `{"content":"forged","agent_id":"bob-two"}`, h)
		if code != http.StatusForbidden {
			t.Errorf("%s POST: %d %s", name, code, body)
		}
	}
	if got := unread(); got != "1" {
		t.Fatalf("a cross-site read advanced bob's cursor: %s unread", got)
	}
	if out := must(t, dir, env, "bb", "log").stdout; strings.Contains(out, "forged") {
		t.Fatalf("a cross-site POST was stored:\n%s", out)
	}
	// Following a link to the dashboard from elsewhere still works.
	if code, _ := request(t, "GET", base+"/", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}); code != http.StatusOK {
		t.Errorf("cross-site navigation to the dashboard: %d", code)
	}
	// Same-origin browsers and non-browser clients keep working.
	for name, h := range map[string]map[string]string{
		"same-origin": {"Sec-Fetch-Site": "same-origin"},
		"typed URL":   {"Sec-Fetch-Site": "none"},
		"Origin":      {"Origin": base},
		"Referer":     {"Referer": base + "/"},
		"curl":        nil,
	} {
		if code, body := request(t, "GET", base+"/api/v1/status", "", h); code != http.StatusOK {
			t.Errorf("%s GET: %d %s", name, code, body)
		}
	}
	if code, body := request(t, "GET", base+"/api/v1/messages?as=bob-two", "", map[string]string{"Sec-Fetch-Site": "same-origin"}); code != http.StatusOK {
		t.Fatalf("same-origin read: %d %s", code, body)
	}
	if got := unread(); got != "0" {
		t.Fatalf("a same-origin read did not advance bob's cursor: %s unread", got)
	}
}

// TestServeRefusesWeakTokens: a token shorter than 16 bytes, or blank, is
// refused with a message that says so, on loopback and elsewhere.
func TestServeRefusesWeakTokens(t *testing.T) {
	dir := newBoard(t)
	for _, c := range []struct {
		addr, token, want string
	}{
		{"0.0.0.0:0", "a", "the token is too short: 1 bytes, need at least 16"},
		{"127.0.0.1:0", "a", "the token is too short: 1 bytes, need at least 16"},
		{"0.0.0.0:0", " ", "the token is blank"},
		{"127.0.0.1:0", "                    ", "the token is blank"},
	} {
		r := runIn(t, dir, nil, "bb", "serve", "--addr", c.addr, "--token", c.token)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("--addr %s --token %q: exit %d\nstdout %s\nstderr %s", c.addr, c.token, r.code, r.stdout, r.stderr)
		}
		r = runIn(t, dir, []string{"BB_TOKEN=" + c.token}, "bb", "serve", "--addr", c.addr)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("BB_TOKEN=%q --addr %s: exit %d\nstderr %s", c.token, c.addr, r.code, r.stderr)
		}
	}
}

// TestOversizedDashboardPost: a post larger than the server accepts is
// answered with the limit, not the HTTP library's "request body too large".
func TestOversizedDashboardPost(t *testing.T) {
	dir := newBoard(t)
	base := serve(t, dir)
	body := "content=" + strings.Repeat("x", 2<<20)
	r, err := http.NewRequest("POST", base+"/ui/post", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "the post is too large: at most") || strings.Contains(string(b), "http:") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}
