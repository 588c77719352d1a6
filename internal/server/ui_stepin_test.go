package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Stepping in without a browser: links are encoded once, mail to one agent
// reaches its inbox as the person, the sender sees "Delivered" once a hook
// put it in the recipient's context, and the search view marks matches.
func TestDashboardStepIn(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "worker")
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "cobalt-harbor", "--bead", "bb-1",
		"--category", "INFO", "--subject", "Lexer spans", "--body", "spans are byte offsets")
	cookie := "bb_human=ada-human"

	_, page := e.html("GET", "/", nil, cookie)
	if !strings.Contains(page, `hx-push-url="/?session=bead%3abb-1"`) || strings.Contains(page, "%253") {
		t.Fatalf("session links not encoded once:\n%s", page)
	}
	_, tl := e.html("GET", "/ui/timeline?session=bead%3Abb-1", nil, cookie)
	if !strings.Contains(tl, "Not seen yet") {
		t.Fatalf("no receipt state on mail between agents:\n%s", tl)
	}
	if _, err := e.svc.DeliverNew(context.Background(), "cobalt-harbor"); err != nil {
		t.Fatal(err)
	}
	_, tl = e.html("GET", "/ui/timeline?session=bead%3Abb-1", nil, cookie)
	if !strings.Contains(tl, "Delivered to cobalt-harbor") {
		t.Fatalf("delivered state not shown:\n%s", tl)
	}

	code, body := e.html("POST", "/ui/send", url.Values{"session": {"bead:bb-1"}, "to": {"amber-otter"}, "kind": {"HANDOFF"},
		"content": {"Take the lexer over, please"}}, cookie)
	if code != 200 || !strings.Contains(body, "Take the lexer over, please") {
		t.Fatalf("send: %d %s", code, body)
	}
	if in := run(t, e.dir, "--json", "agent", "inbox", "--agent", "amber-otter"); !strings.Contains(in, "Take the lexer over, please") ||
		!strings.Contains(in, `"from_agent": "ada-human"`) && !strings.Contains(in, "ada-human") {
		t.Fatalf("not in amber-otter's inbox as ada-human: %s", in)
	}
	code, body = e.html("POST", "/ui/send", url.Values{"to": {"amber-otter"}, "content": {"no work item"}}, cookie)
	if code == 200 || !strings.Contains(body, "Name the work item") || strings.Contains(body, "--bead") {
		t.Fatalf("missing work item: %d %s", code, body)
	}

	_, page = e.html("GET", "/?q=lexer", nil, cookie)
	if !strings.Contains(page, "<mark>lexer</mark>") && !strings.Contains(page, "<mark>Lexer</mark>") {
		t.Fatalf("search view:\n%s", page)
	}
	_, page = e.html("GET", "/?q="+url.QueryEscape(`"()`), nil, cookie)
	if !strings.Contains(page, "has no words") || strings.Contains(page, "fts5") {
		t.Fatalf("bad query:\n%s", page)
	}
}

// offlineHolderBoard is a board at 12:00 where bob-1 (seen 40 minutes ago,
// so offline) holds src/lexer.go for bb-1 and carol is active; at runs bb
// at an offset from that time.
func offlineHolderBoard(t *testing.T) (*env, func(d time.Duration, args ...string)) {
	t.Helper()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, withClock(now))
	at := func(d time.Duration, args ...string) {
		t.Helper()
		if out, errOut, code := runCode(t, e.dir, []string{"BB_NOW=" + now.Add(d).Format(time.RFC3339)}, args...); code != 0 {
			t.Fatalf("bb %v: %d %s %s", args, code, out, errOut)
		}
	}
	at(-40*time.Minute, "agent", "register", "--name", "bob-1", "--role", "worker")
	at(-40*time.Minute, "agent", "reserve", "--agent", "bob-1", "--scope", "src/lexer.go", "--bead", "bb-1")
	at(0, "agent", "register", "--name", "carol", "--role", "worker")
	return e, at
}

