package notify

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// syncBuffer is a log the notifier writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A webhook does not follow redirects (issue 38 item 10): before, a 302
// became a body-less GET of the new place, dropped after five tries, and a
// 307 posted the item to another host. Now a 3xx is a failed delivery
// whose reason names the redirect, and the other place gets nothing.
func TestWebhookDoesNotFollowRedirects(t *testing.T) {
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			svc, _ := board(t)
			elsewhere := make(chan string, 10)
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere <- r.Method }))
			defer other.Close()
			tries := make(chan struct{}, 10)
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/collect", code)
				tries <- struct{}{}
			}))
			defer hook.Close()
			if _, err := svc.Post(ctx, hub.PostInput{From: "carol", Content: "prod is down", Priority: "critical"}); err != nil {
				t.Fatal(err)
			}
			var log syncBuffer
			n := New(svc, Options{Webhooks: []string{hook.URL}, Attempts: 2, Backoff: time.Millisecond, Log: &log})
			done := make(chan error)
			go func() { done <- n.Run(ctx) }()
			<-tries
			<-tries // both attempts answered with the redirect
			// The drop is logged after the last attempt: wait for it.
			for !strings.Contains(log.String(), "after 2 attempts") {
				select {
				case <-done:
					t.Fatalf("the notifier stopped: %s", log.String())
				case <-time.After(5 * time.Millisecond):
				}
			}
			cancel()
			<-done
			if got := log.String(); !strings.Contains(got, "a redirect to") || !strings.Contains(got, "do not follow redirects") {
				t.Errorf("the failure does not say it was a redirect:\n%s", got)
			}
			select {
			case m := <-elsewhere:
				t.Errorf("the redirect was followed: %s reached the other server", m)
			default:
			}
		})
	}
}
