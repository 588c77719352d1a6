package server_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A HANDOFF between two agents whose sender is offline concerns two
// reservations: the person's card offers one Reassign naming both, and its
// one POST (the item, the agent) hands both over in one operation of the
// core (oversight.ReassignItem); an item that does not offer it is
// refused with a sentence.
func TestDashboardNeedsReassignItem(t *testing.T) {
	e, at := offlineHolderBoard(t) // bob-1 holds src/lexer.go for bb-1
	at(-39*time.Minute, "agent", "reserve", "--agent", "bob-1", "--scope", "src/parser.go", "--bead", "bb-1")
	at(-38*time.Minute, "agent", "send", "--from", "bob-1", "--to", "carol", "--bead", "bb-1", "--category", "HANDOFF",
		"--subject", "Lexer and parser", "--body", "all yours")
	cookie := "bb_human=ada-human"

	_, needs := e.html("GET", "/ui/needs", nil, cookie)
	if strings.Count(needs, "act-reassign") != 1 || !strings.Contains(needs, ">Reassign src/parser.go, src/lexer.go to carol</button>") {
		t.Fatalf("one Reassign naming both reservations:\n%s", needs)
	}
	m := regexp.MustCompile(`data-id="(handoff:[^"]+)"`).FindStringSubmatch(needs)
	if m == nil || !strings.Contains(needs, `name="item" value="`+m[1]+`"`) {
		t.Fatalf("the form names the item:\n%s", needs)
	}
	code, body := e.html("POST", "/ui/needs/reassign", url.Values{"item": {m[1]}, "to": {"carol"}}, cookie)
	if code != 200 || strings.Contains(body, "act-reassign") {
		t.Fatalf("reassign: %d %s", code, body)
	}
	st := run(t, e.dir, "--json", "agent", "status", "--agent", "carol")
	if !strings.Contains(st, `"scope": "src/lexer.go"`) || !strings.Contains(st, `"scope": "src/parser.go"`) {
		t.Fatalf("carol holds both files: %s", st)
	}
	ev := run(t, e.dir, "--json", "events", "--type", "reservation.reassigned")
	for _, sc := range []string{"src/lexer.go", "src/parser.go"} {
		if !strings.Contains(ev, "ada-human reassigned "+sc+" from bob-1 (offline) to carol") {
			t.Fatalf("no event for %s under the person's name: %s", sc, ev)
		}
	}
	// Nothing is left to reassign.
	code, body = e.html("POST", "/ui/needs/reassign", url.Values{"item": {m[1]}, "to": {"carol"}}, cookie)
	if code == 200 || !strings.Contains(body, "offers ada-human no reassign") {
		t.Fatalf("reassign again: %d %s", code, body)
	}
}
