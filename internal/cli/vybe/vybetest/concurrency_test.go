package vybetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// 10 processes create tasks at once with distinct request ids: all 10 exist.
func TestParallelCreatesDistinctRequestIDs(t *testing.T) {
	s := newSandbox(t)
	s.ok("upgrade") // create the database before the race
	var wg sync.WaitGroup
	res := make([]result, 10)
	for i := range res {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = s.vybe("task", "create", "--agent", "racer", "--request-id", fmt.Sprintf("rid-%d", i), "--title", fmt.Sprintf("task %d", i))
		}(i)
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, r := range res {
		if r.Code != 0 {
			t.Fatalf("process %d: exit %d\n%s\n%s", i, r.Code, r.Stdout, r.Stderr)
		}
		ids[str(path(decode(t, r.Stdout), "data.task.id"))] = true
	}
	if len(ids) != 10 {
		t.Fatalf("%d distinct ids", len(ids))
	}
	if n := s.query(`SELECT COUNT(*) FROM tasks`); n != "10" {
		t.Fatalf("%s tasks stored", n)
	}
	if n := s.query(`SELECT COUNT(*) FROM idempotency WHERE agent = 'racer'`); n != "10" {
		t.Fatalf("%s idempotency rows", n)
	}
}

// 5 processes replay one request id at once: exactly one task, and every
// process gets the same reply.
func TestParallelReplaysOneRequestID(t *testing.T) {
	s := newSandbox(t)
	s.ok("upgrade")
	var wg sync.WaitGroup
	res := make([]result, 5)
	for i := range res {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = s.vybe("task", "create", "--agent", "racer", "--request-id", "same", "--title", fmt.Sprintf("attempt %d", i))
		}(i)
	}
	wg.Wait()
	var first string
	for i, r := range res {
		if r.Code != 0 {
			t.Fatalf("process %d: exit %d\n%s\n%s", i, r.Code, r.Stdout, r.Stderr)
		}
		id := str(path(decode(t, r.Stdout), "data.task.id"))
		if first == "" {
			first = id
		} else if id != first {
			t.Fatalf("process %d got task %s, others %s", i, id, first)
		}
	}
	if n := s.query(`SELECT COUNT(*) FROM tasks`); n != "1" {
		t.Fatalf("%s tasks stored", n)
	}
	if n := s.query(`SELECT COUNT(*) FROM events`); n != "1" {
		t.Fatalf("%s events stored", n)
	}
}

// The same through bb: parallel replays of one --request-id make one task.
func TestBBParallelReplays(t *testing.T) {
	s := newSandbox(t)
	if r := s.run("", bbPath(), "init"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	var wg sync.WaitGroup
	res := make([]result, 5)
	for i := range res {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = s.run("", bbPath(), "--as", "racer", "--json", "--request-id", "one", "task", "create", "only one")
		}(i)
	}
	wg.Wait()
	for i, r := range res {
		if r.Code != 0 || !strings.Contains(r.Stdout, `"ok": true`) {
			t.Fatalf("process %d: exit %d %s %s", i, r.Code, r.Stdout, r.Stderr)
		}
	}
	s.DB = s.Dir + "/.bb/blackboard.db"
	if n := s.query(`SELECT COUNT(*) FROM tasks`); n != "1" {
		t.Fatalf("%s tasks", n)
	}
}
