package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/server"
	"github.com/blackboard-hub/bb/internal/server/remote"
	"github.com/blackboard-hub/bb/internal/server/wire"
)

// TestRemoteAcquireWaitOutlivesServerTimeouts: an acquire with --wait
// through the remote client is served on one request that outlives the
// server's read and write timeouts (shrunk here), and is granted when the
// holder releases.
func TestRemoteAcquireWaitOutlivesServerTimeouts(t *testing.T) {
	dir := leaseBoard(t)
	srv, err := server.New(server.Config{Service: openBoard(t, dir, nil)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.Start(ctx)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.ReadTimeout = 200 * time.Millisecond
	hs.Config.WriteTimeout = 200 * time.Millisecond
	hs.Start()
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	c, err := remote.New(hs.URL, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AcquireLease(ctx, leases.AcquireInput{Agent: "amber-otter", Name: "build"}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		g   leases.Grant
		err error
	}
	done := make(chan result, 1)
	go func() {
		g, err := c.AcquireLease(ctx, leases.AcquireInput{Agent: "cobalt-harbor", Name: "build", Wait: 5 * time.Second})
		done <- result{g, err}
	}()
	time.Sleep(800 * time.Millisecond) // well past both timeouts
	if _, err := c.ReleaseLease(ctx, leases.ReleaseInput{Agent: "amber-otter", Name: "build"}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("acquire --wait 5s was cut: %v", r.err)
		}
		if r.g.Lease.Agent != "cobalt-harbor" {
			t.Fatalf("grant = %+v", r.g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("acquire --wait did not return")
	}

	// The same through REST: POST /api/v1/leases/{name}/acquire.
	rest := make(chan error, 1)
	go func() {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/api/v1/leases/build/acquire", strings.NewReader(`{"wait":"5s"}`))
		if err != nil {
			rest <- err
			return
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(wire.AgentHeader, "amber-otter")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			rest <- err
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
		}
		rest <- err
	}()
	time.Sleep(800 * time.Millisecond)
	if _, err := c.ReleaseLease(ctx, leases.ReleaseInput{Agent: "cobalt-harbor", Name: "build"}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-rest:
		if err != nil {
			t.Fatalf("REST acquire wait 5s was cut: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("REST acquire with a wait did not return")
	}
}
