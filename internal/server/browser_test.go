package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromium finds a browser for the real-browser test: $BB_CHROMIUM, else
// chromium / chromium-browser / google-chrome on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("BB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found under CI=true: .ci/run installs it (apt-get install -y chromium) or set BB_CHROMIUM")
	}
	t.Skip("no Chromium found (install it with apt-get install -y chromium, or set BB_CHROMIUM): skipping the real-browser test")
	return ""
}

// browser starts one headless Chromium for a test and returns a context
// bound to its tab (each action gets its own timeout from step).
func browser(t *testing.T, width, height int) (context.Context, context.Context) {
	t.Helper()
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(cancelB)
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 4*time.Minute)
	t.Cleanup(cancel)
	return bctx, ctx
}

// signIn takes the name on the dashboard and waits for the page to reload
// itself with it (the name is a cookie; the answer is HX-Refresh).
func signIn(t *testing.T, bctx, ctx context.Context, base, name string) {
	t.Helper()
	stepper(t, bctx, ctx)("sign in as "+name, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.Evaluate[chromedp.Void](`window.__bbSwitching = 1`),
		chromedp.SetValue(chromedp.CSS(`#name`), name), chromedp.Click(chromedp.CSS(`.whoami button`)))
	waitJS(t, bctx, ctx, "the page reloaded as "+name, `!window.__bbSwitching && document.getElementById('name')?.value === '`+name+`'`)
}

