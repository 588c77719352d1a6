package server_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/hub/leases"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
	"github.com/blackboard-hub/bb/internal/server"
)

// TestMCPAcquireWaitOutlivesServerTimeouts: bb_lease_acquire with a wait,
// over bb serve's /mcp (streamable HTTP), is served on one request that
// outlives the server's read and write timeouts (shrunk here), sends its
// progress notifications meanwhile, and is granted when the holder
// releases (without the lift: "request terminated without response").
func TestMCPAcquireWaitOutlivesServerTimeouts(t *testing.T) {
	svc := openBoard(t, leaseBoard(t), nil)
	ms, err := bbmcp.New(svc, bbmcp.Options{Version: "test", LeaseProgressEvery: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Service: svc, MCP: ms.HTTPHandler(bbmcp.HTTPOptions{SessionTimeout: time.Minute})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv.Start(ctx)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.ReadTimeout = 300 * time.Millisecond
	hs.Config.WriteTimeout = 300 * time.Millisecond
	hs.Start()
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })

	var progress atomic.Int64
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) }})
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp", DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bb_identify", Arguments: map[string]any{"agent_id": "cobalt-harbor"}}); err != nil || res.IsError {
		t.Fatalf("identify: %v %+v", err, res)
	}
	if _, err := svc.AcquireLease(ctx, leases.AcquireInput{Agent: "amber-otter", Name: "build"}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		p := &sdk.CallToolParams{Name: "bb_lease_acquire", Arguments: map[string]any{"name": "build", "wait": "10s"}}
		p.SetProgressToken("acquire-1")
		res, err := cs.CallTool(ctx, p)
		done <- result{res, err}
	}()
	time.Sleep(1500 * time.Millisecond) // well past both timeouts
	if _, err := svc.ReleaseLease(ctx, leases.ReleaseInput{Agent: "amber-otter", Name: "build"}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("bb_lease_acquire with wait 10s was cut: %v", r.err)
		}
		raw, _ := json.Marshal(r.res.StructuredContent)
		var g leases.Grant
		if r.res.IsError || json.Unmarshal(raw, &g) != nil || g.Lease.Agent != "cobalt-harbor" {
			t.Fatalf("grant = %s", raw)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("bb_lease_acquire with a wait did not return")
	}
	if n := progress.Load(); n < 3 {
		t.Errorf("%d progress notifications during a 1.5 s wait, want several", n)
	}
}

// TestMCPAcquireWaitEndsWhenServerStops: a bb_lease_acquire waiting over
// /mcp ends when bb serve starts to stop, and leaves the queue, so the
// stop does not wait for the drain limit (without it: the whole drain).
func TestMCPAcquireWaitEndsWhenServerStops(t *testing.T) {
	svc := openBoard(t, leaseBoard(t), nil)
	ms, err := bbmcp.New(svc, bbmcp.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Service: svc, Addr: "127.0.0.1:0", Drain: 20 * time.Second,
		MCP: ms.HTTPHandler(bbmcp.HTTPOptions{SessionTimeout: time.Minute})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	addr := make(chan string, 1)
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(runCtx, func(a string) { addr <- a }) }()
	url := "http://" + <-addr + "/mcp"
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bb_identify", Arguments: map[string]any{"agent_id": "cobalt-harbor"}}); err != nil || res.IsError {
		t.Fatalf("identify: %v %+v", err, res)
	}
	if _, err := svc.AcquireLease(ctx, leases.AcquireInput{Agent: "amber-otter", Name: "build"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "bb_lease_acquire", Arguments: map[string]any{"name": "build", "wait": "50s"}})
	}()
	for i := 0; ; i++ {
		st, err := svc.LeaseStatus(ctx, "build")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Waiters) == 1 {
			break
		}
		if i == 100 {
			t.Fatal("the acquire never queued")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopped := time.Now()
	stop()
	select {
	case <-ran:
		if d := time.Since(stopped); d > 10*time.Second {
			t.Fatalf("the stop took %s", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the stop waited for the waiting acquire (the drain limit)")
	}
	st, err := svc.LeaseStatus(ctx, "build")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Waiters) != 0 {
		t.Fatalf("the waiter is still queued: %+v", st.Waiters)
	}
}

// leaseBoard is a new board with two workers, amber-otter (who will hold
// a lease) and cobalt-harbor (who will wait for it).
func leaseBoard(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init")
	run(t, dir, "agent", "register", "--name", "amber-otter", "--role", "worker")
	run(t, dir, "agent", "register", "--name", "cobalt-harbor", "--role", "worker")
	return dir
}
