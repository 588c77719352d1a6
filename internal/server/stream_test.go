package server_test

import (
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

type sseEvent struct {
	id   int64
	data map[string]any
}

// subscribe opens the event stream and returns a channel of its events.
func (e *env) subscribe(t *testing.T, lastID string) <-chan sseEvent {
	t.Helper()
	return e.subscribeTo(t, "/api/v1/events/stream", lastID)
}

// subscribeTo is subscribe with the stream's path and query.
func (e *env) subscribeTo(t *testing.T, path, lastID string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r, _ := http.NewRequestWithContext(ctx, "GET", e.http.URL+path, nil)
	if lastID != "" {
		r.Header.Set("Last-Event-ID", lastID)
	}
	if e.token != "" {
		r.Header.Set("Authorization", "Bearer "+e.token)
	}
	resp, err := e.http.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan sseEvent, 1000)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id, _ = strconv.ParseInt(line[4:], 10, 64)
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(line[6:]), &ev.data)
			case line == "" && ev.data != nil:
				ch <- ev
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-time.After(60 * time.Second):
		t.Fatal("no event within 60s")
	}
	return sseEvent{}
}

// Events written by a separate bb process reach a subscriber (the broker's
// poll), and in-process writes too (the commit hook).
func TestStreamDeliversOtherProcessWrites(t *testing.T) {
	e := newEnv(t)
	ch := e.subscribe(t, "")
	run(t, e.dir, "--as", "zoe", "post", "from a separate process")
	ev := next(t, ch)
	if ev.data["type"] != "message.posted" || ev.data["agent"] != "zoe" || ev.data["message"] != "from a separate process" {
		t.Fatalf("event: %+v", ev)
	}
	if ev.id != int64(ev.data["seq"].(float64)) {
		t.Fatalf("id %d != seq %v", ev.id, ev.data["seq"])
	}
	e.ok(req{method: "POST", path: "/api/v1/status", agent: "zoe", body: `{"task":"t"}`}, nil)
	ev2 := next(t, ch)
	if ev2.data["type"] != "agent.status" || ev2.id <= ev.id {
		t.Fatalf("second event: %+v", ev2)
	}
}

// A client that reconnects with Last-Event-ID gets exactly what it missed,
// then live events, in order, without duplicates.
func TestStreamResumesFromLastEventID(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 5; i++ {
		run(t, e.dir, "--as", "amy", "post", "m"+strconv.Itoa(i))
	}
	// The five posts are events 1..5; resume after seq 2.
	ch := e.subscribe(t, "2")
	var got []int64
	for len(got) < 3 {
		got = append(got, next(t, ch).id)
	}
	if got[0] != 3 || got[1] != 4 || got[2] != 5 {
		t.Fatalf("replayed %v, want [3 4 5]", got)
	}
	run(t, e.dir, "--as", "amy", "post", "live")
	if ev := next(t, ch); ev.id != 6 || ev.data["message"] != "live" {
		t.Fatalf("live: %+v", ev)
	}
	// ?after= works like the header; a bad value is a 400 envelope.
	status, env := e.do(req{path: "/api/v1/events/stream?after=x"})
	if status != 400 || env.Error.Code != "INVALID_INPUT" {
		t.Fatalf("bad after: %d %+v", status, env.Error)
	}
}

// A credential revoked while its event stream is open is cut off at once;
// the operator's stream goes on, and events name the credential.
func TestStreamCutOffOnRevoke(t *testing.T) {
	e := newEnv(t, withToken("operator-0123456789abcdef"))
	nc, err := e.svc.CreateCredential(context.Background(), credentials.Input{Agent: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	op := e.subscribe(t, "")
	e.token = nc.Token
	ch := e.subscribe(t, "")
	e.ok(req{method: "POST", path: "/api/v1/messages", body: `{"content":"as myself"}`}, nil)
	if ev := next(t, ch); ev.data["agent"] != "mallory" || ev.data["credential"] != "mallory" {
		t.Fatalf("event: %v", ev.data)
	}
	next(t, op)
	if _, err := e.svc.RevokeCredential(context.Background(), "mallory"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(60 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-ch:
		case <-deadline:
			t.Fatal("the revoked credential's stream is still open")
		}
	}
	// The operator's stream sees the revocation. (It may first deliver
	// what was committed just before it opened: the credential's creation
	// or the post, depending on when its follow took position.)
	for seen := 0; ; seen++ {
		ev := next(t, op)
		if ev.data["type"] == hub.EventCredentialRevoked {
			break
		}
		if seen == 3 {
			t.Fatalf("operator stream: no %s, last %v", hub.EventCredentialRevoked, ev.data)
		}
	}
	if code, env := e.do(req{path: "/api/v1/status"}); code != http.StatusUnauthorized || env.Error.Code != "UNAUTHORIZED" {
		t.Fatalf("after revoke: %d %+v", code, env.Error)
	}
}