// stepper returns step: run the actions on the tab, or take a screenshot
// and fail the test naming what was being done.
func stepper(t *testing.T, bctx, ctx context.Context) func(what string, actions ...chromedp.Action[chromedp.Void]) {
	return func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			shot(t, bctx, "failure")
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// js runs a script that must return true within a few seconds.
func waitJS(t *testing.T, bctx, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a hang guard on a loaded machine, not a measure
	for {
		wctx, cancel := context.WithDeadline(ctx, deadline)
		err := chromedp.Do(wctx, chromedp.Poll[chromedp.Void](expr))
		cancel()
		if err == nil {
			return
		}
		// A page that is loading loses the script's context: poll again.
		if time.Now().After(deadline) || ctx.Err() != nil {
			shot(t, bctx, "failure")
			if txt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + (document.querySelector('#flash')?.innerText || '') + "\n" + (document.querySelector('#conversation')?.innerText || '').slice(0, 1500)`)); err == nil {
				t.Logf("page:\n%s", txt)
			}
			// What the server answers for the timeline now, and the live
			// state: tells a page that missed a refresh from a stale server.
			if txt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
				const x = new XMLHttpRequest();
				x.open('GET', document.querySelector('#timeline')?.getAttribute('hx-get') || '/ui/timeline', false);
				x.send();
				return (window.__log ? 'page log:\n' + window.__log.slice(-60).join('\n') + '\n' : '') + 'live=' + document.getElementById('live')?.dataset.state + ' seq=' + document.getElementById('live')?.dataset.seq + ' requests=' + document.querySelectorAll('.htmx-request').length + '\nserver timeline: ' + x.responseText.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 800);
			})()`)); err == nil {
				t.Logf("%s", txt)
			}
			t.Fatalf("%s: %v (waited for %s)", what, err, expr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// The dashboard in a real browser, one browser for every check: links that
// survive reload and back/forward, a message from another process without
// a reload, the reader's place kept while 20 events arrive (with the "N
// new" marker), accepting a handoff, writing to one agent, answering a
// blocker, searching from the box, and the phone layout.
func TestBrowserDashboard(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	run(t, e.dir, "--as", "amber-otter", "status", "set", "Refactor the config parser", "--status", "coding", "--progress", "60")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	run(t, e.dir, "--as", "cobalt-harbor", "status", "set", "Review the parser PR", "--status", "blocked", "--blockers", "needs the timeout unit decided")
	for i := 1; i <= 30; i++ {
		run(t, e.dir, "--as", "amber-otter", "post", fmt.Sprintf("Progress note %d on the config parser", i), "--tag", "parser")
	}
	run(t, e.dir, "agent", "reserve", "--agent", "amber-otter", "--scope", "src/parser/*", "--bead", "bb-7")
	runCode(t, e.dir, nil, "agent", "reserve", "--agent", "cobalt-harbor", "--scope", "src/parser/lexer.go", "--bead", "bb-7")
	run(t, e.dir, "agent", "send", "--from", "cobalt-harbor", "--to", "ada-human", "--bead", "bb-7",
		"--category", "BLOCKED", "--subject", "Timeout unit?", "--body", "Should timeouts be in ms or s? I need a decision before approving.")
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "ada-human", "--bead", "bb-7",
		"--category", "HANDOFF", "--subject", "Parser ready for review", "--body", "The parser refactor is done; please review.")
	taskOut := run(t, e.dir, "--json", "--as", "amber-otter", "task", "create", "Ship the lexer rewrite", "--desc", "tokens and spans")
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(taskOut), &created); err != nil || created.Data.ID == "" {
		t.Fatalf("task create: %v %s", err, taskOut)
	}

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")
	step("reload", chromedp.Navigate(base+"/"))
	waitJS(t, bctx, ctx, "signed in", `document.querySelector('.composer button')?.innerText.includes('ada-human')`)

	// Links that last: every view's URL reloads to the same view.
	for _, v := range []struct{ url, want string }{
		{"/?session=bead:bb-7", "Parser ready for review"},
		{"/?session=" + url.QueryEscape("bead:bb-7"), "Parser ready for review"},
		{"/?session=agent:amber-otter", "Refactor the config parser"},
		{"/?session=bead:" + created.Data.ID, "Ship the lexer rewrite"},
		{"/?q=timeout", "Search: “timeout”"},
	} {
		step("open "+v.url, chromedp.Navigate(base+v.url))
		for _, load := range []string{"first load", "reload"} {
			waitJS(t, bctx, ctx, v.url+" "+load, `document.querySelector('#conversation .convo-title')?.innerText.includes(`+strconv.Quote(v.want)+`) && !document.querySelector('.col-convo .flash')`)
			step("reload", chromedp.Reload())
		}
	}
	// A click pushes a URL that survives reload, back and forward.
	step("open Everything", chromedp.Navigate(base+"/"))
	waitJS(t, bctx, ctx, "live", `document.getElementById('live').dataset.state === 'on'`)
	step("click the bb-7 card", chromedp.Evaluate[chromedp.Void](`document.querySelector('.card[data-key="bead:bb-7"]').click()`))
	waitJS(t, bctx, ctx, "bb-7 opened", `new URLSearchParams(location.search).get('session') === 'bead:bb-7' && document.querySelector('#conversation .convo-title').innerText.includes('Parser ready for review')`)
	step("reload the pushed URL", chromedp.Reload())
	waitJS(t, bctx, ctx, "bb-7 after reload", `document.querySelector('.card.selected')?.dataset.key === 'bead:bb-7' && !document.querySelector('.col-convo .flash')`)
	step("click the agent card", chromedp.Evaluate[chromedp.Void](`document.querySelector('.card[data-key="agent:amber-otter"]').click()`))
	waitJS(t, bctx, ctx, "agent opened", `new URLSearchParams(location.search).get('session') === 'agent:amber-otter'`)
	step("back", chromedp.NavigateBack())
	waitJS(t, bctx, ctx, "back to bb-7", `new URLSearchParams(location.search).get('session') === 'bead:bb-7' && document.querySelector('#conversation .convo-title')?.innerText.includes('Parser ready for review')`)
	step("forward", chromedp.NavigateForward())
	waitJS(t, bctx, ctx, "forward to the agent", `document.querySelector('#conversation .convo-title')?.innerText.includes('Refactor the config parser')`)

	// The session opens on what needs attention; the newest row is on top.
	step("open bb-7", chromedp.Navigate(base+"/?session=bead:bb-7"))
	// cobalt-harbor's refused reserve changed nothing: it is in the
	// timeline as a refusal, never in Needs attention as an incursion.
	waitJS(t, bctx, ctx, "attention", `document.querySelector('.attention')?.textContent.includes('Timeout unit?') && document.querySelector('.attention').textContent.includes('Parser ready for review') && !/incursion/i.test(document.querySelector('.attention').textContent) && [...document.querySelectorAll('ol.timeline > li')].some(li => li.innerText.includes('was refused src/parser/lexer.go'))`)
	waitJS(t, bctx, ctx, "newest first", `document.querySelector('ol.timeline > li.msg .subject')?.innerText === 'Parser ready for review'`)
	// Every time of the conversation is in the dashboard's one wording
	// (hub.WhenText on the board's clock), never a browser's clock time.
	waitJS(t, bctx, ctx, "times in one wording", `[...document.querySelectorAll('ol.timeline time')].length > 0 && [...document.querySelectorAll('ol.timeline time')].every(el => /^(just now|\d+[mhdw] ago|in \S+|\d{4}-\d\d-\d\d \d\d:\d\d)$/.test(el.innerText.trim()))`)
	waitJS(t, bctx, ctx, "live", `document.getElementById('live').dataset.state === 'on'`)
	step("mark this page load", chromedp.Evaluate[chromedp.Void](`window.__bbNoReload = 42`))

	// A separate bb process writes; the page shows it without a reload, as text.
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "ada-human", "--bead", "bb-7",
		"--category", "INFO", "--subject", "Live update", "--body", "Written by another process <b>not bold</b>")
	waitJS(t, bctx, ctx, "live message", `document.body.innerText.includes('Written by another process <b>not bold</b>') && window.__bbNoReload === 42`)
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.timeline .body b').length`); n != 0 {
		t.Fatalf("agent text rendered as HTML: %d", n)
	}
	// Broadcasts carry no buttons; the handoff addressed to the viewer does.
	if n := evalJS[int](t, ctx, `document.querySelectorAll('#timeline li.msg:not(.needs-ack) .act-ack').length`); n != 0 {
		t.Errorf("%d Accept buttons on rows that ask for no ack", n)
	}
	accepted := `[...document.querySelectorAll('.row.msg')].find(li => li.innerText.includes('Parser ready for review'))?.querySelector('.state.accepted')?.innerText.includes('Accepted') === true`
	for try := 0; ; try++ {
		waitJS(t, bctx, ctx, "idle", `document.querySelectorAll('.htmx-request').length === 0`)
		step("click Accept", chromedp.Evaluate[chromedp.Void](`(() => { const b = [...document.querySelectorAll('.row.msg')].find(li => li.innerText.includes('Parser ready for review')).querySelector('.act-ack'); if (b) b.click(); })()`))
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		err := chromedp.Do(wctx, chromedp.Poll[chromedp.Void](accepted))
		wcancel()
		if err == nil {
			break
		}
		if try == 3 {
			shot(t, bctx, "failure")
			t.Fatalf("Accepted never shown: %v", err)
		}
	}
	if acked := run(t, e.dir, "--json", "agent", "inbox", "--agent", "ada-human", "--state", "acked"); !strings.Contains(acked, "Parser ready for review") {
		t.Fatalf("ack not stored: %s", acked)
	}

	// Answer the blocker: a DECISION to cobalt-harbor, and the blocker accepted.
	waitJS(t, bctx, ctx, "idle", `document.querySelectorAll('.htmx-request').length === 0`)
	step("answer the blocker", chromedp.Evaluate[chromedp.Void](`(() => {
		const li = [...document.querySelectorAll('.row.msg')].find(li => li.innerText.includes('Timeout unit?'));
		li.querySelector('details.answer').open = true;
		li.querySelector('.answer-form textarea').value = 'Use milliseconds everywhere.';
		li.querySelector('.answer-form').requestSubmit();
	})()`))
	waitJS(t, bctx, ctx, "answer shown", `[...document.querySelectorAll('.row.msg')].some(li => li.innerText.includes('Use milliseconds everywhere.'))`)
	if in := run(t, e.dir, "--json", "agent", "inbox", "--agent", "cobalt-harbor"); !strings.Contains(in, "Use milliseconds everywhere.") || !strings.Contains(in, "DECISION") || !strings.Contains(in, "ada-human") {
		t.Fatalf("the answer is not in cobalt-harbor's inbox: %s", in)
	}
	if acked := run(t, e.dir, "--json", "agent", "inbox", "--agent", "ada-human", "--state", "acked"); !strings.Contains(acked, "Timeout unit?") {
		t.Fatalf("the blocker was not accepted: %s", acked)
	}

	// Compose to one agent: amber-otter's inbox shows it.
	waitJS(t, bctx, ctx, "idle", `document.querySelectorAll('.htmx-request').length === 0`)
	step("write to amber-otter", chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.querySelector('.composer');
		f.querySelector('#to').value = 'amber-otter';
		f.querySelector('#to').dispatchEvent(new Event('change', {bubbles: true}));
		f.querySelector('[name=kind]').value = 'HANDOFF';
		f.querySelector('#content').value = 'Please also cover the lexer edge cases';
		f.requestSubmit();
	})()`))
	waitJS(t, bctx, ctx, "sent", `[...document.querySelectorAll('.row.msg')].some(li => li.innerText.includes('Please also cover the lexer edge cases'))`)
	if in := run(t, e.dir, "--json", "agent", "inbox", "--agent", "amber-otter"); !strings.Contains(in, "Please also cover the lexer edge cases") || !strings.Contains(in, "HANDOFF") {
		t.Fatalf("not in amber-otter's inbox: %s", in)
	}

	// The reader's place is kept while 20 events arrive from another process.
	step("open Everything", chromedp.Navigate(base+"/"))
	waitJS(t, bctx, ctx, "live", `document.getElementById('live').dataset.state === 'on' && document.querySelectorAll('ol.timeline > li[id]').length > 30`)
	step("scroll down the timeline", chromedp.Evaluate[chromedp.Void](`(() => {
		const ol = document.querySelector('ol.timeline');
		const li = [...ol.querySelectorAll(':scope > li[id]')][12];
		ol.scrollTop += li.getBoundingClientRect().top - ol.getBoundingClientRect().top;
		window.__anchor = li.id;
		window.__offset = li.getBoundingClientRect().top;
	})()`))
	evalJS[bool](t, ctx, `(() => {
		window.__log = [];
		const note = (s) => { window.__log.push(Math.round(performance.now()) + ' ' + s); };
		['bb:changed', 'htmx:beforeRequest', 'htmx:beforeSwap', 'htmx:afterSwap', 'htmx:responseError', 'htmx:sendError', 'htmx:sendAbort', 'htmx:abort'].forEach(n =>
			document.body.addEventListener(n, (e) => note(n + ' ' + (e.detail?.elt?.id || e.target?.id || '') + (n === 'bb:changed' ? ' seq=' + document.getElementById('live').dataset.seq : ''))));
		return true;
	})()`)
	for i := 1; i <= 20; i++ {
		run(t, e.dir, "--as", "cobalt-harbor", "post", fmt.Sprintf("Burst %d from another process", i))
	}
	waitJS(t, bctx, ctx, "the 20th row", `document.querySelector('ol.timeline > li.msg .body')?.textContent === 'Burst 20 from another process' && document.querySelectorAll('.htmx-request').length === 0`)
	if m := evalJS[string](t, ctx, `(document.querySelector('#timeline .new-marker').hidden ? 'hidden ' : '') + document.querySelector('#timeline .new-marker').innerText`); !strings.HasPrefix(m, "20 new") {
		shot(t, bctx, "failure")
		t.Fatalf("marker %q; want 20 new", m)
	}
	if d := evalJS[float64](t, ctx, `Math.abs(document.getElementById(window.__anchor).getBoundingClientRect().top - window.__offset)`); d > 2 {
		t.Errorf("the row the reader looked at moved by %.0f px", d)
	}
	step("click the marker", chromedp.Evaluate[chromedp.Void](`document.querySelector('#timeline .new-marker').click()`))
	waitJS(t, bctx, ctx, "back on top", `document.querySelector('ol.timeline').scrollTop === 0 && document.querySelector('#timeline .new-marker').hidden && document.querySelector('ol.timeline > li.msg .body').innerText === 'Burst 20 from another process'`)

	// Search from the box.
	step("search", chromedp.SetValue(chromedp.CSS(`#q`), `"timeout unit`), chromedp.Submit(chromedp.CSS(`#q`)))
	waitJS(t, bctx, ctx, "results", `location.search.startsWith('?q=') && [...document.querySelectorAll('.hit mark')].some(m => m.innerText.toLowerCase() === 'timeout')`)
	step("reload the search", chromedp.Reload())
	waitJS(t, bctx, ctx, "results after reload", `document.querySelectorAll('.hit').length >= 1`)
	step("bad query", chromedp.Navigate(base+"/?q="+url.QueryEscape(`"()*`)))
	waitJS(t, bctx, ctx, "clear error", `document.querySelector('.col-convo .flash')?.innerText.includes('has no words')`)

	// Hide stale and offline agents; the filter is in the URL.
	step("filter", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#hide-stale`)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('hide-stale').click()`))
	waitJS(t, bctx, ctx, "filter in the URL", `location.search.includes('hide=stale') && document.body.classList.contains('hide-stale')`)

	// Phone: tabs, the conversation first, needs-input one tap away.
	step("phone width", chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/?session=bead:bb-7"))
	waitJS(t, bctx, ctx, "phone opens on the conversation", `getComputedStyle(document.querySelector('.tabs')).display === 'flex' && document.querySelector('.col-convo').offsetHeight > 0 && document.querySelector('.col-agents').offsetHeight === 0 && document.querySelector('#conversation').getBoundingClientRect().top < 844`)
	step("Work tab", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-tab-to="work"]').click()`))
	waitJS(t, bctx, ctx, "work shown", `document.querySelector('.col-feed').offsetHeight > 0 && document.querySelector('.col-convo').offsetHeight === 0 && location.search.includes('tab=work')`)
}

// A change the server announces while the timeline's own refresh is on the
// wire still reaches the page. htmx queues the second refresh on the panel
// that is about to be swapped out, and drops it with the old element; the
// page must ask again. The test holds the first refresh's answer until the
// second change has been announced, so the race happens every time.
func TestBrowserChangeDuringRefresh(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "--as", "amber-otter", "post", "Before the race")
	bctx, ctx := browser(t, 1200, 800)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, bctx, ctx, "live", `document.getElementById('live').dataset.state === 'on' && document.querySelectorAll('.htmx-request').length === 0 && document.querySelector('ol.timeline > li.msg .body')?.textContent === 'Before the race'`)
	// Hold the next timeline answer in the page until the test releases it.
	evalJS[bool](t, ctx, `(() => {
		window.__changes = 0;
		document.body.addEventListener('bb:changed', () => window.__changes++);
		const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
		XMLHttpRequest.prototype.open = function (m, u) { this.__url = String(u); return open.apply(this, arguments); };
		XMLHttpRequest.prototype.send = function (b) {
			if (window.__hold && this.__url.includes('/ui/timeline')) {
				window.__hold = false;
				const xhr = this, done = xhr.onload;
				xhr.onload = function (ev) {
					window.__held = window.__changes;
					const go = () => window.__release ? done.call(xhr, ev) : setTimeout(go, 20);
					go();
				};
			}
			return send.apply(this, arguments);
		};
		window.__hold = true;
		return true;
	})()`)
	run(t, e.dir, "--as", "amber-otter", "post", "First of two")
	waitJS(t, bctx, ctx, "the first refresh is held", `window.__held !== undefined`)
	run(t, e.dir, "--as", "amber-otter", "post", "Second of two")
	waitJS(t, bctx, ctx, "the second change announced", `window.__changes > window.__held`)
	// A post is announced as more than one event; let them all arrive
	// before the held answer is let through, so only the refresh queued
	// behind it can show the second post.
	time.Sleep(1500 * time.Millisecond)
	evalJS[bool](t, ctx, `window.__release = true`)
	waitJS(t, bctx, ctx, "the second post shown", `document.querySelector('ol.timeline > li.msg .body')?.textContent === 'Second of two'`)
}

