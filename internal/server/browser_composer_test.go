package server_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/blackboard-hub/bb/internal/hub"
)

// The composer: a subject of its own (sent as the mail's subject, the
// text as its body, not the text twice), the board's limit on a message
// (the core's constant), and in an agent's session the recipient is that
// agent.
func TestBrowserComposer(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "worker")
	run(t, e.dir, "--as", "amber-otter", "status", "set", "Refactor the parser", "--status", "coding")

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")

	step("open amber-otter's session", chromedp.Navigate(base+"/?session=agent:amber-otter"))
	waitJS(t, bctx, ctx, "loaded", `document.getElementById('live').dataset.state === 'on' && !!document.querySelector('.composer')`)
	if to := evalJS[string](t, ctx, `document.getElementById('to').value`); to != "amber-otter" {
		t.Errorf("in amber-otter's session the composer writes to %q, want amber-otter", to)
	}
	if n := evalJS[int](t, ctx, `+document.getElementById('content').getAttribute('maxlength')`); n != hub.MaxMessageLen {
		t.Errorf("the composer takes %d characters, the board %d", n, hub.MaxMessageLen)
	}
	if !evalJS[bool](t, ctx, `!!document.querySelector('.composer input[name=subject]') && document.querySelector('.composer input[name=subject]').offsetHeight > 0`) {
		shot(t, bctx, "failure")
		t.Fatal("no subject field in the composer")
	}
	step("write to amber-otter", chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.querySelector('.composer');
		f.querySelector('[name=bead]').value = 'bb-3';
		f.querySelector('[name=subject]').value = 'Lexer edge cases';
		f.querySelector('#content').value = 'Please also cover tabs in string literals.';
		f.requestSubmit();
	})()`))
	waitJS(t, bctx, ctx, "sent", `[...document.querySelectorAll('#timeline li.msg')].some(li => li.querySelector('.subject')?.innerText === 'Lexer edge cases' && li.querySelector('.body')?.innerText === 'Please also cover tabs in string literals.')`)
	in := run(t, e.dir, "--json", "agent", "inbox", "--agent", "amber-otter")
	if !strings.Contains(in, `"subject": "Lexer edge cases"`) || !strings.Contains(in, `"body": "Please also cover tabs in string literals."`) {
		t.Fatalf("amber-otter's inbox: %s", in)
	}
	shot(t, bctx, "composer")

	// Without a subject, the first line of the text is the subject and
	// the row shows it once.
	step("write without a subject", chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.querySelector('.composer');
		f.querySelector('[name=bead]').value = 'bb-3';
		f.querySelector('[name=subject]').value = '';
		f.querySelector('#content').value = 'One line only';
		f.requestSubmit();
	})()`))
	waitJS(t, bctx, ctx, "sent once", `[...document.querySelectorAll('#timeline li.msg')].some(li => li.innerText.includes('One line only'))`)
	if n := evalJS[int](t, ctx, `[...document.querySelectorAll('#timeline li.msg')].find(li => li.innerText.includes('One line only')).innerText.split('One line only').length - 1`); n != 1 {
		t.Errorf("the text is shown %d times in its row", n)
	}

	// Everything: to everyone by default.
	step("open Everything", chromedp.Navigate(base+"/"))
	waitJS(t, bctx, ctx, "loaded", `!!document.querySelector('.composer')`)
	if to := evalJS[string](t, ctx, `document.getElementById('to').value`); to != "" {
		t.Errorf("on Everything the composer writes to %q, want everyone", to)
	}
}
