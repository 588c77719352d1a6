package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// The dashboard's Leases panel and agent cards, in a real browser: a
// port and a build slot held by two agents, a waiter; a lease acquired
// by another process shows without a reload.
func TestBrowserLeases(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "--as", "wise-robin", "lease", "acquire", "build", "--capacity", "1")
	run(t, e.dir, "--as", "wise-robin", "lease", "acquire", "--port", "web")
	run(t, e.dir, "--as", "calm-otter", "lease", "acquire", "deploy:staging")

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	step("open", chromedp.Navigate(e.http.URL+"/"))
	lease := func(name string) string { return `document.querySelector('#leases li[data-lease="` + name + `"]')` }
	waitJS(t, bctx, ctx, "the leases panel", lease("build")+`?.querySelector('[data-holder="wise-robin"]') && `+
		lease("port:web")+`?.innerText.includes('wise-robin = ') && `+lease("deploy:staging")+`?.innerText.includes('calm-otter') && document.getElementById('live').dataset.state === 'on'`)
	waitJS(t, bctx, ctx, "the agent card", `document.querySelector('li.agent[data-agent="wise-robin"] .leases')?.innerText.includes('port:web = ')`)
	step("mark this page load", chromedp.Evaluate[chromedp.Void](`window.__bbNoReload = 9`))

	// Another process acquires: the panel shows it without a reload.
	run(t, e.dir, "--as", "jolly-fox", "lease", "acquire", "name:db")
	waitJS(t, bctx, ctx, "live lease", lease("name:db")+`?.innerText.includes('db-jolly-fox') && window.__bbNoReload === 9`)
	shot(t, bctx, "leases")
}
