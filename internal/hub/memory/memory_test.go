package memory

import (
	"github.com/blackboard-hub/bb/internal/hub"

	"strings"
	"testing"
	"time"
)

func TestParseExpiresIn(t *testing.T) {
	for in, want := range map[string]time.Duration{"90m": 90 * time.Minute, "1h30m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, " 10s ": 10 * time.Second} {
		got, err := ParseExpiresIn(in)
		if err != nil || got != want {
			t.Errorf("%q = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1x", "d", "-1h", "0s", "1.5d", "-2d", "99999999999d", "1e3h5"} {
		if _, err := ParseExpiresIn(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	_, err := ParseExpiresIn("1x")
	if err.Error() != `invalid expires-in duration: invalid duration format: unsupported duration: "1x"` {
		t.Errorf("message: %v", err)
	}
}

func FuzzParseExpiresIn(f *testing.F) {
	for _, s := range []string{"90m", "7d", "2w", "1x", "", "-1h", "1h30m", "0d", "9223372036854775807w", "1.5h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseExpiresIn(s)
		if err != nil {
			if !hub.IsCode(err, hub.CodeInvalidInput) || !strings.HasPrefix(err.Error(), "invalid expires-in duration: ") {
				t.Fatalf("%q: bad error %v", s, err)
			}
			return
		}
		if d <= 0 || d > 100*365*24*time.Hour {
			t.Fatalf("%q = %v out of range", s, d)
		}
	})
}

func TestInferValueType(t *testing.T) {
	for in, want := range map[string]string{"true": "boolean", "false": "boolean", "3": "number", "-2.5e3": "number",
		`{"a":1}`: "json", "[1]": "array", "hello": "string", "": "string", "{bad": "string", "[x": "string"} {
		if got := InferValueType(in); got != want {
			t.Errorf("%q = %s, want %s", in, got, want)
		}
	}
}
