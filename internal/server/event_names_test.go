package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// One naming scheme for event types (issue 39) on the server's surfaces:
// GET /api/v1/events, the event stream and the dashboard's timeline name a
// HANDOFF mail.handoff_sent and a new task task.created, and their type
// filters take the new name and the old one.
func TestEventNamesOnTheServer(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "alice", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "bob", "--role", "worker")
	var task struct {
		Data struct{ ID string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(run(t, e.dir, "--json", "--as", "alice", "task", "create", "Write the parser")), &task); err != nil {
		t.Fatal(err)
	}
	run(t, e.dir, "agent", "send", "--from", "alice", "--to", "bob", "--bead", "bb-1", "--category", "HANDOFF",
		"--subject", "parser", "--body", "over to you", "--next-action", "run the tests")

	types := func(path string) []string {
		t.Helper()
		status, env := e.do(req{path: path})
		if status != 200 || !env.OK {
			t.Fatalf("GET %s: %d %+v", path, status, env.Error)
		}
		var evs []struct{ Type string }
		if err := json.Unmarshal(env.Data, &evs); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ev := range evs {
			out = append(out, ev.Type)
		}
		return out
	}
	all := strings.Join(types("/api/v1/events?limit=500"), " ")
	for _, want := range []string{"mail.handoff_sent", "task.created", "agent.registered"} {
		if !strings.Contains(all, want) {
			t.Errorf("GET /api/v1/events: no %s in %s", want, all)
		}
	}
	for _, old := range []string{"HANDOFF", "task_created"} {
		if strings.Contains(" "+all+" ", " "+old+" ") {
			t.Errorf("GET /api/v1/events prints the old name %s: %s", old, all)
		}
	}
	for _, q := range []string{"HANDOFF", "mail.handoff_sent"} {
		if got := types("/api/v1/events?type=" + q); len(got) != 1 || got[0] != "mail.handoff_sent" {
			t.Errorf("GET /api/v1/events?type=%s = %v, want [mail.handoff_sent]", q, got)
		}
	}

	// The stream: the old name filters, the new name is printed.
	for _, q := range []string{"HANDOFF", "mail.handoff_sent"} {
		ch := e.subscribeTo(t, "/api/v1/events/stream?after=0&type="+q, "")
		select {
		case ev := <-ch:
			if ev.data["type"] != "mail.handoff_sent" {
				t.Errorf("stream ?type=%s: type %v, want mail.handoff_sent", q, ev.data["type"])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("stream ?type=%s: nothing", q)
		}
	}

	// The dashboard's timeline rows carry the same names.
	code, body := e.html("GET", "/?session=bead:"+task.Data.ID, nil, "bb_human=carol")
	if code != 200 {
		t.Fatalf("dashboard: %d", code)
	}
	if !strings.Contains(body, `data-type="task.created"`) || strings.Contains(body, `data-type="task_created"`) {
		t.Errorf("dashboard timeline: no row of type task.created:\n%s", body)
	}
}
