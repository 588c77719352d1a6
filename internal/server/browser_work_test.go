package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// Issue 24 in a real browser: a task is one card titled by its task (the
// mail and reservations naming its handle land on it), every priority
// counts as open, the agent's card says what it is doing (task title and
// reservations), and a refused composer post shows its error.
func TestBrowserWorkBoard(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	var created struct {
		Data struct {
			ID     string `json:"id"`
			Handle string `json:"handle"`
		} `json:"data"`
	}
	out := run(t, e.dir, "--json", "--as", "amber-otter", "task", "create", "Ship the lexer rewrite")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Data.Handle == "" {
		t.Fatalf("task create: %v %s", err, out)
	}
	id, h := created.Data.ID, created.Data.Handle
	run(t, e.dir, "--as", "amber-otter", "task", "create", "Document the tokens", "--priority", "2")
	run(t, e.dir, "--as", "amber-otter", "task", "begin", h)
	var docs struct {
		Data struct{ Handle string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(run(t, e.dir, "--json", "--as", "amber-otter", "task", "create", "Write the docs")), &docs); err != nil {
		t.Fatal(err)
	}
	run(t, e.dir, "--as", "amber-otter", "task", "dep", "add", docs.Data.Handle, h)
	run(t, e.dir, "agent", "reserve", "--agent", "amber-otter", "--scope", "src/lexer.go", "--bead", h)
	run(t, e.dir, "agent", "reserve", "--agent", "amber-otter", "--scope", "src/token.go", "--bead", h)
	run(t, e.dir, "agent", "send", "--from", "cobalt-harbor", "--to", "amber-otter", "--bead", h,
		"--category", "HANDOFF", "--subject", "Review notes", "--body", "Spans are off by one.")

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	step("open the dashboard", chromedp.Navigate(e.http.URL+"/"))
	waitJS(t, bctx, ctx, "one card for the task, titled by it",
		`document.querySelectorAll('.card[data-key="bead:`+id+`"]').length === 1 && `+
			`document.querySelector('.card[data-key="bead:`+id+`"] .card-title').innerText === 'Ship the lexer rewrite' && `+
			`!document.querySelector('.card[data-key="bead:`+h+`"]') && !document.querySelector('.card[data-key="agent:amber-otter"]')`)
	waitJS(t, bctx, ctx, "the card shows the handle, not the id", `document.querySelector('.card[data-key="bead:`+id+`"] .bead').innerText === `+strconv.Quote(h))
	waitJS(t, bctx, ctx, "every priority is an open task", `document.getElementById('counts').innerText.includes('3 open tasks')`)
	col := func(name string) string {
		return `(document.querySelector('.tb-col[data-column="` + name + `"]')?.innerText || '')`
	}
	waitJS(t, bctx, ctx, "the task board", col("Pending")+`.includes('Document the tokens') && `+
		col("Blocked")+`.includes('Write the docs') && `+col("Blocked")+`.includes('waits for Ship the lexer rewrite') && `+
		col("In progress")+`.includes('Ship the lexer rewrite') && `+col("In progress")+`.includes('amber-otter') && `+
		`!`+col("In progress")+`.includes('task_')`)
	waitJS(t, bctx, ctx, "the agent says what it is doing",
		`(() => { const w = document.querySelector('li.agent[data-agent="amber-otter"] .work'); return w && w.innerText.includes('Ship the lexer rewrite') && w.innerText.includes('src/lexer.go') && w.innerText.includes('src/token.go') })()`)
	waitJS(t, bctx, ctx, "handles stay inside their card", `[...document.querySelectorAll('.card .bead')].every(b => b.scrollWidth <= b.clientWidth + 1 && b.getBoundingClientRect().right <= b.closest('.card').getBoundingClientRect().right)`)

	// A refused post (mail without a work item) shows the reason.
	step("write to an agent without a work item", chromedp.Evaluate[chromedp.Void](`(() => {
		const to = document.getElementById('to');
		to.value = 'cobalt-harbor';
		to.dispatchEvent(new Event('change', {bubbles: true}));
		document.querySelector('.composer .bead-input').value = '';
		document.getElementById('content').value = 'Can you take the spans?';
		document.querySelector('.composer').requestSubmit();
	})()`))
	waitJS(t, bctx, ctx, "the error is shown", `document.querySelector('#flash .flash')?.innerText.includes('work item')`)
	// BB_SCREENSHOTS=<dir> keeps the picture for a person to look at.
	if p := shot(t, bctx, "work-board"); p != "" && os.Getenv("BB_SCREENSHOTS") != "" {
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join(os.Getenv("BB_SCREENSHOTS"), "work-board.png"), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
