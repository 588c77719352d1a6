package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// httpMCP is a streamable HTTP endpoint under test.
type httpMCP struct {
	t   *testing.T
	url string
}

// newHTTPMCP serves HTTPHandler of a fresh board on a loopback server.
func newHTTPMCP(t *testing.T) *httpMCP {
	t.Helper()
	s := newServer(t, newService(t), Options{})
	ts := httptest.NewServer(s.HTTPHandler(HTTPOptions{SessionTimeout: time.Minute}))
	t.Cleanup(ts.Close)
	return &httpMCP{t: t, url: ts.URL}
}

// post sends body and returns the status, the session id header and the
// JSON-RPC messages of the reply (a JSON body or SSE data lines).
func (h *httpMCP) post(sid, body string, hdr map[string]string) (int, string, []rpcReply) {
	h.t.Helper()
	status, sid2, raw := h.postRaw(sid, body, hdr)
	var out []rpcReply
	for _, m := range raw {
		var r rpcReply
		if err := json.Unmarshal(m, &r); err != nil {
			var batch []rpcReply
			if json.Unmarshal(m, &batch) != nil {
				h.t.Fatalf("not JSON-RPC: %s", m)
			}
			out = append(out, batch...)
			continue
		}
		out = append(out, r)
	}
	return status, sid2, out
}

func (h *httpMCP) postRaw(sid, body string, hdr map[string]string) (int, string, []json.RawMessage) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var msgs []json.RawMessage
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msgs = append(msgs, json.RawMessage(d))
			}
		}
	} else if len(bytes.TrimSpace(b)) > 0 && json.Valid(b) {
		msgs = append(msgs, json.RawMessage(bytes.TrimSpace(b)))
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), msgs
}

// start initializes a session (version, optional agent header) and
// returns its id.
func (h *httpMCP) start(version string, hdr map[string]string) string {
	h.t.Helper()
	status, sid, rs := h.post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, hdr)
	if status != http.StatusOK || sid == "" || len(rs) != 1 || rs[0].Result == nil {
		h.t.Fatalf("initialize: %d %q %+v", status, sid, rs)
	}
	if st, _, _ := h.post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withVersion(hdr, version)); st != http.StatusAccepted {
		h.t.Fatalf("initialized: %d", st)
	}
	return sid
}

func withVersion(hdr map[string]string, v string) map[string]string {
	out := map[string]string{"MCP-Protocol-Version": v}
	for k, x := range hdr {
		out[k] = x
	}
	return out
}

// TestHTTPProtocolErrors: malformed bodies get 400 with a JSON-RPC error
// naming the problem; a POST without Mcp-Session-Id that is not
// initialize gets 400 (the spec's answer), not a session.
func TestHTTPProtocolErrors(t *testing.T) {
	h := newHTTPMCP(t)
	cases := []struct {
		body   string
		status int
		code   int
		id     string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, 400, -32600, "7"}, // no session id
		{`{not json`, 400, -32700, "null"},
		{`{"id":8,"method":"initialize"}`, 400, -32600, "8"}, // no jsonrpc
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, 400, -32600, "null"},
		{`{"jsonrpc":"2.0","id":9,"method":"initialize"} trailing`, 400, -32700, "null"},
		{`[{"jsonrpc":"2.0","id":10,"method":"ping"}]`, 400, -32600, "null"}, // a batch without a session
	}
	for _, c := range cases {
		status, sid, rs := h.post("", c.body, nil)
		if status != c.status || sid != "" || len(rs) != 1 || rs[0].Error == nil || rs[0].Error.Code != c.code || string(rs[0].ID) != c.id {
			t.Errorf("%s: want %d with error %d id %s, got %d %q %+v", c.body, c.status, c.code, c.id, status, sid, rs)
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", MaxMessageBytes) + `"}}`
	if status, _, _ := h.post("", big, nil); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 4 MiB: %d", status)
	}

	sid := h.start("2025-06-18", nil)
	v := withVersion(nil, "2025-06-18")
	// Ids are echoed exactly.
	for _, id := range []string{"1.5", "12345678901234567890", `"s-1"`, "42"} {
		status, _, rs := h.post(sid, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, v)
		if status != 200 || len(rs) != 1 || string(rs[0].ID) != id || rs[0].Result == nil {
			t.Errorf("id %s: %d %+v", id, status, rs)
		}
	}
	// A second initialize is an invalid request, with its code.
	_, _, rs := h.post(sid, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, v)
	if len(rs) != 1 || rs[0].Error == nil || rs[0].Error.Code != -32600 {
		t.Errorf("second initialize: %+v", rs)
	}
	// The session survived all of it.
	if _, _, rs := h.post(sid, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, v); len(rs) != 1 || rs[0].Result == nil {
		t.Errorf("tools/list after errors: %+v", rs)
	}
}

// TestHTTPBatches: on 2025-03-26 a batch with a notification inside is
// answered (the notification gets no entry).
func TestHTTPBatches(t *testing.T) {
	h := newHTTPMCP(t)
	sid := h.start("2025-03-26", nil)
	status, _, rs := h.post(sid, `[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		withVersion(nil, "2025-03-26"))
	ids := byID(rs)
	if status != 200 || len(rs) != 2 || ids[`"a"`].Result == nil || ids["2"].Result == nil {
		t.Fatalf("batch: %d %+v", status, rs)
	}
}

