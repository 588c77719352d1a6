package server_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// layoutBoard is a board whose Needs a person list is full of long
// words: blockers with requested actions, urgency and files, a handoff
// with a next action, long agent names and paths.
func layoutBoard(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor-reviewer-of-long-names", "--role", "reviewer")
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "--as", "amber-otter", "status", "set", "Refactor the configuration parser and its lexer", "--status", "coding", "--progress", "40")
	run(t, e.dir, "agent", "reserve", "--agent", "amber-otter", "--scope", "src/internal/configuration/parser/lexer_tokens_and_spans.go", "--bead", "bb-7")
	for i := 1; i <= 3; i++ {
		run(t, e.dir, "agent", "send", "--from", "cobalt-harbor-reviewer-of-long-names", "--to", "ada-human", "--bead", "bb-7",
			"--category", "BLOCKED", "--subject", fmt.Sprintf("Which timeout unit should the configuration parser use for every nested section (%d)?", i),
			"--body", "Should timeouts be in ms or s?", "--urgency", "high",
			"--requested-action", "Decide between milliseconds_everywhere_in_the_configuration_file and seconds_with_fractions")
	}
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "ada-human", "--bead", "bb-8",
		"--category", "HANDOFF", "--subject", "Parser ready for review, with the lexer's new span tracking",
		"--body", "The parser refactor is done; please review.", "--next-action", "Review src/internal/configuration/parser/lexer_tokens_and_spans.go")
	run(t, e.dir, "--as", "amber-otter", "post", "A long line: "+strings.Repeat("averyveryverylongwordwithoutanyspaces", 4))
	run(t, e.dir, "--as", "amber-otter", "lease", "acquire", "--port", "web")
	run(t, e.dir, "--as", "amber-otter", "lease", "acquire", "deploy:staging-environment-of-the-configuration-service")
	return e
}

// The dashboard holds its layout at a desktop, a laptop and a phone size:
// nothing runs out of the page sideways, and the Needs a person cards
// never run under the conversation panel. Screenshots of each size are
// saved in the test's temp dir (logged).
func TestBrowserLayout(t *testing.T) {
	e := layoutBoard(t)
	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")
	for _, size := range []struct{ w, h int }{{1400, 900}, {1280, 800}, {390, 844}} {
		name := strconv.Itoa(size.w) + "x" + strconv.Itoa(size.h)
		step("size "+name, chromedp.EmulateViewport(int64(size.w), int64(size.h)), chromedp.Navigate(base+"/?session=bead:bb-7"))
		waitJS(t, bctx, ctx, name+" loaded", `document.getElementById('live').dataset.state === 'on' && document.querySelectorAll('#needs li.need').length === 4 && document.querySelectorAll('.htmx-request').length === 0`)
		check := func(tab string) {
			t.Helper()
			over := evalJS[string](t, ctx, `(() => {
				const out = [];
				const se = document.scrollingElement;
				if (se.scrollWidth > innerWidth) out.push('page is ' + se.scrollWidth + ' px wide in ' + innerWidth);
				const convo = document.querySelector('.col-convo').getBoundingClientRect();
				for (const li of document.querySelectorAll('#needs li.need')) {
					const r = li.getBoundingClientRect();
					if (r.width === 0) continue;
					if (r.right > innerWidth + 0.5) out.push('a need card ends at ' + r.right + ' past ' + innerWidth);
					if (convo.width > 0 && r.right > convo.left + 0.5 && r.left < convo.right && r.bottom > convo.top && r.top < convo.bottom)
						out.push('a need card (' + Math.round(r.left) + '..' + Math.round(r.right) + ') runs under the conversation (' + Math.round(convo.left) + '..)');
				}
				// Nothing runs out of its card or bubble (clipped or not),
				// except a line cut with an ellipsis on purpose.
				const cut = (el, box) => {
					for (let p = el; p && p !== box; p = p.parentElement) {
						const st = getComputedStyle(p);
						if (st.textOverflow === 'ellipsis' && st.overflowX === 'hidden') return true;
					}
					return false;
				};
				for (const box of document.querySelectorAll('#needs li.need, .bubble, .card, li.agent, li.reservation, li.lease, .attention')) {
					const r = box.getBoundingClientRect();
					if (r.width === 0) continue;
					for (const el of box.querySelectorAll('*')) {
						const c = el.getBoundingClientRect();
						if (cut(el, box)) continue;
						if (c.width > 0 && c.right > r.right + 1) { out.push('inside ' + box.className + ', ' + el.tagName + '.' + el.className + ' ends at ' + Math.round(c.right) + ' past its box ' + Math.round(r.right)); break; }
					}
				}
				return out.join('; ');
			})()`)
			shot(t, bctx, "layout-"+name+tab)
			if over != "" {
				t.Errorf("%s%s: %s", name, tab, over)
			}
		}
		if size.w > 760 {
			check("")
			continue
		}
		for _, tab := range []string{"convo", "work", "agents"} {
			step("tab "+tab, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-tab-to="`+tab+`"]').click()`))
			waitJS(t, bctx, ctx, "tab "+tab+" shown", `document.body.dataset.tab === '`+tab+`'`)
			check("-" + tab)
		}
	}
}
