package vybetest

import (
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// The task, memory, push and resume SQL is portable: the same flow on
// PostgreSQL through bb.
func TestTasksOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	s := newSandbox(t)
	s.Env = append(s.Env, "BB_DATABASE_URL="+url)
	bb := func(args ...string) map[string]any {
		t.Helper()
		r := s.run("", bbPath(), append([]string{"--as", "pg-agent", "--json"}, args...)...)
		env := decode(t, r.Stdout)
		if r.Code != 0 || env["ok"] != true {
			t.Fatalf("bb %v: exit %d\n%s\n%s", args, r.Code, r.Stdout, r.Stderr)
		}
		return env
	}
	bb("init")
	a := str(path(bb("task", "create", "Schema", "--priority", "2", "--project", "p"), "data.id"))
	b := str(path(bb("--request-id", "r1", "task", "create", "Migrations", "--project", "p"), "data.id"))
	if got := str(path(bb("--request-id", "r1", "task", "create", "Migrations", "--project", "p"), "data.id")); got != b {
		t.Fatalf("replay made a new task %s", got)
	}
	bb("task", "dep", "add", b, a)
	if st := path(bb("task", "show", b), "data.task.status"); st != "blocked" {
		t.Fatalf("status %v", st)
	}
	r := s.run("", bbPath(), "--as", "pg-agent", "--json", "task", "dep", "add", a, b)
	if r.Code != 1 || !strings.Contains(r.Stdout, "dependency cycle detected") {
		t.Fatalf("cycle: %d %s", r.Code, r.Stdout)
	}
	bb("task", "begin", a)
	bb("memory", "set", "k", "42", "--scope", "task", "--scope-id", a, "--expires-in", "1h")
	if v := path(bb("memory", "get", "k", "--scope", "task", "--scope-id", a), "data.value_type"); v != "number" {
		t.Fatalf("value_type %v", v)
	}
	bb("push", "--data", `{"task_id":"`+a+`","event":{"kind":"progress","message":"half"},"artifacts":[{"file_path":"x.sql"}]}`)
	res := bb("resume", "--project", "p")
	if path(res, "data.focus_task_id") != a || !strings.Contains(str(path(res, "data.prompt")), "half") {
		t.Fatalf("resume: %v", res["data"])
	}
	bb("task", "complete", a, "--summary", "done")
	if st := path(bb("task", "show", b), "data.task.status"); st != "pending" {
		t.Fatalf("not unblocked: %v", st)
	}
	if n := len(path(bb("task", "list", "--project", "p"), "data").([]any)); n != 2 {
		t.Fatalf("%d tasks", n)
	}
	bb("memory", "gc")
	bb("task", "delete", b)
	if ev := path(bb("task", "show", a), "data.events"); len(ev.([]any)) < 5 {
		t.Fatalf("events: %v", ev)
	}
	// vybe on the same PostgreSQL hub (BB_DATABASE_URL) sees bb's tasks.
	r = s.run("", vybePath(), "task", "get", "--id", a)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"title":"Schema"`) || !strings.Contains(r.Stdout, `"status":"completed"`) {
		t.Fatalf("vybe on PostgreSQL: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
