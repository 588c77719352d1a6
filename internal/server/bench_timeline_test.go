package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server"
)

// BenchmarkConversationTimeline renders one conversation's timeline (what
// every open dashboard asks again on each change of the board), its
// "Needs attention" box included, on a board of 20 agents and 300
// messages over 10 work items, a third of them blockers not accepted.
func BenchmarkConversationTimeline(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command(bbBin, "--dir", dir, "init").CombinedOutput(); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	svc := openBoard(b, dir, nil)
	ctx := context.Background()
	for i := range 20 {
		if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: fmt.Sprintf("agent-%d", i), Role: "worker"}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 300 {
		cat := hub.CategoryInfo
		if i%3 == 0 {
			cat = hub.CategoryBlocked
		}
		if _, err := svc.SendMail(ctx, hub.SendInput{From: fmt.Sprintf("agent-%d", i%20), To: fmt.Sprintf("agent-%d", (i+1)%20),
			BeadID: fmt.Sprintf("bb-%d", i%10), Category: cat, Subject: fmt.Sprintf("note %d", i), Body: "b"}); err != nil {
			b.Fatal(err)
		}
	}
	srv, err := server.New(server.Config{Service: svc})
	if err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv.Start(sctx)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	url := hs.URL + "/ui/timeline?session=bead%3Abb-3"
	b.ResetTimer()
	for range b.N {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
