package server_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A real browser: the dashboard shows a message written by a separate bb
// process without a reload, and "Accept" turns into "Accepted".
func TestBrowserDashboardLive(t *testing.T) {
	exe := chromium(t)
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	run(t, e.dir, "--as", "amber-otter", "status", "set", "Refactor the config parser", "--status", "coding", "--progress", "60")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	run(t, e.dir, "--as", "cobalt-harbor", "status", "set", "Review the parser PR", "--status", "blocked", "--blockers", "needs the timeout unit decided")
	run(t, e.dir, "--as", "amber-otter", "post", "Starting on the config parser; please avoid src/parser for an hour", "--tag", "parser")
	run(t, e.dir, "agent", "reserve", "--agent", "amber-otter", "--scope", "src/parser/*", "--bead", "bb-7")
	// cobalt-harbor bumps into it: an INCURSION row (the reserve fails).
	runCode(t, e.dir, nil, "agent", "reserve", "--agent", "cobalt-harbor", "--scope", "src/parser/lexer.go", "--bead", "bb-7")
	run(t, e.dir, "agent", "send", "--from", "cobalt-harbor", "--to", "ada-human", "--bead", "bb-7",
		"--category", "BLOCKED", "--subject", "Timeout unit?", "--body", "Should timeouts be in ms or s? I need a decision before approving.")
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "ada-human", "--bead", "bb-7",
		"--category", "HANDOFF", "--subject", "Parser ready for review", "--body", "The parser refactor is done; please review.")

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	page := e.http.URL + "/?session=" + url.QueryEscape("bead:bb-7")
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			shot(t, bctx, "failure")
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("open the dashboard and sign in as ada-human",
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.SetValue(chromedp.CSS(`#name`), "ada-human"),
		chromedp.Click(chromedp.CSS(`.whoami button`)),
	)
	// The name is a cookie; the page reloads itself (HX-Refresh).
	time.Sleep(time.Second)
	step("signed in",
		chromedp.Navigate(page),
		chromedp.Poll[chromedp.Void](`document.querySelector('.composer button') && document.querySelector('.composer button').innerText.includes('ada-human')`),
		chromedp.Poll[chromedp.Void](`document.getElementById('live').dataset.state === 'on'`),
	)
	step("the handoff is labelled Passed to",
		chromedp.Poll[chromedp.Void](`document.body.innerText.includes('Parser ready for review') && document.body.innerText.toLowerCase().includes('passed to')`),
		// Marks this page load: a reload would lose it.
		chromedp.Evaluate[chromedp.Void](`window.__bbNoReload = 42`),
	)

	// A separate bb process writes; the page shows it without a reload.
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "ada-human", "--bead", "bb-7",
		"--category", "INFO", "--subject", "Live update", "--body", "Written by another process <b>not bold</b>")
	step("the new message appears without a reload",
		chromedp.Poll[chromedp.Void](`document.body.innerText.includes('Written by another process <b>not bold</b>')`),
		chromedp.Poll[chromedp.Void](`window.__bbNoReload === 42`),
	)
	// The body is text, not markup.
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.timeline .body b').length`)); err != nil || n != 0 {
		t.Fatalf("agent text rendered as HTML: %d %v", n, err)
	}
	// Accept the handoff. A live refresh may replace the button just as it
	// is clicked; click again until the stored state shows it.
	accepted := `[...document.querySelectorAll('.row.msg')].find(li => li.innerText.includes('Parser ready for review')).querySelector('.state.accepted')?.innerText.includes('Accepted') === true`
	for try := 0; ; try++ {
		step("click Accept",
			chromedp.Poll[chromedp.Void](`document.querySelectorAll('.htmx-request').length === 0`),
			chromedp.Evaluate[chromedp.Void](`(() => { const b = [...document.querySelectorAll('.row.msg')].find(li => li.innerText.includes('Parser ready for review')).querySelector('.act-ack'); if (b) b.click(); })()`),
		)
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
	step("still the same page", chromedp.Poll[chromedp.Void](`window.__bbNoReload === 42`))
	acked := run(t, e.dir, "--json", "agent", "inbox", "--agent", "ada-human", "--state", "acked")
	if !strings.Contains(acked, "Parser ready for review") {
		t.Fatalf("ack not stored: %s", acked)
	}
	// Phone width still renders every panel.
	step("phone width",
		chromedp.EmulateViewport(390, 844),
		chromedp.Poll[chromedp.Void](`document.querySelector('#agents').getBoundingClientRect().width <= 390`),
	)
	phone := shot(t, bctx, "dashboard-phone")
	step("laptop width", chromedp.EmulateViewport(1400, 900))
	laptop := shot(t, bctx, "dashboard")
	// BB_UPDATE_SCREENSHOT=1 refreshes the README's screenshots.
	if os.Getenv("BB_UPDATE_SCREENSHOT") != "" {
		for from, to := range map[string]string{laptop: "dashboard.png", phone: "dashboard-phone.png"} {
			b, err := os.ReadFile(from)
			if err == nil {
				err = os.WriteFile(filepath.Join("..", "..", "docs", to), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
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
	t.Logf("screenshot: %s", p)
	return p
}
