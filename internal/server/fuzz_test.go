package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Whatever the body, POST /api/v1/messages answers with an envelope, a
// 200 or a 4xx, never a 500, and never stores an invalid message.
func FuzzPostBody(f *testing.F) {
	for _, s := range []string{`{"content":"hi"}`, `{"content":""}`, `{`, `[]`, `{"content":"x","tags":["a b"]}`,
		`{"content":"x","reply_to":-1}`, `{"content":"x","refs":["a:b:c"]}`, `{"content":"x"} x`, `null`, `{"priority":7}`} {
		f.Add(s)
	}
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, body string) {
		r, _ := http.NewRequest("POST", e.http.URL+"/api/v1/messages", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-BB-Agent", "fuzz")
		resp, err := e.http.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var env struct {
			OK    bool `json:"ok"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("not an envelope: %q", b)
		}
		if resp.StatusCode >= 500 || (resp.StatusCode == 200) != env.OK || (!env.OK && env.Error == nil) {
			t.Fatalf("status %d ok=%v: %s", resp.StatusCode, env.OK, b)
		}
	})
}

// Any Last-Event-ID either resumes the stream or is a 400 envelope.
func FuzzLastEventID(f *testing.F) {
	for _, s := range []string{"0", "5", "-1", "x", "99999999999999999999", " 3", ""} {
		f.Add(s)
	}
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, id string) {
		if strings.ContainsAny(id, "\r\n\x00") {
			return // not a valid header value
		}
		r, _ := http.NewRequest("GET", e.http.URL+"/api/v1/events/stream?after="+urlQuery(id), nil)
		resp, err := e.http.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode == 200 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"):
		case resp.StatusCode == 400:
		default:
			t.Fatalf("after=%q: %d", id, resp.StatusCode)
		}
	})
}

func urlQuery(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}