// TestHTTPIdentityPinning: a session pins its identity at initialize
// (header or query); a second live session claiming it is refused; the
// session stays bound to its token; bb_identify cannot change it.
func TestHTTPIdentityPinning(t *testing.T) {
	h := newHTTPMCP(t)
	v := "2025-06-18"
	alice := h.start(v, map[string]string{AgentHeader: "alice-1"})
	call := func(sid, tool, args string, hdr map[string]string) rpcReply {
		t.Helper()
		_, _, rs := h.post(sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`, withVersion(hdr, v))
		if len(rs) != 1 || rs[0].Result == nil {
			t.Fatalf("%s: %+v", tool, rs)
		}
		return rs[0]
	}
	r := call(alice, "bb_post_message", `{"content":"pinned"}`, nil)
	if !strings.Contains(string(r.Result), `\"from_agent\":\"alice-1\"`) {
		t.Fatalf("post as the pinned agent: %s", r.Result)
	}
	if r := call(alice, "bb_identify", `{"agent":"bob-1"}`, nil); !strings.Contains(string(r.Result), "INVALID_INPUT") {
		t.Fatalf("identify cannot change a pinned identity: %s", r.Result)
	}
	// A second live session claiming alice-1: 409, by header or by query.
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	if status, sid, rs := h.post("", init, map[string]string{AgentHeader: "alice-1"}); status != http.StatusConflict || sid != "" || len(rs) != 1 || !strings.Contains(rs[0].Error.Message, "in use") {
		t.Fatalf("second session for alice-1: %d %q %+v", status, sid, rs)
	}
	q := &httpMCP{t: t, url: h.url + "?agent=alice-1"}
	if status, _, _ := q.post("", init, nil); status != http.StatusConflict {
		t.Fatalf("second session for alice-1 by query: %d", status)
	}
	// An anonymous session cannot bb_identify as alice-1 either.
	anon := h.start(v, nil)
	if r := call(anon, "bb_identify", `{"agent":"alice-1"}`, nil); !strings.Contains(string(r.Result), "in use") {
		t.Fatalf("identify as a live session's agent: %s", r.Result)
	}
	// Query pinning works; an invalid id is refused at start.
	bob := (&httpMCP{t: t, url: h.url + "?agent=bob-1"}).start(v, nil)
	if r := call(bob, "bb_post_message", `{"content":"by query"}`, nil); !strings.Contains(string(r.Result), `\"from_agent\":\"bob-1\"`) {
		t.Fatalf("post as bob-1: %s", r.Result)
	}
	if status, _, rs := h.post("", init, map[string]string{AgentHeader: "  "}); status != 400 || !strings.Contains(rs[0].Error.Message, "INVALID_IDENTITY") {
		t.Fatalf("blank agent header: %d %+v", status, rs)
	}
	// Bound to the token it started with.
	if status, _, _ := h.post(alice, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, withVersion(map[string]string{"Authorization": "Bearer other"}, v)); status != http.StatusForbidden {
		t.Fatalf("another token on a pinned session: %d", status)
	}
	// Ending the session frees the id.
	req, _ := http.NewRequest(http.MethodDelete, h.url, nil)
	req.Header.Set("Mcp-Session-Id", alice)
	req.Header.Set("MCP-Protocol-Version", v)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if status, _, _ := h.post("", init, map[string]string{AgentHeader: "alice-1"}); status != http.StatusOK {
		t.Fatalf("alice-1 after her session ended: %d", status)
	}
}
