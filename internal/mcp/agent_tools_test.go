package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestMailTools(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a, b := connect(t, s), connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent_id": "bob"}) // the earlier parameter name still works
	ok(t, b, "bb_inbox", nil)                                  // bob exists from now on (every call checks in)

	// Board posts are not mail: 30 of them do not bury a handoff.
	for i := 0; i < 30; i++ {
		ok(t, a, "bb_post_message", map[string]any{"content": "board chatter"})
	}
	sent := ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "task-1", "category": "HANDOFF", "subject": "parser", "body": "yours now"})
	if sent["requires_ack"] != true || sent["to_agent"] != "bob" || sent["thread_id"] != "bead:task-1" {
		t.Fatalf("send: %v", sent)
	}
	id := sent["message_id"].(string)
	if _, has := sent["wait"]; has {
		t.Errorf("a HANDOFF names no wait: %v", sent)
	}
	// bb_send (earlier name) and to (earlier parameter) still work.
	info := ok(t, a, "bb_send", map[string]any{"to": "broadcast", "bead": "task-1", "subject": "fyi", "body": "info for all"})
	if info["category"] != "INFO" || info["to_agent"] != "broadcast" {
		t.Fatalf("default category INFO to broadcast: %v", info)
	}

	// bob is told, lists (mail only), reads and acks.
	r := callTool(t, b, "bb_inbox", map[string]any{"state": "unread"})
	if !strings.Contains(text(r), "message awaiting your ack (bb_ack)") {
		t.Fatalf("acks owed notice: %q", text(r))
	}
	msgs := ok(t, b, "bb_inbox", map[string]any{"state": "unread"})["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("inbox holds the 2 mails and no board post: %d items", len(msgs))
	}
	// mark_read with limit 1 marks exactly the mail it shows.
	page := ok(t, b, "bb_inbox", map[string]any{"state": "unread", "limit": 1, "mark_read": true})
	shown := page["messages"].([]any)
	if len(shown) != 1 || shown[0].(map[string]any)["state"] != "read" || page["next_cursor"] != "1" {
		t.Fatalf("mark_read page: %v", page)
	}
	if left := ok(t, b, "bb_inbox", map[string]any{"state": "unread"})["messages"].([]any); len(left) != 1 {
		t.Fatalf("want 1 unread mail left, got %d", len(left))
	}
	if m := ok(t, b, "bb_ack", map[string]any{"message_id": id}); m["state"] != "acked" || m["acked_at"] == nil {
		t.Fatalf("ack: %v", m)
	}
	if r := callTool(t, b, "bb_summary", nil); strings.Contains(text(r), "await") {
		t.Fatalf("ack notice after acking: %q", text(r))
	}

	// The priority reaches the recipient.
	urgent := ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "task-1", "subject": "stop", "body": "main is red", "priority": "critical"})
	if urgent["priority"] != "critical" {
		t.Fatalf("send with priority: %v", urgent)
	}
	if top := ok(t, b, "bb_inbox", map[string]any{"limit": 1})["messages"].([]any)[0].(map[string]any); top["priority"] != "critical" || top["subject"] != "stop" {
		t.Fatalf("bob's inbox shows the priority: %v", top)
	}
	fail(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "t", "subject": "s", "body": "b", "priority": "urgent"}, hub.CodeInvalidInput)

	// Errors carry the bb agent codes and name the parameter.
	fail(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "", "subject": "s", "body": "b"}, hub.CodeMissingBeadID)
	fail(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "t", "category": "URGENT", "subject": "s", "body": "b"}, hub.CodeInvalidCategory)
	fail(t, a, "bb_send_mail", map[string]any{"agent": "nobody", "bead": "t", "subject": "s", "body": "b"}, hub.CodeUnknownRecipient)
	fail(t, a, "bb_send_mail", map[string]any{"agent": "alice", "bead": "t", "subject": "s", "body": "b"}, hub.CodeInvalidArgs)
	fail(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "t", "subject": "s"}, hub.CodeInvalidInput) // body missing
	fail(t, a, "bb_ack", map[string]any{"message_id": id}, hub.CodeAckForbidden)
	fail(t, b, "bb_ack", map[string]any{"message_id": "00000000-0000-0000-0000-000000000000"}, hub.CodeMessageNotFound)
	fail(t, b, "bb_inbox", map[string]any{"state": "gone"}, hub.CodeInvalidArgs)
	fail(t, b, "bb_inbox", map[string]any{"limit": 501}, hub.CodeInvalidInput)
	anon := connect(t, s)
	for _, tool := range []string{"bb_send_mail", "bb_inbox", "bb_ack"} {
		fail(t, anon, tool, map[string]any{}, hub.CodeIdentityRequired)
	}
}

