package vybetest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// The seed's "Integration verification" list, as an assistant integration
// would run it: flags discovered from `vybe schema commands`, the resume
// prompt injected into a new session, retries with the same request id.
func TestIntegrationVerification(t *testing.T) {
	s := newSandbox(t)
	ws := s.Dir + "/workspace"

	// 5. Schema-driven calls: build every call from the schema.
	schema := s.ok("schema", "commands")
	byName := map[string]map[string]any{}
	for _, c := range schema["commands"].([]any) {
		m := c.(map[string]any)
		byName[m["command"].(string)] = m
	}
	call := func(command string, args map[string]string) map[string]any {
		t.Helper()
		sc, ok := byName[command]
		if !ok {
			t.Fatalf("%s not in schema", command)
		}
		props := path(sc, "args_schema.properties").(map[string]any)
		if sc["requires_request_id"] == true {
			if _, ok := args["request-id"]; !ok {
				t.Fatalf("%s: schema requires a request id", command)
			}
		}
		for _, r := range asStrings(path(sc, "args_schema.required")) {
			if _, ok := args[r]; !ok {
				t.Fatalf("%s: missing required %s", command, r)
			}
		}
		argv := strings.Fields(strings.TrimPrefix(command, "vybe "))
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := props[k]; !ok {
				t.Fatalf("%s: flag --%s not in schema", command, k)
			}
			argv = append(argv, "--"+k+"="+args[k])
		}
		return s.ok(argv...)
	}

	// Session 1: plan work, start it, log progress, save a memory.
	agent := "oc-ws1"
	t1 := call("vybe task create", map[string]string{"agent": agent, "request-id": "oc_task_1", "title": "Add OAuth login", "project-id": ws, "priority": "2"})
	id := str(path(t1, "task.id"))
	call("vybe task create", map[string]string{"agent": agent, "request-id": "oc_task_2", "title": "Write docs", "project-id": ws})
	call("vybe task begin", map[string]string{"agent": agent, "request-id": "oc_begin_1", "id": id})
	call("vybe push", map[string]string{"agent": agent, "request-id": "oc_push_1",
		"json": fmt.Sprintf(`{"task_id":%q,"event":{"kind":"progress","message":"callback handler written, tests next"}}`, id)})
	call("vybe memory set", map[string]string{"agent": agent, "request-id": "oc_mem_1", "key": "oauth-provider", "value": "github", "scope": "task", "scope-id": id})

	// 2. Replaying the same writes with the same request ids duplicates nothing.
	before := s.query(`SELECT COUNT(*) FROM events`)
	call("vybe task create", map[string]string{"agent": agent, "request-id": "oc_task_1", "title": "Add OAuth login", "project-id": ws, "priority": "2"})
	call("vybe push", map[string]string{"agent": agent, "request-id": "oc_push_1",
		"json": fmt.Sprintf(`{"task_id":%q,"event":{"kind":"progress","message":"callback handler written, tests next"}}`, id)})
	call("vybe memory set", map[string]string{"agent": agent, "request-id": "oc_mem_1", "key": "oauth-provider", "value": "github", "scope": "task", "scope-id": id})
	if after := s.query(`SELECT COUNT(*) FROM events`); after != before {
		t.Fatalf("replays added events: %s -> %s", before, after)
	}
	if n := s.query(`SELECT COUNT(*) FROM tasks`); n != "2" {
		t.Fatalf("%s tasks", n)
	}

	// 3. Task updates are visible via task list.
	l := call("vybe task list", map[string]string{"project-id": ws, "status": "in_progress"})
	if path(l, "count") != float64(1) || path(l, "tasks.0.id") != id {
		t.Fatalf("task list: %v", l)
	}

	// 1 + 4. A new session answers "what were we working on?" from the
	// injected prompt, memory included.
	r := call("vybe resume", map[string]string{"agent": agent, "request-id": "oc_resume_2", "project-dir": ws})
	prompt := str(r["prompt"])
	for _, want := range []string{"Your current task:", "Title: Add OAuth login", "Status: in_progress", "ID: " + id,
		"callback handler written, tests next", "oauth-provider = github", "Write docs", "== COMMANDS (run in Bash) =="} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if path(r, "brief.task.id") != id || path(r, "brief.relevant_memory.0.key") != "oauth-provider" {
		t.Fatalf("brief: %v", r["brief"])
	}

	// Completing the task auto-advances the next session to the next task.
	call("vybe task complete", map[string]string{"agent": agent, "request-id": "oc_done_1", "id": id, "outcome": "done", "summary": "OAuth works"})
	r = call("vybe resume", map[string]string{"agent": agent, "request-id": "oc_resume_3"})
	if path(r, "brief.task.title") != "Write docs" {
		t.Fatalf("next focus: %v", path(r, "brief.task"))
	}
}

func asStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, str(x))
		}
	}
	return out
}

// bb and vybe share one world when pointed at the same database.
func TestVybeAndBBShareTasks(t *testing.T) {
	s := newSandbox(t)
	if r := s.run("", bbPath(), "init"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	db := s.Dir + "/.bb/blackboard.db"
	s.Env = append(s.Env, "VYBE_DB_PATH="+db)
	d := s.ok("task", "create", "--agent", "claude-1", "--request-id", "x", "--title", "From vybe")
	id := str(path(d, "task.id"))
	r := s.run("", bbPath(), "--json", "task", "show", id)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"title": "From vybe"`) || !strings.Contains(r.Stdout, `"kind": "task_created"`) {
		t.Fatalf("bb task show: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	r = s.run("", bbPath(), "--as", "claude-1", "task", "complete", id, "--summary", "done in bb")
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if g := s.ok("task", "get", "--id", id); g["status"] != "completed" {
		t.Fatalf("vybe sees %v", g)
	}
}
