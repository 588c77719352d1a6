package hooks_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// BenchmarkEditCheck measures, in one process on one SQLite board, the
// edit check a hook runs before every edit and the reminder it runs at the
// end of every turn, the ways alternating in every iteration so that the
// board's growth and the machine's load hit them alike:
//
//   - held: a session edits a file its agent holds (one read);
//   - free: a session edits a new file (a read, then a write reserving it);
//   - denied: a session edits a file another active agent holds (a read,
//     then a write of the INCURSION event);
//   - stop: the end-of-turn reminder of a session holding files it did
//     not change.
//
// It reports each way's mean (…-us). Compare two builds by running their
// test binaries alternately (BENCHMARKS.md shows how).
//
//	go test ./internal/hub/hooks -run '^$' -bench EditCheck -benchtime 500x
func BenchmarkEditCheck(b *testing.B) {
	ctx := context.Background()
	svc, _ := hookBoard(b, nil)
	sa := hooks.SessionInput{Client: "claude", SessionID: "bench-a"}
	sb := hooks.SessionInput{Client: "claude", SessionID: "bench-b"}
	ra, err := svc.ResolveSession(ctx, sa)
	if err != nil {
		b.Fatal(err)
	}
	rb, err := svc.ResolveSession(ctx, sb)
	if err != nil {
		b.Fatal(err)
	}
	ttl := 120
	for agent, scope := range map[string]string{ra.AgentID: "src/a.go", rb.AgentID: "src/b.go"} {
		if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: agent, Scope: scope, BeadID: "bd-1", TTLMinutes: &ttl}); err != nil {
			b.Fatal(err)
		}
	}
	edit := func(paths ...string) func(int) error {
		return func(int) error {
			_, err := svc.CheckEdit(ctx, hooks.EditInput{Session: &sa, Paths: paths, Tool: "Edit"})
			return err
		}
	}
	ways := map[string]func(i int) error{
		"held":   edit("src/a.go"),
		"denied": edit("src/b.go"),
		"free": func(i int) error {
			return edit(fmt.Sprintf("gen/f%d.go", i))(i)
		},
		"stop": func(int) error {
			_, err := svc.StopReminder(ctx, hooks.StopInput{Client: "claude", SessionID: "bench-a", Agent: ra.AgentID, ChangesKnown: true})
			return err
		},
	}
	if d, err := svc.CheckEdit(ctx, hooks.EditInput{Session: &sa, Paths: []string{"src/b.go"}}); err != nil || d.Decision != hooks.EditDeny {
		b.Fatalf("the held file is not denied: %+v %v", d, err)
	}
	order := []string{"held", "free", "denied", "stop"}
	alternate(b, order, ways)
}
