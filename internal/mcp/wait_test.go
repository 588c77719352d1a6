package mcp

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/hub"
)

// bb_wait returns what arrives (recorded delivered once), a reply alone,
// or says the time ran out; bad input is refused by name.
func TestWaitTool(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	a, b := connect(t, s), connect(t, s)
	ok(t, a, "bb_identify", map[string]any{"agent": "alice"})
	ok(t, b, "bb_identify", map[string]any{"agent": "bob"})
	ok(t, b, "bb_inbox", nil)

	got := make(chan map[string]any, 1)
	go func() { got <- ok(t, b, "bb_wait", map[string]any{"timeout_s": 30}) }()
	ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "t-1", "category": "HANDOFF", "subject": "parser", "body": "yours now"})
	w := <-got
	if w["met"] != true || w["timed_out"] != false || !strings.Contains(w["text"].(string), "HANDOFF from alice") {
		t.Fatalf("wait: %v", w)
	}
	if d := w["delivered"].([]any); len(d) != 1 {
		t.Fatalf("delivered: %v", w["delivered"])
	}
	// Delivered once: a second wait sees nothing new.
	if w := ok(t, b, "bb_wait", map[string]any{"timeout_s": 1}); w["timed_out"] != true {
		t.Fatalf("second wait: %v", w)
	}

	// A reply to bob's BLOCKED, and nothing else, ends a wait for it.
	q := ok(t, b, "bb_send_mail", map[string]any{"agent": "alice", "bead": "t-1", "category": "BLOCKED", "subject": "port?", "body": "which"})
	go func() {
		got <- ok(t, b, "bb_wait", map[string]any{"for": "reply:" + q["message_id"].(string), "timeout_s": 30})
	}()
	ok(t, a, "bb_send_mail", map[string]any{"agent": "bob", "bead": "t-1", "subject": "noise", "body": "unrelated"})
	if _, err := svc.ReplyMail(context.Background(), hub.ReplyInput{Agent: "alice", Message: q["message_id"].(string), Body: "8080"}); err != nil {
		t.Fatal(err)
	}
	w = <-got
	if w["condition"] != "reply" || !strings.Contains(w["text"].(string), "8080") || strings.Contains(w["text"].(string), "unrelated") {
		t.Fatalf("reply wait: %v", w)
	}

	fail(t, b, "bb_wait", map[string]any{"timeout_s": 0}, hub.CodeInvalidInput)
	fail(t, b, "bb_wait", map[string]any{"timeout_s": 601}, hub.CodeInvalidInput)
	fail(t, b, "bb_wait", map[string]any{"for": "soon", "timeout_s": 1}, hub.CodeInvalidInput)
	fail(t, b, "bb_wait", map[string]any{"for": "reply:nosuch", "timeout_s": 1}, hub.CodeMessageNotFound)
}

// A call that asks for progress gets notifications while it waits, and a
// client that cancels the call ends the wait.
func TestWaitToolProgressAndCancel(t *testing.T) {
	svc := newService(t)
	s := newServer(t, svc, Options{})
	var progress atomic.Int32
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) }})
	cs, err := cl.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	ok(t, cs, "bb_identify", map[string]any{"agent": "carol"})
	p := &sdk.CallToolParams{Name: "bb_wait", Arguments: map[string]any{"timeout_s": 3}}
	p.SetProgressToken("w1")
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatalf("wait: %v %v", err, res)
	}
	if progress.Load() == 0 {
		t.Fatal("no progress notification during a 3 s wait")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bb_wait", Arguments: map[string]any{"timeout_s": 600}})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the call reach the server
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a cancelled bb_wait did not end")
	}
	// The cancelled wait is gone on the server too: it does not take the
	// next mail, a new wait gets it.
	time.Sleep(time.Second)
	if _, _, err := svc.RegisterAgent(context.Background(), hub.RegisterInput{ID: "dave-sender", Role: "worker"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMail(context.Background(), hub.SendInput{From: "dave-sender", To: "carol", BeadID: "t-1", Category: "INFO", Subject: "after", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if w := ok(t, cs, "bb_wait", map[string]any{"timeout_s": 10}); w["met"] != true {
		t.Fatalf("the mail after a cancelled wait: %v", w)
	}
}
