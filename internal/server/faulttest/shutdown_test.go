package faulttest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM under load: bb serve stops accepting, answers every request in
// progress with what was done, closes the event stream cleanly and exits
// 0 — long before its 10 s drain limit. Every post it acknowledged is
// stored once, and no post it stored was answered as a failure or left
// without an answer.
func TestSIGTERMUnderLoadAnswersEveryCommittedPost(t *testing.T) {
	dir := initBoard(t)
	env := baseEnv(dir)
	srv := startServe(t, dir, env, 30*time.Second)

	// A live event stream: it must end with a clean end of stream.
	streamEnd := make(chan error, 1)
	req, _ := http.NewRequest(http.MethodGet, srv.url+"/api/v1/events/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			if _, err := r.ReadString('\n'); err != nil {
				streamEnd <- err
				return
			}
		}
	}()

	d := newDriver(srv.url, 16, false)
	done := make(chan struct{})
	go func() { d.run(context.Background()); close(done) }()
	d.waitAcked(t, 300, 20*time.Second, "before SIGTERM")

	code, took := srv.stop(t, syscall.SIGTERM, 15*time.Second)
	<-done
	if code != 0 {
		t.Errorf("bb serve exited %d after SIGTERM, want 0", code)
	}
	// Nothing holds the drain up to its limit: the stream is closed at
	// once and posts take milliseconds.
	if took > 5*time.Second {
		t.Errorf("bb serve took %s to stop", took)
	}
	select {
	case err := <-streamEnd:
		if !errors.Is(err, io.EOF) {
			t.Errorf("event stream ended with %v, want a clean end of stream", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("event stream still open after the server exited")
	}
	stderr := srv.stderr.String()
	if !strings.Contains(stderr, "stopped: every request answered") {
		t.Errorf("stderr does not say the drain finished:\n%s", stderr)
	}

	db := stored(t, dir, env)
	checkAcknowledged(t, d.out, db)
	erred, unanswered := 0, 0
	for c := range d.out.failed {
		if db[c] > 0 {
			erred++
			t.Errorf("post %q was stored but answered with an error", c)
		}
	}
	for c := range d.out.cut {
		if db[c] > 0 {
			unanswered++
			t.Errorf("post %q was stored but its connection was cut without an answer", c)
		}
	}
	t.Logf("%d posts acknowledged, %d answered with an error (%v), %d cut; %d stored; %d committed-but-errored, %d committed-but-unanswered; stopped in %s",
		len(d.out.acked), len(d.out.failed), d.out.codes, len(d.out.cut), len(db), erred, unanswered, took.Round(time.Millisecond))
}
