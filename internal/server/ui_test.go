package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func (e *env) html(method, path string, form url.Values, cookie string) (int, string) {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r, _ := http.NewRequest(method, e.http.URL+path, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	resp, err := e.http.Client().Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Agent-supplied text is escaped everywhere on the dashboard.
func TestDashboardEscapesAgentText(t *testing.T) {
	e := newEnv(t)
	evil := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	run(t, e.dir, "--as", "mallory", "status", "set", evil, "--status", "blocked", "--blockers", evil)
	run(t, e.dir, "--as", "mallory", "post", evil, "--tag", "xss")
	for _, p := range []string{"/", "/ui/agents", "/ui/feed", "/ui/timeline", "/ui/conversation?session=agent%3Amallory"} {
		code, body := e.html("GET", p, nil, "")
		if code != 200 {
			t.Fatalf("%s: %d %s", p, code, body)
		}
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
			t.Fatalf("%s: unescaped agent text:\n%s", p, body)
		}
		if !strings.Contains(body, "&lt;script&gt;") {
			t.Fatalf("%s: agent text missing", p)
		}
	}
	code, body := e.html("GET", "/", nil, "")
	if code != 200 || !strings.Contains(body, "Needs input") || !strings.Contains(body, `src="/static/htmx.min.js"`) {
		t.Fatalf("page: %d", code)
	}
	code, _ = e.html("GET", "/static/htmx.min.js", nil, "")
	if code != 200 {
		t.Fatalf("htmx: %d", code)
	}
	code, body = e.html("GET", "/ui/timeline?session=nope", nil, "")
	if code != 400 || !strings.Contains(body, "invalid session") {
		t.Fatalf("bad session: %d %s", code, body)
	}
}

// A person posts, marks seen and accepts from the page under a chosen name;
// handoffs are labelled "Passed to" and acks show as "Accepted".
func TestDashboardPostReadAck(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	out := run(t, e.dir, "--json", "agent", "send", "--from", "amber-otter", "--to", "ada-human", "--bead", "bb-1",
		"--category", "HANDOFF", "--subject", "Parser done", "--body", "Please review the parser")
	var env envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var sent map[string]any
	_ = json.Unmarshal(env.Data, &sent)
	id, _ := sent["message_id"].(string)
	if id == "" {
		t.Fatalf("no message id: %s", env.Data)
	}
	code, _ := e.html("POST", "/ui/identity", url.Values{"name": {"ada-human"}}, "")
	if code != http.StatusNoContent {
		t.Fatalf("identity: %d", code)
	}
	cookie := "bb_human=ada-human"
	code, body := e.html("GET", "/?session=bead%3Abb-1", nil, cookie)
	if code != 200 || !strings.Contains(body, "Passed to") || !strings.Contains(body, "Please review the parser") ||
		!strings.Contains(body, "1 to accept") {
		t.Fatalf("bead view: %d\n%s", code, body)
	}
	code, body = e.html("POST", "/ui/read/"+id+"?session=bead%3Abb-1", url.Values{}, cookie)
	if code != 200 || !strings.Contains(body, ">Seen<") {
		t.Fatalf("read: %d %s", code, body)
	}
	code, body = e.html("POST", "/ui/ack/"+id+"?session=bead%3Abb-1", url.Values{}, cookie)
	if code != 200 || !strings.Contains(body, "Accepted") {
		t.Fatalf("ack: %d %s", code, body)
	}
	// The core's rule holds: someone who is not a recipient may not ack.
	code, body = e.html("POST", "/ui/ack/"+id, url.Values{}, "bb_human=bystander")
	if code != http.StatusForbidden || !strings.Contains(body, "recipient") {
		t.Fatalf("foreign ack: %d %s", code, body)
	}
	// Posting in a bead's conversation joins the bead.
	code, body = e.html("POST", "/ui/post", url.Values{"content": {"Looks good, merging"}, "session": {"bead:bb-1"}}, cookie)
	if code != 200 || !strings.Contains(body, "Looks good, merging") {
		t.Fatalf("post: %d %s", code, body)
	}
	log := run(t, e.dir, "--json", "log")
	if !strings.Contains(log, `"bead_id": "bb-1"`) || !strings.Contains(log, `"from_agent": "ada-human"`) {
		t.Fatalf("post not on the bead: %s", log)
	}
	code, body = e.html("POST", "/ui/post", url.Values{"content": {"  "}}, cookie)
	if code != 400 || !strings.Contains(body, "content") {
		t.Fatalf("empty post: %d %s", code, body)
	}
}

// Tasks appear in the work feed, grouped by their state.
func TestDashboardFeedShowsTasks(t *testing.T) {
	e := newEnv(t)
	out := run(t, e.dir, "--as", "amber-otter", "--json", "task", "create", "Ship the <parser>")
	id := between(out, `"id": "`, `"`)
	if id == "" {
		t.Fatalf("no task id: %s", out)
	}
	group := func() string {
		_, body := e.html("GET", "/ui/feed", nil, "")
		i := strings.Index(body, "Ship the &lt;parser&gt;")
		if i < 0 {
			t.Fatalf("task not in feed:\n%s", body)
		}
		j := strings.LastIndex(body[:i], `<h3 class="group`)
		return body[j : j+60]
	}
	if g := group(); !strings.Contains(g, "Idle") {
		t.Fatalf("pending task in %q", g)
	}
	run(t, e.dir, "--as", "amber-otter", "task", "begin", id)
	if g := group(); !strings.Contains(g, "Active") {
		t.Fatalf("task in progress in %q", g)
	}
	code, body := e.html("GET", "/ui/timeline?session=bead%3A"+id, nil, "")
	if code != 200 || strings.Contains(body, "Nothing here yet") {
		t.Fatalf("task timeline: %d %s", code, body)
	}
}
