package server_test

import (
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The dashboard learns who you are from the credential (issue 28): the
// sign-in page takes a token and keeps it in an HttpOnly cookie; signed in
// with an agent's credential the page is that agent and cannot switch; a
// token-less loopback server says that anyone on the machine can act.
func TestBrowserSignIn(t *testing.T) {
	e := newEnv(t, withToken("operator-0123456789abcdef"))
	nc, err := e.svc.CreateCredential(context.Background(), credentials.Input{Agent: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	ana, err := e.svc.CreateCredential(context.Background(), credentials.Input{Agent: "ana", Role: hub.AccessOverseer})
	if err != nil {
		t.Fatal(err)
	}
	local := newEnv(t)
	bctx, ctx := browser(t, 1200, 800)
	step := stepper(t, bctx, ctx)

	step("open the dashboard", chromedp.Navigate(e.http.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	step("a wrong token", chromedp.SetValue(chromedp.CSS(`#token`), "bbt_not-a-real-credential"), chromedp.Submit(chromedp.CSS(`#token`)))
	waitJS(t, bctx, ctx, "refused", `document.querySelector('#login-error')?.innerText.includes('invalid credential')`)
	step("mallory's token", chromedp.SetValue(chromedp.CSS(`#token`), nc.Token), chromedp.Submit(chromedp.CSS(`#token`)))
	waitJS(t, bctx, ctx, "signed in as mallory", `document.querySelector('#viewer')?.innerText === 'mallory' && !document.querySelector('#name') && document.querySelector('#credential').innerText.includes('agent')`)
	if c := evalJS[string](t, ctx, `document.cookie`); c != "" {
		t.Fatalf("the token cookie is readable by scripts: %q", c)
	}
	// Switching to another name is refused, whatever the page sends.
	status := evalJS[int](t, ctx, `(() => { const x = new XMLHttpRequest(); x.open('POST', '/ui/identity', false);
		x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded'); x.send('name=alice'); return x.status; })()`)
	if status != 403 {
		t.Fatalf("switching to alice: %d, want 403", status)
	}
	// The audit: events made with the credential name it.
	e.token = nc.Token
	e.ok(req{method: "POST", path: "/api/v1/status", body: `{"task":"honest work","status":"coding"}`}, nil)
	step("mallory's conversation", chromedp.Navigate(e.http.URL+"/?session=agent:mallory"))
	waitJS(t, bctx, ctx, "the credential shown", `[...document.querySelectorAll('.timeline .credential')].some(x => x.innerText === 'via mallory')`)
	// A link with another credential (issue 38 item 6), even one whose
	// path names another host: the browser stays on this server and asks;
	// "stay" keeps mallory, "sign in" switches.
	host := strings.TrimPrefix(e.http.URL, "http://")
	step("a link with ana's token", chromedp.Navigate(e.http.URL+"//evil.example/?token="+ana.Token), chromedp.WaitVisible(chromedp.CSS(`#switch-current`)))
	waitJS(t, bctx, ctx, "asked on this server", `location.host === '`+host+`' && document.querySelector('#switch-current').innerText.includes('mallory')`)
	step("stay", chromedp.Click(chromedp.CSS(`#switch-no`)))
	waitJS(t, bctx, ctx, "stayed on this server", `location.host === '`+host+`' && location.pathname === '/evil.example/'`)
	step("the dashboard", chromedp.Navigate(e.http.URL+"/"))
	waitJS(t, bctx, ctx, "still mallory", `document.querySelector('#viewer')?.innerText === 'mallory'`)
	step("the link again", chromedp.Navigate(e.http.URL+"//evil.example/?token="+ana.Token), chromedp.WaitVisible(chromedp.CSS(`#switch-yes`)))
	step("sign in with it", chromedp.Click(chromedp.CSS(`#switch-yes`)))
	waitJS(t, bctx, ctx, "went on, on this server", `location.host === '`+host+`' && location.pathname === '/evil.example/'`)
	step("the dashboard", chromedp.Navigate(e.http.URL+"/"))
	waitJS(t, bctx, ctx, "ana now", `document.querySelector('#viewer')?.innerText === 'ana'`)
	step("sign out", chromedp.Click(chromedp.CSS(`.whoami button`)), chromedp.WaitVisible(chromedp.CSS(`#token`)))

	step("a token-less loopback server", chromedp.Navigate(local.http.URL+"/"))
	waitJS(t, bctx, ctx, "local notice", `document.querySelector('#local-notice')?.innerText === 'local, no sign-in: anyone on this machine can act' && !!document.querySelector('#name')`)
}
