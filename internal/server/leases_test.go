package server_test

import (
	"net/http"
	"testing"
)

// TestAPILeases drives bb lease over HTTP: a lock, a conflict (409), a
// port, the fence check, a release forbidden to another agent (403).
func TestAPILeases(t *testing.T) {
	e := newEnv(t)
	var g struct {
		Lease struct {
			Name  string `json:"name"`
			Agent string `json:"agent"`
			Fence int64  `json:"fence"`
			Value string `json:"value"`
		} `json:"lease"`
	}
	env := e.ok(req{method: "POST", path: "/api/v1/leases/deploy:staging/acquire", agent: "alice", body: `{"ttl_minutes":30}`}, &g)
	if env.Command != "lease acquire" || g.Lease.Fence != 1 || g.Lease.Agent != "alice" {
		t.Fatalf("acquire: %s %+v", env.Command, g)
	}
	code, fail := e.do(req{method: "POST", path: "/api/v1/leases/deploy:staging/acquire", agent: "bob"})
	if code != http.StatusConflict || fail.Error == nil || fail.Error.Code != "LEASE_CONFLICT" {
		t.Fatalf("held: %d %+v", code, fail.Error)
	}
	code, fail = e.do(req{method: "POST", path: "/api/v1/leases/deploy:staging/release", agent: "bob"})
	if code != http.StatusForbidden || fail.Error.Code != "RELEASE_FORBIDDEN" {
		t.Fatalf("another's release: %d %+v", code, fail.Error)
	}
	code, fail = e.do(req{method: "POST", path: "/api/v1/leases/build/acquire", agent: "bob", body: `{"capacity":0}`})
	if code != http.StatusBadRequest || fail.Error.Field != "capacity" {
		t.Fatalf("capacity 0: %d %+v", code, fail.Error)
	}
	var chk struct {
		Held bool `json:"held"`
	}
	e.ok(req{path: "/api/v1/leases/deploy:staging/check?fence=1", agent: "alice"}, &chk)
	if !chk.Held {
		t.Fatalf("check: %+v", chk)
	}
	e.ok(req{method: "POST", path: "/api/v1/leases/port:web/acquire", agent: "bob"}, &g)
	if g.Lease.Value == "" {
		t.Fatalf("port: %+v", g)
	}
	var list []map[string]any
	e.ok(req{path: "/api/v1/leases"}, &list)
	if len(list) != 2 {
		t.Fatalf("list: %v", list)
	}
	e.ok(req{method: "POST", path: "/api/v1/leases/deploy:staging/release", agent: "alice"}, nil)
	e.ok(req{path: "/api/v1/leases/deploy:staging/check?fence=1", agent: "alice"}, &chk)
	if chk.Held {
		t.Fatalf("check after release: %+v", chk)
	}
}
