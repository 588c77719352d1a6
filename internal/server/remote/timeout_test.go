package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub/leases"
)

// A remote acquire with --wait longer than the client's timeout is not
// cut by it: the call's timeout is the wait plus the client's own.
func TestAcquireWaitOutlivesClientTimeout(t *testing.T) {
	const hold = 400 * time.Millisecond // the server answers after this
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(hold)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": []any{leases.Grant{Lease: leases.Lease{Name: "build"}}}})
	}))
	defer srv.Close()
	c, err := New(srv.URL, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Shrink the client's timeout below the server's answer.
	c.timeout = 100 * time.Millisecond
	c.hc.Timeout = c.timeout

	g, err := c.AcquireLease(context.Background(), leases.AcquireInput{Agent: "a", Name: "build", Wait: time.Second})
	if err != nil {
		t.Fatalf("acquire --wait 1s was cut: %v", err)
	}
	if g.Lease.Name != "build" {
		t.Fatalf("grant = %+v", g)
	}
	// Without a wait the client's timeout still applies.
	if _, err := c.AcquireLease(context.Background(), leases.AcquireInput{Agent: "a", Name: "build"}); err == nil {
		t.Fatal("acquire without --wait outlived the client's timeout")
	}
}

func TestCallTimeout(t *testing.T) {
	base := DefaultTimeout
	for _, tc := range []struct {
		args []any
		want time.Duration
	}{
		{nil, base},
		{[]any{"a", 3}, base},
		{[]any{leases.AcquireInput{Name: "x"}}, base},
		{[]any{leases.AcquireInput{Name: "x", Wait: 10 * time.Minute}}, base + 10*time.Minute},
		{[]any{leases.AcquireInput{Wait: leases.MaxWait}}, base + leases.MaxWait},
	} {
		if got := callTimeout(base, tc.args); got != tc.want {
			t.Errorf("callTimeout(%v) = %s, want %s", tc.args, got, tc.want)
		}
	}
}
