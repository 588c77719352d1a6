package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/credentials"
)

// Sign-in never leaves the server and never changes who a browser is
// without asking (issue 38 item 6). Before, GET //evil.example/?token=<c>
// answered 303 Location: //evil.example/ (another host, to a browser) and
// set the cookie to the link's credential, so an agent could mail a link
// that signed a person's browser in as the agent and bounced it off-site.
func TestSignInLinkStaysOnTheServerAndAsks(t *testing.T) {
	const op = "operator-0123456789abcdef"
	e := newEnv(t, withToken(op))
	ctx := context.Background()
	agent, err := e.svc.CreateCredential(ctx, credentials.Input{Agent: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	overseer, err := e.svc.CreateCredential(ctx, credentials.Input{Agent: "ana", Role: hub.AccessOverseer})
	if err != nil {
		t.Fatal(err)
	}
	hc := *e.http.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	do := func(method, path string, cookie *http.Cookie, form url.Values) (*http.Response, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		r, err := http.NewRequest(method, e.http.URL+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if cookie != nil {
			r.AddCookie(cookie)
		}
		resp, err := hc.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	tokenCookie := func(resp *http.Response) *http.Cookie {
		for _, c := range resp.Cookies() {
			if c.Name == "bb_token" {
				return c
			}
		}
		return nil
	}

	// The operator's link, in a browser signed in as nobody: signed in,
	// and on to the same page of this server, whatever the path says (a
	// backslash stays escaped: a path to every browser).
	for path, want := range map[string]string{
		"//evil.example/?token=" + op:               "/evil.example/",
		"/%2F/evil.example/?token=" + op + "&x=1":   "/%2F/evil.example/?x=1",
		"/\\evil.example/?token=" + op:              "/%5Cevil.example/",
		"/?token=" + op + "&session=bead%3Ax":       "/?session=bead%3Ax",
		"///\\\\//evil.example/x?token=" + op + "&": "/%5C%5C/evil.example/x",
	} {
		resp, _ := do("GET", path, nil, nil)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || loc != want || tokenCookie(resp) == nil {
			t.Errorf("GET %s: %d Location %q, cookie %v; want 303 to %q with the cookie", path, resp.StatusCode, loc, tokenCookie(resp), want)
		}
		if u, err := url.Parse(loc); err != nil || u.Host != "" || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
			t.Errorf("GET %s: Location %q leaves the server", path, loc)
		}
	}

	// An agent's link asks first, even in a browser signed in as nobody:
	// the cookie stays unset.
	resp, page := do("GET", "//evil.example/?token="+agent.Token, nil, nil)
	if resp.StatusCode != http.StatusOK || tokenCookie(resp) != nil || !strings.Contains(page, `id="switch-new"`) ||
		!strings.Contains(page, "mallory (agent credential mallory)") || !strings.Contains(page, `name="next" value="/evil.example/"`) {
		t.Fatalf("an agent's link: %d cookie %v\n%s", resp.StatusCode, tokenCookie(resp), page)
	}

	// A browser signed in as the overseer: a link with another credential
	// names both and changes nothing until the person confirms.
	ana := &http.Cookie{Name: "bb_token", Value: overseer.Token}
	resp, page = do("GET", "/?token="+op, ana, nil)
	if resp.StatusCode != http.StatusOK || tokenCookie(resp) != nil || !strings.Contains(page, `id="switch-current"`) ||
		!strings.Contains(page, "ana (overseer credential ana)") || !strings.Contains(page, "the operator") {
		t.Fatalf("replacing the overseer's sign-in: %d cookie %v\n%s", resp.StatusCode, tokenCookie(resp), page)
	}
	// The same credential again is no switch.
	if resp, _ := do("GET", "/?token="+overseer.Token, ana, nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("the browser's own credential again: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Confirming (the page's own form) signs in, and goes on to a page of
	// this server even when next names another host (its path, here).
	resp, _ = do("POST", "/login", ana, url.Values{"token": {op}, "next": {"//evil.example/x?y=1"}})
	if c := tokenCookie(resp); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/x?y=1" || c == nil || c.Value != op {
		t.Errorf("confirmed: %d Location %q cookie %v", resp.StatusCode, resp.Header.Get("Location"), c)
	}
	// Another site's page cannot confirm for the person.
	r, _ := http.NewRequest("POST", e.http.URL+"/login", strings.NewReader(url.Values{"token": {agent.Token}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := hc.Do(r); err != nil || resp.StatusCode != http.StatusForbidden || tokenCookie(resp) != nil {
		t.Errorf("a cross-site POST /login: %v %v", resp, err)
	}
}

// /login, the confirm page and the dashboard carry the same headers: never
// framed, this origin's scripts only, no referrer, never cached.
func TestSignInPagesHeaders(t *testing.T) {
	const op = "operator-0123456789abcdef"
	e := newEnv(t, withToken(op))
	agent, err := e.svc.CreateCredential(context.Background(), credentials.Input{Agent: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	hc := e.http.Client()
	for _, path := range []string{"/login", "/", "/?token=" + agent.Token} {
		resp, err := hc.Get(e.http.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s (%d): headers %v", path, resp.StatusCode, h)
		}
	}
}