func TestReservationTools(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a, b := connect(t, s), connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent_id": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent_id": "bob"})

	res := ok(t, a, "bb_reserve", map[string]any{"scope": "src/parser/*", "bead": "task-1", "ttl_minutes": 30})
	rv := res["reservation"].(map[string]any)
	if rv["scope"] != "src/parser/*" || rv["agent_id"] != "alice" || res["renewed"] != false {
		t.Fatalf("reserve: %v", res)
	}
	if again := ok(t, a, "bb_reserve", map[string]any{"scope": "src/parser/*", "bead": "task-1"}); again["renewed"] != true {
		t.Fatalf("re-reserve renews: %v", again)
	}

	// The read-only check: bob sees alice's hold, alice sees she holds it.
	chk := ok(t, b, "bb_check_scope", map[string]any{"scope": "src/parser/lexer.go"})
	holders := chk["holders"].([]any)
	if chk["outcome"] != "conflict" || chk["held"] != false || len(holders) != 1 || holders[0].(map[string]any)["overlap"] != "partial" {
		t.Fatalf("check by bob: %v", chk)
	}
	if mine := ok(t, a, "bb_check_scope", map[string]any{"scope": "src/parser/lexer.go"}); mine["outcome"] != "clear" || mine["held"] != true {
		t.Fatalf("check by alice: %v", mine)
	}
	if free := ok(t, b, "bb_check_scope", map[string]any{"scope": "docs"}); free["outcome"] != "clear" || len(free["holders"].([]any)) != 0 {
		t.Fatalf("check of a free path: %v", free)
	}
	// The check wrote nothing (no INCURSION).
	evs, _ := svc.Events(t.Context(), hub.EventQuery{Types: []string{hub.EventIncursion}})
	if len(evs.Events) != 0 {
		t.Fatalf("check_scope recorded events: %v", evs)
	}

	msg := fail(t, b, "bb_reserve", map[string]any{"scope": "src/parser/lexer.go", "bead": "task-2"}, hub.CodeReservationConflict)
	if !strings.Contains(msg, "alice") {
		t.Fatalf("conflict must name the holder: %q", msg)
	}
	// A refused reserve entered nothing: alice is not told of an
	// incursion; the conflict is in the timeline.
	if r := callTool(t, a, "bb_get_status", nil); strings.Contains(text(r), "incursion") {
		t.Fatalf("a refused reserve is no incursion: %q", text(r))
	}
	if evs, _ := svc.Events(t.Context(), hub.EventQuery{Types: []string{hub.EventReservationConflict}}); len(evs.Events) != 1 {
		t.Fatalf("the refused reserve is one conflict: %+v", evs.Events)
	}
	fail(t, b, "bb_release", map[string]any{"scope": "src/parser/*"}, hub.CodeReleaseForbidden)
	fail(t, b, "bb_release", map[string]any{"scope": "nothing/here"}, hub.CodeReservationNotFound)
	fail(t, a, "bb_reserve", map[string]any{"scope": "x", "bead": "t", "ttl_minutes": 2}, hub.CodeInvalidArgs)
	fail(t, a, "bb_reserve", map[string]any{"scope": "x", "bead": ""}, hub.CodeMissingBeadID)
	rel := ok(t, a, "bb_release", map[string]any{"scope": "src/parser/*"})
	if rel["state"] != "released" {
		t.Fatalf("release: %v", rel)
	}
	ok(t, b, "bb_reserve", map[string]any{"scope": "src/parser/lexer.go", "bead": "task-2"})

	// An expired reservation is "stale" for the check, and reserving then
	// needs takeover_stale.
	ok(t, a, "bb_reserve", map[string]any{"scope": "lib", "bead": "task-3", "ttl_minutes": 5})
	later := openBoard(t, svc.Root(), hub.FixedClock{T: t0.Add(10 * time.Minute)})
	bl := connect(t, newServer(t, later, Options{Agent: "bob"}))
	if chk := ok(t, bl, "bb_check_scope", map[string]any{"scope": "lib/x.go"}); chk["outcome"] != "stale" {
		t.Fatalf("expired reservation: %v", chk)
	}
	fail(t, bl, "bb_reserve", map[string]any{"scope": "lib", "bead": "task-3"}, hub.CodeReservationStaleFound)
	took := ok(t, bl, "bb_reserve", map[string]any{"scope": "lib", "bead": "task-3", "takeover_stale": true})
	if len(took["taken_over"].([]any)) != 1 {
		t.Fatalf("takeover: %v", took)
	}
}

