package server_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

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

// Stepping in on a lease from a real browser: bob-1 went offline holding
// the build slot and deploy:staging; the person hands the slot to carol and
// releases deploy:staging from the Leases panel. carol's own lease (she is
// active) offers nothing, and the core refuses a step in on it.
func TestBrowserLeaseStepIn(t *testing.T) {
	e, at := offlineHolderBoard(t)
	at(-40*time.Minute, "--as", "bob-1", "lease", "acquire", "build", "--capacity", "2")
	at(-40*time.Minute, "--as", "bob-1", "lease", "acquire", "deploy:staging")
	at(0, "--as", "carol", "lease", "acquire", "db:migrations")
	at(0, "agent", "register", "--name", "ada-human", "--role", "human")

	code, body := e.html("POST", "/ui/lease/stepin", url.Values{"name": {"db:migrations"}, "holder": {"carol"}, "action": {"release"}}, "bb_human=ada-human")
	if code == 200 || !strings.Contains(body, "carol is active") {
		t.Fatalf("step in on an active holder's lease: %d %s", code, body)
	}

	bctx, ctx := browser(t, 1400, 900)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")
	stepper(t, bctx, ctx)("reload", chromedp.Navigate(base+"/"))
	lease := func(name string) string { return `document.querySelector('#leases li[data-lease="` + name + `"]')` }
	waitJS(t, bctx, ctx, "step-in offered on bob-1's leases only", lease("build")+`?.querySelector('.act-lease-handover') && `+lease("deploy:staging")+`?.querySelector('.act-lease-release') && !`+lease("db:migrations")+`?.querySelector('.act-lease-release') && document.getElementById('live').dataset.state === 'on'`)
	shot(t, bctx, "lease-stepin-before")
	// Choose carol and press in one turn of the page's event loop (a live
	// swap in between would press a fresh form with nothing chosen).
	if !evalJS[bool](t, ctx, `(() => {
		const b = `+lease("build")+`?.querySelector('.act-lease-handover');
		if (!b) return false;
		b.form.querySelector('select[name=to]').value = 'carol';
		b.click();
		return true;
	})()`) {
		t.Fatal("hand over build: no form to press")
	}
	waitJS(t, bctx, ctx, "carol holds the build slot", lease("build")+`?.querySelector('[data-holder="carol"]') && !`+lease("build")+`.querySelector('[data-holder="bob-1"]')`)
	waitJS(t, bctx, ctx, "idle", `document.querySelectorAll('.htmx-request').length === 0`)
	if !evalJS[bool](t, ctx, `(() => { const b = `+lease("deploy:staging")+`?.querySelector('.act-lease-release'); if (!b) return false; b.click(); return true; })()`) {
		t.Fatal("release deploy:staging: no button")
	}
	waitJS(t, bctx, ctx, "deploy:staging released", `!`+lease("deploy:staging"))
	shot(t, bctx, "lease-stepin-after")

	if show := run(t, e.dir, "--json", "lease", "show", "build"); !strings.Contains(show, `"agent": "carol"`) || strings.Contains(show, `"agent": "bob-1"`) {
		t.Fatalf("bb lease show build: %s", show)
	}
	if ev := run(t, e.dir, "events"); !strings.Contains(ev, "ada-human released bob-1's deploy:staging") || !strings.Contains(ev, "ada-human handed build from bob-1 (offline) to carol") {
		t.Fatalf("the step-ins are not in the timeline under the person's name: %s", ev)
	}
}
