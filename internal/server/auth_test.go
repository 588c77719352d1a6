package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/server"
)

func TestCheckBind(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7777", "", true},
		{"localhost:0", "", true},
		{"[::1]:7777", "", true},
		{"0.0.0.0:7777", "", false},
		{":7777", "", false},
		{"192.168.1.5:7777", "", false},
		{"0.0.0.0:7777", "s3cret-0123456789", true},
		{"nonsense", "", false},
		{"0.0.0.0:7777", "a", false},
		{"127.0.0.1:7777", "short-token", false},
		{"0.0.0.0:7777", "                ", false},
		{"127.0.0.1:7777", "0123456789abcdef", true},
	} {
		err := server.CheckBind(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckBind(%q, %q) = %v, want ok=%v", c.addr, c.token, err, c.ok)
		}
	}
}

// bb serve on a non-loopback address without a token refuses to start.
func TestServeRefusesOpenBindWithoutToken(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "init")
	out, errOut, code := runCode(t, dir, nil, "serve", "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "token") || out != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, _, code = runCode(t, dir, nil, "--json", "serve", "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(out, `"UNAUTHORIZED"`) {
		t.Fatalf("json: exit %d %s", code, out)
	}
}

func TestTokenRequired(t *testing.T) {
	e := newEnv(t, withToken("s3cret-token-0123456789"))
	hc := e.http.Client()
	get := func(path string, set func(*http.Request)) *http.Response {
		r, _ := http.NewRequest("GET", e.http.URL+path, nil)
		if set != nil {
			set(r)
		}
		resp, err := hc.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, p := range []string{"/api/v1/status", "/api/v1/events/stream", "/", "/ui/feed", "/static/app.css", "/mcp"} {
		if resp := get(p, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without token: %d", p, resp.StatusCode)
		}
		if resp := get(p, func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong") }); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with wrong token: %d", p, resp.StatusCode)
		}
	}
	if resp := get("/api/v1/status", func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret-token-0123456789") }); resp.StatusCode != 200 {
		t.Fatalf("with token: %d", resp.StatusCode)
	}
	status, env := e.do(req{path: "/api/v1/status", header: map[string]string{"Authorization": "Bearer nope"}})
	if status != 401 || env.Error.Code != "UNAUTHORIZED" {
		t.Fatalf("envelope: %d %+v", status, env.Error)
	}
	// Browser login: ?token= sets a cookie and redirects to the clean URL.
	noFollow := *hc
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Get(e.http.URL + "/?token=s3cret-token-0123456789&session=bead%3Ax")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || strings.Contains(resp.Header.Get("Location"), "token") {
		t.Fatalf("login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "bb_token" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly {
		t.Fatalf("no HttpOnly cookie: %v", resp.Cookies())
	}
	if resp := get("/", func(r *http.Request) { r.AddCookie(cookie) }); resp.StatusCode != 200 {
		t.Fatalf("dashboard with cookie: %d", resp.StatusCode)
	}
	if resp := get("/?token=wrong", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong login: %d", resp.StatusCode)
	}
}

// Without a token the server answers only to loopback host names (a web
// page cannot reach it through DNS rebinding) and refuses cross-origin
// writes.
func TestLoopbackGuards(t *testing.T) {
	e := newEnv(t)
	status, env := e.do(req{path: "/api/v1/status", header: map[string]string{"Host": "evil.example:7777"}})
	if status != http.StatusForbidden || env.Error.Code != "UNAUTHORIZED" {
		t.Fatalf("foreign host: %d %+v", status, env.Error)
	}
	status, _ = e.do(req{method: "POST", path: "/api/v1/messages", agent: "a", body: `{"content":"x"}`, header: map[string]string{"Origin": "http://evil.example"}})
	if status != http.StatusForbidden {
		t.Fatalf("cross-origin post: %d", status)
	}
}