// A person steps in through bb_release: holder names an evicted agent's
// reservation, agent the one it is handed to; the same core rule as the
// CLI and the dashboard (hub.StepIn), recorded under the person's name.
func TestReleaseByPerson(t *testing.T) {
	ctx := t.Context()
	svc := newService(t)
	for _, r := range []hub.RegisterInput{{ID: "boss", Role: hub.RolePerson}, {ID: "bob", Role: "worker"}} {
		if _, _, err := svc.RegisterAgent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, sc := range []string{"src/a.go", "src/b.go"} {
		if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "bob", Scope: sc, BeadID: "task-1"}); err != nil {
			t.Fatal(err)
		}
	}
	boss := connect(t, newServer(t, svc, Options{Agent: "boss"}))
	// bob is active: refused, and an agent (not a person) never may.
	fail(t, boss, "bb_release", map[string]any{"scope": "src/a.go", "holder": "bob", "agent": "carol"}, hub.CodeReleaseForbidden)

	later := openBoard(t, svc.Root(), hub.FixedClock{T: t0.Add(31 * time.Minute)})
	if _, _, err := later.RegisterAgent(ctx, hub.RegisterInput{ID: "carol", Role: "worker"}); err != nil {
		t.Fatal(err)
	}
	carol := connect(t, newServer(t, later, Options{Agent: "carol"}))
	fail(t, carol, "bb_release", map[string]any{"scope": "src/a.go", "holder": "bob"}, hub.CodeReleaseForbidden)
	boss = connect(t, newServer(t, later, Options{Agent: "boss"}))
	if msg := fail(t, boss, "bb_release", map[string]any{"scope": "src/a.go", "holder": "bob", "agent": "nobody"}, hub.CodeAgentNotFound); !strings.Contains(msg, "nobody") {
		t.Fatalf("unknown new holder: %q", msg)
	}

	got := ok(t, boss, "bb_release", map[string]any{"scope": "src/a.go", "holder": "bob", "agent": "carol"})
	if got["agent_id"] != "carol" || got["state"] != "active" || got["bead_id"] != "task-1" {
		t.Fatalf("reassign answers carol's reservation: %v", got)
	}
	// carol is mailed by the person.
	mail := ok(t, carol, "bb_inbox", nil)["messages"].([]any)
	if len(mail) != 1 || mail[0].(map[string]any)["from_agent"] != "boss" || !strings.Contains(mail[0].(map[string]any)["subject"].(string), "src/a.go is yours") {
		t.Fatalf("carol's inbox: %v", mail)
	}
	got = ok(t, boss, "bb_release", map[string]any{"scope": "src/b.go", "holder": "bob"})
	if got["agent_id"] != "bob" || got["state"] != "released" {
		t.Fatalf("release answers bob's released reservation: %v", got)
	}
	evs, err := later.Events(ctx, hub.EventQuery{Types: []string{hub.EventReservationReassigned, hub.EventReservationRelease}})
	if err != nil || len(evs.Events) != 2 || evs.Events[0].Agent != "boss" || evs.Events[1].Agent != "boss" {
		t.Fatalf("recorded under the person: %+v %v", evs.Events, err)
	}
}