// The person releases or reassigns an offline agent's reservation from the
// Reservations list: the buttons show only past the takeover threshold, the
// new holder holds the files on every surface, and the core refuses a step
// in on an active holder with a sentence, not a stack of codes.
func TestDashboardStepInReservation(t *testing.T) {
	e, at := offlineHolderBoard(t)
	at(0, "agent", "reserve", "--agent", "carol", "--scope", "docs/*", "--bead", "bb-2")
	cookie := "bb_human=ada-human"

	_, page := e.html("GET", "/", nil, cookie)
	if strings.Count(page, "act-release") != 1 || strings.Count(page, "act-reassign") != 1 || !strings.Contains(page, "bob-1 is offline") {
		t.Fatalf("step-in buttons only on bob-1's reservation:\n%s", page)
	}
	code, body := e.html("POST", "/ui/stepin", url.Values{"holder": {"carol"}, "scope": {"docs/*"}, "action": {"release"}}, cookie)
	if code == 200 || !strings.Contains(body, "carol is active") {
		t.Fatalf("step in on an active holder: %d %s", code, body)
	}
	code, body = e.html("POST", "/ui/stepin", url.Values{"holder": {"bob-1"}, "scope": {"src/lexer.go"}, "action": {"reassign"}, "to": {"carol"}}, cookie)
	if code != 200 || strings.Contains(body, "act-release") {
		t.Fatalf("reassign: %d %s", code, body)
	}
	st := run(t, e.dir, "--json", "agent", "status", "--agent", "carol")
	if !strings.Contains(st, `"scope": "src/lexer.go"`) {
		t.Fatalf("carol holds src/lexer.go on the CLI: %s", st)
	}
	ev := run(t, e.dir, "--json", "events", "--type", "reservation.reassigned")
	if !strings.Contains(ev, "ada-human reassigned src/lexer.go from bob-1 (offline) to carol") {
		t.Fatalf("event under the person's name: %s", ev)
	}
}

// Stepping in on a lease through bb serve with credentials: an agent's
// credential may not release another agent's lease from the dashboard
// (nothing changes); an overseer's may, once its holder is offline.
func TestDashboardLeaseStepInCredentials(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, withClock(now), withToken("operator-secret-0123456789"))
	at := func(d time.Duration, args ...string) string {
		t.Helper()
		out, errOut, code := runCode(t, e.dir, []string{"BB_NOW=" + now.Add(d).Format(time.RFC3339)}, args...)
		if code != 0 {
			t.Fatalf("bb %v: %d %s %s", args, code, out, errOut)
		}
		return out
	}
	secret := func(args ...string) string {
		t.Helper()
		var r struct {
			Data struct {
				Token string `json:"token"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(at(0, append([]string{"--json", "token", "create"}, args...)...)), &r); err != nil || r.Data.Token == "" {
			t.Fatalf("token create %v: %v", args, err)
		}
		return r.Data.Token
	}
	at(-40*time.Minute, "--as", "bob-1", "lease", "acquire", "deploy:staging")
	at(0, "agent", "register", "--name", "carol", "--role", "worker")
	carol, ana := secret("--agent", "carol"), secret("--agent", "ana", "--role", "overseer")
	post := func(token string) (int, string) {
		t.Helper()
		form := url.Values{"name": {"deploy:staging"}, "holder": {"bob-1"}, "action": {"release"}}
		r, _ := http.NewRequest("POST", e.http.URL+"/ui/lease/stepin", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Authorization", "Bearer "+token)
		resp, err := e.http.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(carol); code == 200 || !strings.Contains(body, "overseer") {
		t.Fatalf("an agent's credential released bob-1's lease: %d %s", code, body)
	}
	if show := at(0, "--json", "lease", "show", "deploy:staging"); !strings.Contains(show, `"agent": "bob-1"`) {
		t.Fatalf("the refused step in changed the lease: %s", show)
	}
	if code, body := post(ana); code != 200 || strings.Contains(body, `data-lease="deploy:staging"`) {
		t.Fatalf("the overseer's release: %d %s", code, body)
	}
	if ev := at(0, "events", "--type", "lease.released"); !strings.Contains(ev, "ana released bob-1's deploy:staging") {
		t.Fatalf("the release under the overseer's name: %s", ev)
	}
}
