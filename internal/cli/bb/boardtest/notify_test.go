package boardtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// bb notify against a local listener: each item arrives once, a failed
// delivery is retried, an item made by another process is picked up, and
// after a restart an item made while bb notify was stopped arrives and
// nothing delivered before is sent again.
func TestNotifyWebhook(t *testing.T) {
	dir := initBoard(t)
	run := func(args ...string) {
		t.Helper()
		if out, err := bbCmd(dir, nil, args...).CombinedOutput(); err != nil {
			t.Fatalf("bb %v: %v\n%s", args, err, out)
		}
	}
	run("agent", "register", "--name", "dana", "--role", "human")
	run("agent", "register", "--name", "carol", "--role", "worker")
	run("agent", "send", "--from", "carol", "--to", "dana", "--bead", "bb-2", "--category", "BLOCKED", "--subject", "need the schema", "--body", "which one?")

	var mu sync.Mutex
	var ids []string
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			w.WriteHeader(http.StatusBadGateway) // the first delivery fails
			return
		}
		var p struct{ ID, Type, Text string }
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("delivery %q: %v", body, err)
		}
		ids = append(ids, p.Type+"|"+p.Text)
	}))
	defer srv.Close()
	received := func(n int) []string {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			if len(ids) >= n {
				out := append([]string(nil), ids...)
				mu.Unlock()
				return out
			}
			mu.Unlock()
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("received %d deliveries, want %d: %q", len(ids), n, ids)
		return nil
	}
	start := func() (*os.Process, *bytes.Buffer) {
		var stderr bytes.Buffer
		c := bbCmd(dir, nil, "notify", "--webhook", srv.URL)
		c.Stderr = &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _, _ = c.Process.Wait() })
		return c.Process, &stderr
	}
	stop := func(p *os.Process) {
		t.Helper()
		_ = p.Signal(syscall.SIGINT)
		st, err := p.Wait()
		if err != nil || !st.Success() {
			t.Fatalf("bb notify after SIGINT: %v %v", st, err)
		}
	}

	p, stderr := start()
	got := received(1)
	// The text says what is asked and its urgency.
	if got[0] != "blocked|carol is blocked on dana on bb-2: need the schema. Asks: Answer carol on thread bead:bb-2 and acknowledge (urgency medium)" {
		t.Errorf("first delivery %q", got[0])
	}
	run("--as", "carol", "post", "prod is down", "--priority", "critical")
	got = received(2)
	if got[1] != "critical|critical from carol: prod is down" {
		t.Errorf("second delivery %q", got[1])
	}
	stop(p)
	if !strings.Contains(stderr.String(), "sending what needs a person") {
		t.Errorf("stderr: %q", stderr.String())
	}

	// While it is stopped, carol hands over; after the restart that
	// arrives, and what was delivered before is not sent again (the board
	// records each delivery).
	run("agent", "send", "--from", "carol", "--to", "dana", "--bead", "bb-3", "--category", "HANDOFF", "--subject", "yours now", "--body", "b")
	p, _ = start()
	received(3)
	time.Sleep(500 * time.Millisecond) // room for a wrong re-send to show
	stop(p)
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 3 || !strings.HasPrefix(ids[2], "handoff|carol hands over to dana on bb-3: yours now. Next: Read the handoff (message ") {
		t.Errorf("after the restart: %q", ids)
	}
	if calls != 4 {
		t.Errorf("%d calls for 3 deliveries, want 4 (one retry)", calls)
	}
}

// bb serve --webhook runs the same notifier beside the server: an item
// arrives once, linking to the server's dashboard, and a restarted server
// does not send it again.
func TestServeWebhook(t *testing.T) {
	dir := initBoard(t)
	for _, args := range [][]string{
		{"agent", "register", "--name", "dana", "--role", "human"},
		{"agent", "register", "--name", "carol", "--role", "worker"},
	} {
		if out, err := bbCmd(dir, nil, args...).CombinedOutput(); err != nil {
			t.Fatalf("bb %v: %v\n%s", args, err, out)
		}
	}
	got := make(chan map[string]any, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p map[string]any
		_ = json.NewDecoder(r.Body).Decode(&p)
		got <- p
	}))
	defer hook.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	serve := func() (stop func()) {
		srv := bbCmd(dir, nil, "serve", "--addr", addr, "--webhook", hook.URL)
		var serveOut bytes.Buffer
		srv.Stdout, srv.Stderr = &serveOut, &serveOut
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		stopped := false
		stop = func() {
			if !stopped {
				stopped = true
				_ = srv.Process.Signal(syscall.SIGINT)
				_ = srv.Wait()
			}
		}
		t.Cleanup(stop)
		return stop
	}
	send := func(bead, subject string) {
		t.Helper()
		if out, err := bbCmd(dir, nil, "agent", "send", "--from", "carol", "--to", "dana", "--bead", bead, "--category", "HANDOFF", "--subject", subject, "--body", "b").CombinedOutput(); err != nil {
			t.Fatalf("bb agent send: %v\n%s", err, out)
		}
	}
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case p := <-got:
			return p
		case <-time.After(45 * time.Second): // a hang guard on a loaded machine, not a measure
			t.Fatalf("no delivery from bb serve --webhook: %s", what)
		}
		return nil
	}
	stop := serve()
	send("bb-9", "all yours")
	if p := next("the first handoff"); p["type"] != "handoff" || p["link"] != "http://"+addr+"/" || !strings.HasPrefix(fmt.Sprint(p["text"]), "carol hands over to dana on bb-9: all yours. Next: ") || p["asked"] == "" || fmt.Sprint(p["choices"]) != "[nudge step_in]" {
		t.Errorf("delivery %v", p)
	}
	select {
	case p := <-got:
		t.Errorf("a second delivery: %v", p)
	case <-time.After(300 * time.Millisecond):
	}
	// The server records the delivery once the webhook took it; restarted,
	// it sends only the handoff made since, not the first one again.
	for deadline := time.Now().Add(45 * time.Second); recorded(t, dir) < 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the delivery was never recorded on the board")
		}
	}
	stop()
	serve()
	send("bb-10", "this one too")
	if p := next("the handoff after the restart"); !strings.HasPrefix(fmt.Sprint(p["text"]), "carol hands over to dana on bb-10: this one too. Next: ") {
		t.Errorf("after the restart: %v, want only the new handoff", p)
	}
	select {
	case p := <-got:
		t.Errorf("after the restart, another delivery: %v", p)
	case <-time.After(300 * time.Millisecond):
	}
	if out, err := bbCmd(dir, nil, "serve", "--webhook", "ftp://x").CombinedOutput(); err == nil || !strings.Contains(string(out), "invalid --webhook") {
		t.Errorf("bb serve --webhook ftp://x: %v %s", err, out)
	}
}

// recorded counts the deliveries a notifier recorded on the board of dir.
func recorded(t *testing.T, dir string) int {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, ".bb", "blackboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	if err := st.SQL().QueryRow(`SELECT COUNT(*) FROM attention_notified`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