// TestBrowserScreenshots regenerates docs/dashboard*.png from a fresh demo
// board (bb demo) when BB_UPDATE_SCREENSHOT=1: desktop, dark and phone.
func TestBrowserScreenshots(t *testing.T) {
	if os.Getenv("BB_UPDATE_SCREENSHOT") == "" {
		t.Skip("set BB_UPDATE_SCREENSHOT=1 to regenerate docs/dashboard*.png")
	}
	tmp := t.TempDir()
	_, _, code := runCode(t, tmp, []string{"TMPDIR=" + tmp}, "demo", "--keep")
	if code != 0 {
		t.Fatal("bb demo failed")
	}
	demos, _ := filepath.Glob(filepath.Join(tmp, "bb-demo-*"))
	if len(demos) != 1 {
		t.Fatalf("demo board not found in %s", tmp)
	}
	e := newEnv(t, withDir(demos[0]))
	bctx, ctx := browser(t, 1400, 900)
	page := e.http.URL + "/?session=bead:gh-17"
	take := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, append(actions, chromedp.Navigate(page))...); err != nil {
			t.Fatal(err)
		}
		waitJS(t, bctx, ctx, name, `document.getElementById('live').dataset.state === 'on' && document.querySelectorAll('.htmx-request').length === 0`)
		time.Sleep(300 * time.Millisecond)
		p := shot(t, bctx, name)
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join("..", "..", "docs", name+".png"), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	take("dashboard")
	take("dashboard-dark", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	take("dashboard-phone", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	}), chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
}

