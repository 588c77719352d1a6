package mcp

import (
	"testing"
	"time"
)

// TestCallWait: only a tool call that blocks on the board has its
// request's deadlines lifted, for as long as it may wait.
func TestCallWait(t *testing.T) {
	for _, c := range []struct {
		method, params string
		want           time.Duration
	}{
		{"tools/call", `{"name":"bb_lease_acquire","arguments":{"name":"build","wait":"45s"}}`, 45 * time.Second},
		{"tools/call", `{"name":"bb_lease_acquire","arguments":{"name":"build","wait":"3h"}}`, time.Hour},
		{"tools/call", `{"name":"bb_lease_acquire","arguments":{"name":"build"}}`, 0},
		{"tools/call", `{"name":"bb_lease_acquire","arguments":{"name":"build","wait":"soon"}}`, 0},
		{"tools/call", `{"name":"bb_wait","arguments":{}}`, waitDefaultS * time.Second},
		{"tools/call", `{"name":"bb_wait","arguments":{"timeout_s":900}}`, waitCapS * time.Second},
		{"tools/call", `{"name":"bb_wait","arguments":{"timeout_s":0}}`, 0},
		{"tools/call", `{"name":"bb_reserve","arguments":{"wait":"45s"}}`, 0},
		{"tools/list", `{"name":"bb_lease_acquire","arguments":{"wait":"45s"}}`, 0},
		{"tools/call", `[1]`, 0},
	} {
		if got := callWait(inMsg{method: c.method, params: []byte(c.params)}); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.method, c.params, got, c.want)
		}
	}
}
