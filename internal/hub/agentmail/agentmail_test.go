package agentmail

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

var tc1 = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*$`)

func FuzzMailIdentity(f *testing.F) {
	for _, s := range []string{"a:b", "second-brain:main", "A:b", "a:b:c", ":b", "a:", "-a:b", "a:-b", "a-:b-", "*", "a:b\n", "é:a", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := tc1.MatchString(s)
		if got := hub.IsMailIdentity(s); got != want {
			t.Fatalf("hub.IsMailIdentity(%q) = %v, want %v", s, got, want)
		}
		if err := hub.ValidateMailIdentity(s); (err == nil) != want {
			t.Fatalf("hub.ValidateMailIdentity(%q) = %v", s, err)
		}
	})
}

var tc5 = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func FuzzMailUUID(f *testing.F) {
	for _, s := range []string{"9f1c2e34-5678-4abc-9def-0123456789ab", "9F1C2E34-5678-4ABC-9DEF-0123456789AB", "not-a-uuid", "9f1c2e3456784abc9def0123456789ab", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsMailUUID(s), tc5.MatchString(s); got != want {
			t.Fatalf("IsMailUUID(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzMailRefs: accepted input is a JSON array of strings, and the stored
// form parses back to the same list; rejected input is anything else.
func FuzzMailRefs(f *testing.F) {
	for _, s := range []string{`["a","b"]`, `[]`, ` [ "é" , "😀" ] `, `["\u2028", "\ud83d\ude00", "a\"b\\c"]`, `nope`, `null`, `[1]`, `["a",]`, `["a"] x`, `{"a":"b"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseMailRefs(s)
		var list []string
		var generic any
		isList := json.Unmarshal([]byte(s), &generic) == nil && json.Unmarshal([]byte(s), &list) == nil && generic != nil
		if _, ok := generic.([]any); !ok {
			isList = false
		}
		if err != nil {
			if isList && strings.ToValidUTF8(s, "") == s {
				t.Fatalf("%q rejected: %v", s, err)
			}
			return
		}
		if !isList {
			t.Fatalf("%q accepted as %q", s, out)
		}
		var back []string
		if err := json.Unmarshal([]byte(out), &back); err != nil {
			t.Fatalf("%q -> %q: %v", s, out, err)
		}
		if !reflect.DeepEqual(back, list) && !(len(back) == 0 && len(list) == 0) {
			t.Fatalf("%q -> %q -> %q", s, out, back)
		}
		for i := 0; i < len(out); i++ {
			if out[i] >= 0x7f {
				t.Fatalf("non-ASCII in %q", out)
			}
		}
		again, err := ParseMailRefs(out)
		if err != nil || again != out {
			t.Fatalf("not canonical: %q -> %q (%v)", out, again, err)
		}
	})
}

func TestParseMailRefsCanonical(t *testing.T) {
	for in, want := range map[string]string{
		`["a","b"]`:         `["a", "b"]`,
		"\t[ ]\n":           `[]`,
		`["é","😀","\n"]`:    `["\u00e9", "\ud83d\ude00", "\n"]`,
		`["\u00e9"]`:        `["\u00e9"]`,
		`["<>&", "\u2028"]`: `["<>&", "\u2028"]`,
	} {
		got, err := ParseMailRefs(in)
		if err != nil || got != want {
			t.Errorf("ParseMailRefs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestMailExpired(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ttl := 24
	one := 1
	for _, c := range []struct {
		created string
		ttl     *int
		want    bool
	}{
		{hub.FormatTime(now.Add(-24 * time.Hour)), &ttl, false},
		{hub.FormatTime(now.Add(-24*time.Hour - time.Microsecond)), &ttl, true},
		{"2030-01-01T05:04:04+02:00", &ttl, true},
		{"2030-01-01T05:04:06+02:00", &ttl, false},
		{"2030-01-01T03:04:04", &ttl, true},
		{"2030-01-01 03:04:04.5+00:00", &ttl, true},
		{"2030-01-02T02:04:04+00:00", &one, true},
		{"2020-01-01T00:00:00+00:00", nil, false},
		{"garbage", &ttl, false},
	} {
		if got := MailExpired(c.created, c.ttl, now); got != c.want {
			t.Errorf("MailExpired(%q) = %v", c.created, got)
		}
	}
}

func TestPyISOFormat(t *testing.T) {
	tm := time.Date(2030, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if got := PyISOFormat(tm, time.UTC); got != "2030-01-02T03:04:05.123456+00:00" {
		t.Fatal(got)
	}
	if got := PyISOFormat(tm.Truncate(time.Second), time.FixedZone("", -(3*3600+30*60))); got != "2030-01-01T23:34:05-03:30" {
		t.Fatal(got)
	}
	if got := PyISOFormat(tm, time.FixedZone("", 3600+17)); got != "2030-01-02T04:04:22.123456+01:00:17" {
		t.Fatal(got)
	}
	stored := hub.FormatTime(tm.Truncate(time.Microsecond))
	if got := RenderMailTime(stored, time.FixedZone("", 5*3600+1800)); got != "2030-01-02T08:34:05.123456+05:30" {
		t.Fatal(got)
	}
	for _, foreign := range []string{"2030-01-02T08:34:05.123+05:30", "not a time", "2030-01-02T03:04:05+00:00"} {
		if got := RenderMailTime(foreign, time.UTC); got != foreign {
			t.Fatalf("foreign %q rendered %q", foreign, got)
		}
	}
}
