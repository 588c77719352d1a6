package server_test

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/testkit"
)

// One event vocabulary (issue 24), after a scripted session on four
// surfaces: every type the board records is documented in docs/events.md,
// task events name their task (id, handle, title), and mail sent from bb,
// agent-mail, MCP and the dashboard is one type.
func TestOneEventVocabulary(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := func(typ string) bool { return strings.Contains(string(doc), "`"+typ+"`") }
	for _, typ := range hub.EventTypes {
		if !documented(typ) {
			t.Errorf("event type %s is not in docs/events.md", typ)
		}
	}

	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "alice", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "bob", "--role", "worker")
	var task struct {
		Data struct{ ID, Handle string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(run(t, e.dir, "--json", "--as", "alice", "task", "create", "Write the parser")), &task); err != nil {
		t.Fatal(err)
	}
	h := task.Data.Handle
	run(t, e.dir, "--as", "alice", "task", "begin", h)
	run(t, e.dir, "agent", "reserve", "--agent", "alice", "--scope", "src/parser.go", "--bead", h)
	// Mail from four surfaces.
	run(t, e.dir, "agent", "send", "--from", "alice", "--to", "bob", "--bead", h, "--category", "INFO", "--subject", "from bb", "--body", "1")
	am := exec.Command(filepath.Join(filepath.Dir(bbBin), "agent-mail"), "send", "--from", "proj:alice", "--to", "proj:bob", "--subject", "from agent-mail", "--body", "2")
	am.Env = append(filteredEnv(), "AGENT_MAIL_DB="+filepath.Join(e.dir, ".bb", "blackboard.db"))
	if out, errb, code := testkit.Run(t, am); code != 0 {
		t.Fatalf("agent-mail send: %d %s %s", code, out, errb)
	}
	mcp := exec.Command(bbBin, "mcp", "--agent", "alice")
	mcp.Dir = e.dir
	mcp.Env = filteredEnv()
	mcp.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bb_send_mail","arguments":{"agent":"bob","bead":"` + h + `","subject":"from mcp","body":"3"}}}
`)
	if out, errb, code := testkit.Run(t, mcp); code != 0 || !strings.Contains(out, `"id":2,"result"`) || strings.Contains(out, `"isError":true`) {
		t.Fatalf("bb mcp: %d %s %s", code, out, errb)
	}
	if code, body := e.html("POST", "/ui/send", url.Values{"to": {"bob"}, "kind": {"INFO"}, "bead": {h}, "content": {"from the dashboard"}}, "bb_human=alice"); code != 200 {
		t.Fatalf("dashboard send: %d %s", code, body)
	}
	run(t, e.dir, "--as", "alice", "task", "complete", h, "--summary", "parser done")

	var page struct {
		Data []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			TaskID  string `json:"task_id"`
			Task    *struct{ ID, Handle, Title string }
		} `json:"data"`
	}
	out := run(t, e.dir, "--json", "events", "--limit", "500")
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	mailTypes := map[string]int{}
	for _, ev := range page.Data {
		if !documented(ev.Type) {
			t.Errorf("recorded event type %s is not in docs/events.md", ev.Type)
		}
		if strings.HasPrefix(ev.Type, "task_") || ev.Type == "agent_focus" {
			if ev.Task == nil || ev.Task.Title != "Write the parser" || ev.Task.Handle != h || ev.Task.ID != task.Data.ID {
				t.Errorf("%s (%s) does not name its task: %+v", ev.Type, ev.Message, ev.Task)
			}
		}
		if strings.HasPrefix(ev.Message, "alice → bob") || strings.HasPrefix(ev.Message, "from agent-mail") || strings.Contains(ev.Type, "mail") || strings.Contains(ev.Type, "message") {
			mailTypes[ev.Type]++
		}
	}
	if len(mailTypes) != 1 || mailTypes[hub.EventMailSent] != 4 {
		t.Fatalf("mail from four surfaces: want 4 × %s, got %v", hub.EventMailSent, mailTypes)
	}
}
