package hooktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Gemini CLI session cannot be woken: once its turn ended (AfterAgent),
// mail for its agent is on the person's list at once, on the dashboard's
// "Needs a person" panel and through bb serve's webhook, once per idle
// stretch however much more arrives; its next turn delivers the mail and
// the item is gone. A turn that ends with mail already waiting is a new
// item at once.
func TestUnheardGeminiSession(t *testing.T) {
	p := newProject(t)
	base := func(event string, kv ...any) map[string]any {
		m := map[string]any{"session_id": "gem-1", "transcript_path": "/t.json", "cwd": p.dir, "hook_event_name": event, "timestamp": "2026-11-23T07:00:00Z"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	out, _ := p.hook(t, nil, "gemini", "SessionStart", base("SessionStart", "source", "startup"))
	me := agentOf(t, str(out, "hookSpecificOutput.additionalContext"))
	p.bb(t, nil, "agent", "register", "--name", "carol", "--role", "worker")
	send := func(subject string) {
		t.Helper()
		p.bb(t, nil, "agent", "send", "--from", "carol", "--to", me, "--bead", "bd-1", "--category", "INFO", "--subject", subject, "--body", "b")
	}
	turn := func() string { // a prompt, then the end of the turn
		t.Helper()
		out, _ := p.hook(t, nil, "gemini", "BeforeAgent", base("BeforeAgent", "prompt", "go on"))
		p.hook(t, nil, "gemini", "AfterAgent", base("AfterAgent", "prompt", "go on", "prompt_response", "ok", "stop_hook_active", false))
		return str(out, "hookSpecificOutput.additionalContext")
	}
	turn()

	got := make(chan map[string]any, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var pl map[string]any
		_ = json.NewDecoder(r.Body).Decode(&pl)
		got <- pl
	}))
	defer hook.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bbPath(), "serve", "--dir", p.dir, "--addr", addr, "--webhook", hook.URL)
	srv.Env = p.env
	var serveOut bytes.Buffer
	srv.Stdout, srv.Stderr = &serveOut, &serveOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Signal(syscall.SIGINT); _ = srv.Wait() })
	needs := func() string { // the dashboard's "Needs a person" panel
		t.Helper()
		for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			resp, err := http.Get("http://" + addr + "/ui/needs")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return string(b)
				}
				err = fmt.Errorf("%s: %s", resp.Status, b)
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET /ui/needs: %v\n%s", err, serveOut.String())
			}
		}
	}
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case pl := <-got:
			return pl
		case <-time.After(45 * time.Second): // a hang guard on a loaded machine, not a measure
			t.Fatalf("no webhook delivery: %s\n%s", what, serveOut.String())
		}
		return nil
	}
	none := func(what string) {
		t.Helper()
		select {
		case pl := <-got:
			t.Errorf("%s: a webhook delivery %v", what, pl)
		case <-time.After(500 * time.Millisecond):
		}
	}
	if h := needs(); strings.Contains(h, "unread for") {
		t.Fatalf("idle with nothing waiting, the panel lists it:\n%s", h)
	}

	send("schema ready")
	want := "idle with 1 unread for " + me + " (Gemini CLI cannot be woken)"
	pl := next("the first mail to the idle session")
	first := fmt.Sprint(pl["id"])
	if pl["type"] != "unheard" || pl["agent"] != me || !strings.HasPrefix(fmt.Sprint(pl["text"]), "Idle with 1 unread for "+me+" (Gemini CLI cannot be woken). To do: type into "+me+"'s Gemini CLI session") {
		t.Errorf("webhook payload %v", pl)
	}
	if h := needs(); !strings.Contains(h, want) || !strings.Contains(h, me+" is idle and has not heard its mail") {
		t.Errorf("the panel does not say %q:\n%s", want, h)
	}
	send("and the tests")
	if h := needs(); !strings.Contains(h, "idle with 2 unread for "+me+" (Gemini CLI cannot be woken)") {
		t.Errorf("the panel after a second mail:\n%s", h)
	}
	none("a second mail in the same idle stretch")

	// The person types into the session: its prompt hook delivers both
	// and the item is gone; the turn ends with nothing waiting.
	if ctx := turn(); !strings.Contains(ctx, "schema ready") || !strings.Contains(ctx, "and the tests") {
		t.Fatalf("the next turn did not deliver the mail: %q", ctx)
	}
	if h := needs(); strings.Contains(h, "unread for") {
		t.Errorf("after the turn delivered it, the panel:\n%s", h)
	}
	none("an idle session with nothing waiting")

	// Mail that arrives during a turn after its last hook is waiting as
	// the turn ends: a new item, at once.
	p.hook(t, nil, "gemini", "BeforeAgent", base("BeforeAgent", "prompt", "once more"))
	send("late news")
	p.hook(t, nil, "gemini", "AfterAgent", base("AfterAgent", "prompt", "once more", "prompt_response", "ok", "stop_hook_active", false))
	pl = next("a turn that ended with mail waiting")
	if pl["type"] != "unheard" || fmt.Sprint(pl["id"]) == first || !strings.Contains(fmt.Sprint(pl["text"]), "Idle with 1 unread for "+me) {
		t.Errorf("after the turn ended with mail waiting: %v (first id %s)", pl, first)
	}
}
