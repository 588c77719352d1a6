package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// Who heard what: a message's receipt on the dashboard's timeline says how
// it reached its recipient and when ("Delivered to cobalt-harbor by a
// wake of its idle session, just now"), before and after it is read, and bb
// events says the same with the item it names.
func TestDashboardWhoHeardWhat(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "worker")
	run(t, e.dir, "agent", "send", "--from", "amber-otter", "--to", "cobalt-harbor", "--bead", "bb-1",
		"--category", "INFO", "--subject", "Lexer spans", "--body", "spans are byte offsets")
	cookie := "bb_human=ada-human"
	_, tl := e.html("GET", "/ui/timeline?session=bead%3Abb-1", nil, cookie)
	if !strings.Contains(tl, "Not seen yet") || strings.Contains(tl, "Delivered to") {
		t.Fatalf("before any delivery:\n%s", tl)
	}
	res, err := e.svc.Wait(context.Background(), hooks.WaitInput{Agent: "cobalt-harbor", Timeout: 5 * time.Second, Via: hooks.ViaWake}, nil)
	if err != nil || len(res.Delivery.Delivered) != 1 {
		t.Fatalf("wake: %+v %v", res, err)
	}
	// The time in the one wording of the dashboard (hub.WhenText on the
	// board's clock: "just now", "5m ago"), the clock time as its title.
	at := "just now"
	want := "Delivered to cobalt-harbor by a wake of its idle session, <time datetime="
	_, tl = e.html("GET", "/ui/timeline?session=bead%3Abb-1", nil, cookie)
	if !strings.Contains(tl, want) || !strings.Contains(tl, ">"+at+"</time>") || strings.Contains(tl, "Not seen yet") {
		t.Fatalf("the receipt does not say how and when it was delivered (%q, %s):\n%s", want, at, tl)
	}
	run(t, e.dir, "agent", "read", "--agent", "cobalt-harbor", "--message", res.Delivery.Delivered[0])
	_, tl = e.html("GET", "/ui/timeline?session=bead%3Abb-1", nil, cookie)
	if !strings.Contains(tl, "Seen by cobalt-harbor") || !strings.Contains(tl, want) {
		t.Fatalf("once read, the receipt still says how it was delivered:\n%s", tl)
	}
	if ev := run(t, e.dir, "events", "--type", "mail.delivered"); !strings.Contains(ev, `delivered to cobalt-harbor by a wake of its idle session: INFO "Lexer spans" from amber-otter`) {
		t.Fatalf("bb events:\n%s", ev)
	}
}
