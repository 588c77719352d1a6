package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// docBody is the example webhook body of docs/terminal.md: the first
// ```json block after "POSTs one JSON".
func docBody(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "terminal.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i := strings.Index(s, "POSTs one JSON")
	if i < 0 {
		t.Fatal(`docs/terminal.md: no "POSTs one JSON"`)
	}
	s = s[i:]
	start := strings.Index(s, "```json\n")
	end := strings.Index(s[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("docs/terminal.md: no json block after the webhook sentence")
	}
	return []byte(s[start+8 : start+8+end])
}

// keys lists an object's keys in their order.
func keys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", b)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The webhook body docs/terminal.md shows is what a receiver gets (issue
// 39): a loopback receiver's body has the example's fields in its order,
// and the example's BLOCKED, made on a board, gives its values.
func TestWebhookBodyAsDocumented(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	want := docBody(t)
	var wantFields map[string]any
	if err := json.Unmarshal(want, &wantFields); err != nil {
		t.Fatalf("the doc's example is not JSON: %v\n%s", err, want)
	}
	bodies := make(chan []byte, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != "bb-notify" {
			t.Errorf("headers: %v", r.Header)
		}
		bodies <- b
	}))
	defer srv.Close()

	svc, _ := board(t)
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-2", Category: hub.CategoryBlocked,
		Subject: "need the schema", Body: "which one?", RequestedAction: "Send the schema of the events table", Urgency: "high"}); err != nil {
		t.Fatal(err)
	}
	n := New(svc, Options{Webhooks: []string{srv.URL}, Dashboard: "http://127.0.0.1:7777/"})
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	var got []byte
	select {
	case got = <-bodies:
	case <-time.After(60 * time.Second):
		t.Fatal("no delivery")
	}
	cancel()
	<-done

	if g, w := keys(t, got), keys(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("fields\n got %v\nwant %v (docs/terminal.md)", g, w)
	}
	var gotFields map[string]any
	if err := json.Unmarshal(got, &gotFields); err != nil {
		t.Fatal(err)
	}
	// The values the example's item decides (id, files, times, board and
	// the link are the board's own).
	for _, k := range []string{"type", "escalated", "agent", "to", "bead_id", "subject", "asked", "urgency", "task", "choices", "reassign", "link"} {
		if !reflect.DeepEqual(gotFields[k], wantFields[k]) {
			t.Errorf("%s = %#v, the doc says %#v", k, gotFields[k], wantFields[k])
		}
	}
	if id, _ := gotFields["id"].(string); !strings.HasPrefix(id, "blocked:") {
		t.Errorf("id %q", id)
	}
	if txt, _ := gotFields["text"].(string); !strings.HasPrefix(txt, "carol is blocked on dana on bb-2: need the schema. Asks: Send the schema of the events table (urgency high)") {
		t.Errorf("text %q; the doc says %q", txt, wantFields["text"])
	}
}
