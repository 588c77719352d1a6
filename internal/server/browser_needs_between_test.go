package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A HANDOFF between two agents, in a real browser: the person's card
// offers the overseer's choices — Nudge the recipient, Step in, and
// Reassign the sender's reservation, since the sender is offline — and no
// Accept (not the person's to give). Nudge sends the reminder (stored in
// the recipient's inbox, from the person, on the handoff's thread);
// Reassign hands the file to the recipient (bb agent status shows it).
func TestBrowserNeedsBetweenAgents(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	e := newEnv(t, withStepClock(&stepClock{t: now}))
	at := func(d time.Duration, args ...string) {
		t.Helper()
		if out, errOut, code := runCode(t, e.dir, []string{"BB_NOW=" + now.Add(d).Format(time.RFC3339)}, args...); code != 0 {
			t.Fatalf("bb %v: exit %d %s %s", args, code, out, errOut)
		}
	}
	at(-40*time.Minute, "agent", "register", "--name", "ada-human", "--role", "human")
	at(-40*time.Minute, "agent", "register", "--name", "amber-otter", "--role", "worker")
	at(-40*time.Minute, "agent", "register", "--name", "cobalt-harbor", "--role", "worker")
	at(-40*time.Minute, "agent", "reserve", "--agent", "amber-otter", "--scope", "src/lexer.go", "--bead", "bb-9")
	at(-40*time.Minute, "agent", "send", "--from", "amber-otter", "--to", "cobalt-harbor", "--bead", "bb-9", "--category", "HANDOFF",
		"--subject", "Lexer for cobalt", "--body", "all yours", "--next-action", "finish the lexer tests")
	at(0, "--as", "cobalt-harbor", "status") // cobalt-harbor is active; amber-otter offline

	bctx, ctx := browser(t, 1400, 900)
	step := stepper(t, bctx, ctx)
	base := e.http.URL
	signIn(t, bctx, ctx, base, "ada-human")
	step("reload", chromedp.Navigate(base+"/"))
	card := `[...document.querySelectorAll('#needs li.need')].find(li => li.innerText.includes('Lexer for cobalt'))`
	waitJS(t, bctx, ctx, "the handoff's card", card+`?.innerText.includes('amber-otter hands over to cobalt-harbor') && document.getElementById('live').dataset.state === 'on'`)
	offers := evalJS[string](t, ctx, `[...`+card+`.querySelectorAll('.need-actions button, .need-actions summary')].map(b => b.innerText.trim()).filter(s => s).join('|')`)
	if offers != "Nudge cobalt-harbor|Reassign src/lexer.go to cobalt-harbor|Step in" {
		shot(t, bctx, "failure")
		t.Fatalf("the card offers %q: want nudge, reassign and step in, no accept", offers)
	}
	if !evalJS[bool](t, ctx, card+`.innerText.includes('Next: finish the lexer tests') && !`+card+`.querySelector('.act-accept-need')`) {
		shot(t, bctx, "failure")
		t.Fatal("the card lacks what is asked, or offers Accept")
	}
	shot(t, bctx, "between-agents")

	// Nudge: the reminder is stored for cobalt-harbor, from ada-human.
	waitJS(t, bctx, ctx, "idle", `document.querySelectorAll('.htmx-request').length === 0`)
	step("nudge", chromedp.Evaluate[chromedp.Void](card+`.querySelector('.act-nudge').click()`))
	var inbox struct {
		Data []struct {
			From     string `json:"from_agent"`
			Subject  string `json:"subject"`
			ThreadID string `json:"thread_id"`
			Priority string `json:"priority"`
		} `json:"data"`
	}
	deadline := time.Now().Add(60 * time.Second) // a hang guard, not a measure
	for {
		inbox.Data = nil
		if err := json.Unmarshal([]byte(run(t, e.dir, "--json", "agent", "inbox", "--agent", "cobalt-harbor")), &inbox); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range inbox.Data {
			if m.From == "ada-human" && strings.HasPrefix(m.Subject, "Reminder: Lexer for cobalt") {
				found = m.ThreadID == "bead:bb-9" && m.Priority == "high"
				if !found {
					t.Fatalf("the nudge: %+v", m)
				}
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			shot(t, bctx, "failure")
			t.Fatalf("the nudge never reached cobalt-harbor's inbox: %+v", inbox.Data)
		}
		time.Sleep(250 * time.Millisecond)
	}
	waitJS(t, bctx, ctx, "the card after the nudge", `!!`+card+` && document.querySelectorAll('.htmx-request').length === 0`)

	// Reassign: cobalt-harbor holds the file; the card no longer offers it.
	step("reassign", chromedp.Evaluate[chromedp.Void](card+`.querySelector('.act-reassign').click()`))
	waitJS(t, bctx, ctx, "reassigned", `!!`+card+` && !`+card+`.querySelector('.act-reassign')`)
	if st := run(t, e.dir, "--json", "agent", "status", "--agent", "cobalt-harbor"); !strings.Contains(st, `"scope": "src/lexer.go"`) {
		t.Fatalf("cobalt-harbor does not hold src/lexer.go: %s", st)
	}
	shot(t, bctx, "between-agents-after")
}
