package kit

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestDocument(t *testing.T) {
	for _, c := range []struct {
		name     string
		given    bool
		value    string
		stdin    string
		terminal bool
		want     string
	}{
		{"flag wins over stdin", true, `{"a":1}`, `{"b":2}`, false, `{"a":1}`},
		{"stdin when piped", false, "", `{"b":2}`, false, `{"b":2}`},
		{"a terminal is never read", false, "", `{"b":2}`, true, ""},
		{"at most limit+1 bytes", false, "", strings.Repeat("x", 20), false, strings.Repeat("x", 11)},
	} {
		got, err := Document("json", c.given, c.value, strings.NewReader(c.stdin), c.terminal, 10)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	_, err := Document("json", false, "", iotest.ErrReader(errors.New("boom")), false, 10)
	if !hub.IsCode(err, hub.CodeIOReadFailed) || strings.Contains(hub.MessageOf(err), "boom") {
		t.Fatalf("a failing stdin: %v", err)
	}
}