// shot saves a screenshot under the test's temp dir and logs its path.
func shot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(t.TempDir(), name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// BB_SCREENSHOT_DIR keeps a copy after the test, to look at.
	if dir := os.Getenv("BB_SCREENSHOT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, t.Name()+"-"+name+".png"), b, 0o644); err != nil {
			t.Logf("keep screenshot %s: %v", name, err)
		}
	}
	t.Logf("screenshot: %s", p)
	return p
}

// Stepping in from a real browser: the person hands an offline agent's
// reservation to an active one from the Reservations list, then writes to
// that agent with priority high; the agent's inbox shows the mail with its
// priority and bb agent status shows it holding the files.
func TestBrowserStepIn(t *testing.T) {
	e, at := offlineHolderBoard(t)
	at(0, "agent", "register", "--name", "ada-human", "--role", "human")

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")
	step("reload", chromedp.Navigate(base+"/?session=bead:bb-1"))
	waitJS(t, bctx, ctx, "step-in offered on bob-1's reservation", `document.querySelector('.composer button')?.innerText.includes('ada-human') && document.querySelectorAll('.act-reassign').length === 1 && document.getElementById('live').dataset.state === 'on'`)
	shot(t, bctx, "stepin-before")
	// Choose carol and press Reassign in one turn of the page's event loop:
	// a live update between the two (the SSE stream swaps the Reservations
	// list) would otherwise press a fresh form whose required choice is
	// still empty, and the browser would not send it.
	if !evalJS[bool](t, ctx, `(() => {
		const b = document.querySelector('.act-reassign');
		if (!b) return false;
		b.form.querySelector('select[name=to]').value = 'carol';
		b.click();
		return true;
	})()`) {
		t.Fatal("reassign to carol: no step-in form to press")
	}
	waitJS(t, bctx, ctx, "carol holds it", `document.querySelectorAll('.act-reassign').length === 0 && [...document.querySelectorAll('.reservation')].some(r => r.innerText.includes('src/lexer.go') && r.innerText.includes('carol'))`)
	if st := run(t, e.dir, "--json", "agent", "status", "--agent", "carol"); !strings.Contains(st, `"scope": "src/lexer.go"`) {
		t.Fatalf("carol's reservation on the CLI: %s", st)
	}

	step("write to carol with priority high",
		chromedp.SetValue(chromedp.CSS(`#to`), "carol"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('to').dispatchEvent(new Event('change', {bubbles: true}))`),
		chromedp.SetValue(chromedp.CSS(`.composer select[name=priority]`), "high"),
		chromedp.SetValue(chromedp.CSS(`#content`), "You hold src/lexer.go now; bob-1 is gone."),
		chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
	waitJS(t, bctx, ctx, "sent", `[...document.querySelectorAll('#timeline li.msg')].some(li => li.innerText.includes('You hold src/lexer.go now') && li.querySelector('.prio-high'))`)
	shot(t, bctx, "stepin-after")
	in := run(t, e.dir, "--json", "agent", "inbox", "--agent", "carol")
	if !strings.Contains(in, "You hold src/lexer.go now") || !strings.Contains(in, `"priority": "high"`) || !strings.Contains(in, `"from_agent": "ada-human"`) {
		t.Fatalf("carol's inbox: %s", in)
	}
}
