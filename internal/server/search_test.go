package server_test

import (
	"net/http"
	"net/url"
	"testing"
)

// GET /api/v1/search: ranked hits with snippet marks, the CLI's filters as
// query parameters, and INVALID_INPUT (never index syntax errors) for a
// query without words.
func TestAPISearch(t *testing.T) {
	e := newEnv(t)
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "alice", body: `{"content":"the session cookie expires too soon"}`}, nil)
	e.ok(req{method: "POST", path: "/api/v1/messages", agent: "bob", body: `{"content":"cookie banner"}`}, nil)
	e.ok(req{method: "POST", path: "/api/v1/artifacts", agent: "bob", body: `{"path":"internal/auth/cookie.go","description":"signing"}`}, nil)
	var res struct {
		Query string `json:"query"`
		Hits  []struct {
			Kind    string   `json:"kind"`
			ID      string   `json:"id"`
			Agent   string   `json:"agent"`
			Snippet string   `json:"snippet"`
			Marks   [][2]int `json:"marks"`
		} `json:"hits"`
	}
	env := e.ok(req{path: "/api/v1/search?q=" + url.QueryEscape(`"session cookie`)}, &res)
	if env.Command != "search" || len(res.Hits) != 1 || res.Hits[0].Kind != "message" || res.Hits[0].ID != "1" {
		t.Fatalf("search: %+v", res)
	}
	h := res.Hits[0]
	if len(h.Marks) != 2 || h.Snippet[h.Marks[1][0]:h.Marks[1][1]] != "cookie" {
		t.Errorf("marks %v in %q", h.Marks, h.Snippet)
	}
	e.ok(req{path: "/api/v1/search?q=cookie&agent=bob&kind=artifact"}, &res)
	if len(res.Hits) != 1 || res.Hits[0].ID != "internal/auth/cookie.go" {
		t.Errorf("filters: %+v", res.Hits)
	}
	e.ok(req{path: "/api/v1/search?q=cookie&limit=1"}, &res)
	if len(res.Hits) != 1 {
		t.Errorf("limit: %+v", res.Hits)
	}
	for _, q := range []string{"", url.QueryEscape(`"()*`)} {
		code, env := e.do(req{path: "/api/v1/search?q=" + q})
		if code != http.StatusBadRequest || env.OK || env.Error == nil || env.Error.Code != "INVALID_INPUT" {
			t.Errorf("q=%s: %d %+v", q, code, env.Error)
		}
	}
}