func TestTaskAndMemoryTools(t *testing.T) {
	svc := newService(t)
	cs := connect(t, newServer(t, svc, Options{Agent: "alice"}))
	task := ok(t, cs, "bb_task_create", map[string]any{"title": "write parser", "priority": 5, "project": "web"})
	id := task["id"].(string)
	if task["status"] != "pending" {
		t.Fatalf("create: %v", task)
	}
	ok(t, cs, "bb_task_create", map[string]any{"title": "later"})
	list := ok(t, cs, "bb_task_list", nil)["tasks"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("list by priority: %v", list)
	}
	if one := ok(t, cs, "bb_task_list", map[string]any{"id": id})["tasks"].([]any); len(one) != 1 {
		t.Fatalf("list one: %v", one)
	}
	if got := ok(t, cs, "bb_task_list", map[string]any{"status": "completed"})["tasks"].([]any); len(got) != 0 {
		t.Fatalf("status filter: %v", got)
	}
	if b := ok(t, cs, "bb_task_begin", map[string]any{"id": id}); b["status"] != "in_progress" || b["owner"] != "alice" {
		t.Fatalf("begin: %v", b)
	}
	peek := ok(t, cs, "bb_resume", map[string]any{"peek": true})
	if peek["brief"].(map[string]any)["task"].(map[string]any)["id"] != id || peek["prompt"] == "" {
		t.Fatalf("resume peek: %v", peek)
	}
	res := ok(t, cs, "bb_resume", nil)
	if res["focus_task_id"] != id || res["new_cursor"].(float64) <= 0 {
		t.Fatalf("resume: %v", res)
	}
	if c := ok(t, cs, "bb_task_complete", map[string]any{"id": id, "summary": "done and tested"}); c["status"] != "completed" {
		t.Fatalf("complete: %v", c)
	}
	fail(t, cs, "bb_task_complete", map[string]any{"id": id, "summary": "x", "outcome": "maybe"}, hub.CodeInvalidInput)
	fail(t, cs, "bb_task_begin", map[string]any{"id": "task_nope"}, hub.CodeNotFound)
	fail(t, cs, "bb_task_create", map[string]any{"title": " "}, hub.CodeInvalidInput)
	fail(t, cs, "bb_task_list", map[string]any{"status": "done"}, hub.CodeInvalidInput)

	set := ok(t, cs, "bb_memory_set", map[string]any{"key": "build", "value": "make test", "scope": "project", "scope_id": "web", "expires_in": "7d"})
	if set["key"] != "build" || set["expires_at"] == nil {
		t.Fatalf("memory set: %v", set)
	}
	ok(t, cs, "bb_memory_set", map[string]any{"key": "lang", "value": "go"})
	got := ok(t, cs, "bb_memory_get", map[string]any{"key": "build", "scope": "project", "scope_id": "web"})["memories"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["value"] != "make test" {
		t.Fatalf("memory get: %v", got)
	}
	if all := ok(t, cs, "bb_memory_get", nil)["memories"].([]any); len(all) != 1 {
		t.Fatalf("memory list of global: %v", all)
	}
	fail(t, cs, "bb_memory_get", map[string]any{"key": "nope"}, hub.CodeNotFound)
	fail(t, cs, "bb_memory_set", map[string]any{"key": "k", "value": "v", "scope": "project"}, hub.CodeInvalidInput)
	// A bad expires_in says what is accepted, in the words bb memory set's
	// --expires-in gives (issue 39), not vybe's "unsupported duration".
	msg := fail(t, cs, "bb_memory_set", map[string]any{"key": "k", "value": "v", "expires_in": "soon"}, hub.CodeInvalidInput)
	if !strings.Contains(msg, "expires_in must be a duration such as 90m, 2h, 7d or 2w") || strings.Contains(msg, "unsupported duration") {
		t.Errorf("bad expires_in: %q", msg)
	}
	msg = fail(t, cs, "bb_memory_set", map[string]any{"key": "k", "value": "v", "expires_in": "5y"}, hub.CodeInvalidInput)
	if !strings.Contains(msg, "units s, m, h, d, w") {
		t.Errorf("expires_in 5y: %q", msg)
	}
}

// The reply to a BLOCKED names the wait its sender makes instead of
// polling, in MCP's words: for the answer, or for the scope its recipient
// refused it.
func TestBlockedReplyNamesTheWait(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a, b := connect(t, s), connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent": "bob"})
	ok(t, b, "bb_inbox", nil)
	blocked := ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "task-1", "category": "BLOCKED", "subject": "which schema?", "body": "v1 or v2"})
	if want := "wait for the answer: call bb_wait with for reply:" + blocked["message_id"].(string); blocked["wait"] != want {
		t.Errorf("BLOCKED reply wait %q, want %q", blocked["wait"], want)
	}
	ok(t, b, "bb_reserve", map[string]any{"scope": "src/a.go", "bead": "task-1"})
	callTool(t, a, "bb_reserve", map[string]any{"scope": "src/a.go", "bead": "task-1"}) // refused
	blocked = ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "task-1", "category": "BLOCKED", "subject": "release src/a.go", "body": "I need it"})
	if want := "wait for src/a.go: call bb_wait with for scope:src/a.go"; blocked["wait"] != want {
		t.Errorf("BLOCKED reply after a refusal: wait %q, want %q", blocked["wait"], want)
	}
}
