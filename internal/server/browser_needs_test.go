package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Needs a person, in a real browser: the board-wide list of the core
// (overview.Attention) with the escalated blocker marked and its waiting
// minutes, a blocker from another process shown without a reload, a
// handoff that escalates while the page is open, and Accept from the
// panel clearing the item (stored as the person's ack). The service's
// clock stands still until the test moves it past the handoff's
// escalation, so "not escalated yet" holds however slow the machine is.
func TestBrowserNeedsAPerson(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	clock := &stepClock{t: now}
	e := newEnv(t, withStepClock(clock))
	at := func(d time.Duration) []string { return []string{"BB_NOW=" + now.Add(d).Format(time.RFC3339)} }
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "worker")
	send := func(when []string, from, to, bead, cat, subject string) {
		t.Helper()
		if out, errOut, code := runCode(t, e.dir, when, "agent", "send", "--from", from, "--to", to, "--bead", bead,
			"--category", cat, "--subject", subject, "--body", subject); code != 0 {
			t.Fatalf("send %s: exit %d %s %s", subject, code, out, errOut)
		}
	}
	send(at(-20*time.Minute), "cobalt-harbor", "ada-human", "bb-7", "BLOCKED", "Timeout unit?")
	send(at(-15*time.Minute+5*time.Second), "amber-otter", "ada-human", "bb-8", "HANDOFF", "Parser ready for review")
	send(at(-time.Minute), "amber-otter", "cobalt-harbor", "bb-9", "HANDOFF", "Lexer for cobalt")

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")
	step("reload", chromedp.Navigate(base+"/"))
	need := func(subject string) string {
		return `[...document.querySelectorAll('#needs li.need')].find(li => li.innerText.includes('` + subject + `'))`
	}
	waitJS(t, bctx, ctx, "the escalated blocker", need("Timeout unit?")+`?.classList.contains('escalated') && `+need("Timeout unit?")+
		`.innerText.includes('cobalt-harbor is blocked on ada-human for 20 minutes') && `+need("Timeout unit?")+`.innerText.includes('waiting 20 min') && document.getElementById('live').dataset.state === 'on'`)
	waitJS(t, bctx, ctx, "the handoff, not escalated yet", need("Parser ready for review")+` && !`+need("Parser ready for review")+`.classList.contains('escalated')`)
	if !evalJS[bool](t, ctx, need("Lexer for cobalt")+`?.innerText.includes('amber-otter hands over to cobalt-harbor') && !`+need("Lexer for cobalt")+`.querySelector('.act-accept-need') && !!`+need("Timeout unit?")+`.querySelector('.act-accept-need')`) {
		shot(t, bctx, "failure")
		t.Fatal("Accept is offered on what waits on the viewer only")
	}
	step("mark this page load", chromedp.Evaluate[chromedp.Void](`window.__bbNoReload = 7`))

	// Another process raises a blocker: it shows without a reload.
	send(at(0), "amber-otter", "ada-human", "bb-8", "BLOCKED", "Which port?")
	waitJS(t, bctx, ctx, "live blocker", need("Which port?")+`?.innerText.includes('amber-otter is blocked on ada-human') && window.__bbNoReload === 7`)

	// The handoff escalates while the page is open, with nothing else
	// happening on the board: the panel reads the list again when it is due
	// (and again each time it finds it not yet crossed).
	clock.advance(10 * time.Second)
	deadline := time.Now().Add(90 * time.Second) // a hang guard, not a measure
	for !evalJS[bool](t, ctx, `!!`+need("Parser ready for review")+`?.classList.contains('escalated') && window.__bbNoReload === 7`) {
		if time.Now().After(deadline) {
			shot(t, bctx, "failure")
			t.Fatal("the handoff never showed as escalated")
		}
		time.Sleep(250 * time.Millisecond)
	}
	if first := evalJS[string](t, ctx, `document.querySelector('#needs li.need')?.innerText || ''`); !strings.Contains(first, "Timeout unit?") {
		t.Errorf("the longest-waiting escalation is not on top: %q", first)
	}
	shot(t, bctx, "needs")

	// Accept from the panel: gone from it, stored as ada-human's ack.
	waitJS(t, bctx, ctx, "idle", `document.querySelectorAll('.htmx-request').length === 0`)
	step("accept the blocker", chromedp.Evaluate[chromedp.Void](need("Timeout unit?")+`.querySelector('.act-accept-need').click()`))
	waitJS(t, bctx, ctx, "accepted blocker gone", `!`+need("Timeout unit?")+` && !!`+need("Which port?"))
	if acked := run(t, e.dir, "--json", "agent", "inbox", "--agent", "ada-human", "--state", "acked"); !strings.Contains(acked, "Timeout unit?") {
		t.Fatalf("the ack is not stored: %s", acked)
	}
	shot(t, bctx, "needs-after-accept")
}
