package hub

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    string
		numeric bool
		bad     bool
	}{
		{in: "gh:issue:42", want: "gh:issue:42", numeric: true},
		{in: " gh : issue : 0042 ", want: "gh:issue:42", numeric: true},
		{in: "tt:task:auth-13", want: "tt:task:auth-13"},
		{in: "gh:issue:-5", want: "gh:issue:-5"},
		{in: "gh:issue:1.5", want: "gh:issue:1.5"},
		{in: "gh:issue:99999999999999999999999", want: "gh:issue:99999999999999999999999"},
		{in: "gh:issue", bad: true},
		{in: "a:b:c:d", bad: true},
		{in: "::", bad: true},
		{in: "gh: :1", bad: true},
		{in: "", bad: true},
		{in: "gh:issue:\x01", bad: true},
		{in: "gh:issue:" + strings.Repeat("x", MaxRefPartLen+1), bad: true},
	} {
		r, err := ParseRef(c.in)
		if c.bad {
			if !IsCode(err, CodeInvalidRefFormat) {
				t.Errorf("ParseRef(%q) = %v, %v; want INVALID_REF_FORMAT", c.in, r, err)
			}
			continue
		}
		if err != nil || r.String() != c.want || r.Ref.Numeric != c.numeric {
			t.Errorf("ParseRef(%q) = %q numeric=%v, %v; want %q numeric=%v", c.in, r.String(), r.Ref.Numeric, err, c.want, c.numeric)
		}
	}
}

func TestRefIDJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		want RefID
		bad  bool
	}{
		{in: `13`, want: RefID{Text: "13", Numeric: true}},
		{in: `"13"`, want: RefID{Text: "13", Numeric: true}}, // 13 ≡ "13"
		{in: `"auth"`, want: RefID{Text: "auth"}},
		{in: `-1`, bad: true},
		{in: `1.5`, bad: true},
		{in: `true`, bad: true},
	} {
		var r RefID
		err := json.Unmarshal([]byte(c.in), &r)
		if c.bad != (err != nil) || (!c.bad && r != c.want) {
			t.Errorf("unmarshal %s = %+v, %v", c.in, r, err)
		}
	}
	b, _ := json.Marshal(Ref{Where: "gh", What: "issue", Ref: NewRefID("7")})
	if string(b) != `{"where":"gh","what":"issue","ref":7}` {
		t.Errorf("marshal: %s", b)
	}
}

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{in: "10s", want: 10 * time.Second},
		{in: "10m", want: 10 * time.Minute},
		{in: "1h", want: time.Hour},
		{in: "2d", want: 48 * time.Hour},
		{in: "1w", want: 7 * 24 * time.Hour},
		{in: " 5m ", want: 5 * time.Minute},
		{in: "0s", want: 0},
		{in: "", bad: true},
		{in: "10", bad: true},
		{in: "m", bad: true},
		{in: "xm", bad: true},
		{in: "-5m", bad: true},
		{in: "+5m", bad: true},
		{in: "1.5h", bad: true},
		{in: "10M", bad: true},
		{in: "1y", bad: true},
		{in: "99999999999999999999s", bad: true},
		{in: "5300w", bad: true}, // beyond 100 years
	} {
		d, err := ParseDuration(c.in)
		if c.bad {
			if !IsCode(err, CodeInvalidInput) {
				t.Errorf("ParseDuration(%q) = %v, %v; want INVALID_INPUT", c.in, d, err)
			}
			continue
		}
		if err != nil || d != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, d, err, c.want)
		}
	}
}

func TestValidateTags(t *testing.T) {
	got, err := ValidateTags([]string{"b", "a", "b", "ünï"})
	if err != nil || !slices.Equal(got, []string{"b", "a", "ünï"}) {
		t.Errorf("dedupe: %v, %v", got, err)
	}
	ten := make([]string, MaxTagsPerMessage)
	for i := range ten {
		ten[i] = strconv.Itoa(i)
	}
	if _, err := ValidateTags(ten); err != nil {
		t.Errorf("10 tags: %v", err)
	}
	for _, bad := range [][]string{
		append(slices.Clone(ten), "x"),
		{""},
		{strings.Repeat("x", MaxTagLen+1)},
		{"a b"},
		{"tab\t"},
		{"nl\n"},
		{"\xff"},
	} {
		if _, err := ValidateTags(bad); !IsCode(err, CodeInvalidInput) {
			t.Errorf("ValidateTags(%q) = %v, want INVALID_INPUT", bad, err)
		}
	}
	if _, err := ValidateTags([]string{strings.Repeat("x", MaxTagLen)}); err != nil {
		t.Errorf("32-byte tag: %v", err)
	}
}

func TestParseLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		bad  bool
	}{
		{in: "1", want: 1}, {in: "20", want: 20}, {in: "100", want: 100}, {in: "101", want: 100},
		{in: " 7 ", want: 7}, {in: "99999999999999999999", want: 100}, {in: "-99999999999999999999", bad: true},
		{in: "", bad: true}, {in: "0", bad: true}, {in: "-1", bad: true}, {in: "abc", bad: true}, {in: "1e3", bad: true},
	} {
		n, err := ParseLimit(c.in, 100)
		if c.bad != (err != nil) || (!c.bad && n != c.want) {
			t.Errorf("ParseLimit(%q) = %d, %v", c.in, n, err)
		}
	}
	if ClampLimit(0, 20, 100) != 20 || ClampLimit(-3, 20, 100) != 20 || ClampLimit(500, 20, 100) != 100 || ClampLimit(5, 20, 100) != 5 {
		t.Error("ClampLimit")
	}
}

func TestPriorities(t *testing.T) {
	if got := PriorityHigh.AtLeast(); !slices.Equal(got, []Priority{PriorityHigh, PriorityCritical}) {
		t.Errorf("high.AtLeast = %v (a correct minimum: high and critical only)", got)
	}
	if got := PriorityLow.AtLeast(); len(got) != 4 {
		t.Errorf("low.AtLeast = %v", got)
	}
	if Priority("urgent").AtLeast() != nil {
		t.Error("unknown priority has levels")
	}
	if p, err := ParsePriority(""); err != nil || p != PriorityNormal {
		t.Errorf("default priority %v %v", p, err)
	}
	if _, err := ParsePriority("HIGH"); !IsCode(err, CodeInvalidInput) {
		t.Error("priorities are case-sensitive")
	}
}

func TestAgentIDs(t *testing.T) {
	for _, ok := range []string{"a", "claude-01", "proj:alice", strings.Repeat("x", 64), "ünïcode"} {
		if err := ValidateBoardAgentID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", " ", "a b", "a\tb", "a\x00", strings.Repeat("x", 65), "\xff"} {
		if err := ValidateBoardAgentID(bad); !IsCode(err, CodeInvalidIdentity) {
			t.Errorf("%q: %v, want INVALID_IDENTITY", bad, err)
		}
	}
	if err := ValidateStoredAgentID(strings.Repeat("x", 128)); err != nil {
		t.Errorf("128 bytes is a valid stored id: %v", err)
	}
	if err := ValidateStoredAgentID(strings.Repeat("x", 129)); err == nil {
		t.Error("129 bytes accepted")
	}
}

func TestCleanArtifactPath(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../etc", filepath.Join(root, "docs", "rel-escape")); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{
		{"loop-b", "loop-a"}, {"loop-a", "loop-b"},
		{"dangling-in", "docs/not-yet"},
		{"abs-in", filepath.Join(root, "docs")},
		{"abs-out", "/etc"},
		{"chain", "escape"},
	} {
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		in, want string
		code     Code
	}{
		{in: "dangling-in/x", want: "dangling-in/x"},
		{in: "abs-in/x", want: "abs-in/x"},
		{in: "abs-out/passwd", code: CodePathTraversal},
		{in: "chain/x", code: CodePathTraversal},
		{in: "loop-a/x", code: CodeInvalidInput},
		{in: "a.txt", want: "a.txt"},
		{in: "./docs//x.md", want: "docs/x.md"},
		{in: "docs/new/dir/file", want: "docs/new/dir/file"},
		{in: "inner/x.md", want: "inner/x.md"},
		{in: "docs/", want: "docs"},
		{in: "..a/b", want: "..a/b"},
		{in: "", code: CodeInvalidInput},
		{in: ".", code: CodeInvalidInput},
		{in: "./", code: CodeInvalidInput},
		{in: "a\nb", code: CodeInvalidInput},
		{in: strings.Repeat("a", MaxArtifactPathLen+1), code: CodeInvalidInput},
		{in: "/etc/passwd", code: CodePathTraversal},
		{in: `\\server\share`, code: CodePathTraversal},
		{in: "..", code: CodePathTraversal},
		{in: "../x", code: CodePathTraversal},
		{in: "docs/../../x", code: CodePathTraversal},
		{in: `docs\..\..\x`, code: CodePathTraversal},
		{in: "docs/..", code: CodePathTraversal},
		{in: "escape", code: CodePathTraversal},
		{in: "escape/x", code: CodePathTraversal},
		{in: "escape/new/deeper/x", code: CodePathTraversal},
		{in: "docs/rel-escape/passwd", code: CodePathTraversal},
	} {
		got, err := CleanArtifactPath(root, c.in)
		if c.code != "" {
			if !IsCode(err, c.code) {
				t.Errorf("CleanArtifactPath(%q) = %q, %v; want %s", c.in, got, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CleanArtifactPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestLiveness(t *testing.T) {
	now := time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	m := time.Minute
	for _, c := range []struct {
		ago   time.Duration
		stale int
		want  Live
	}{
		{0, 0, Live{PresActive, LiveActive, LiveActive, 0}},
		{-m, 15, Live{PresActive, LiveActive, LiveActive, 0}},
		{5*m + 59*time.Second, 15, Live{PresActive, LiveActive, LiveActive, 5}},
		{6 * m, 15, Live{PresQuiet, LiveStale, LiveActive, 6}},
		{14*m + 59*time.Second, 15, Live{PresQuiet, LiveStale, LiveActive, 14}},
		{15 * m, 15, Live{PresStale, LiveStale, LiveStale, 15}},
		{29 * m, 0, Live{PresStale, LiveStale, LiveStale, 29}},
		// The agent word counts seconds, the board whole minutes.
		{30 * m, 15, Live{PresStale, LiveStale, LiveEvicted, 30}},
		{30*m + 59*time.Second, 15, Live{PresStale, LiveStale, LiveEvicted, 30}},
		{31 * m, 15, Live{PresOffline, LiveOffline, LiveEvicted, 31}},
		{48 * time.Hour, 15, Live{PresOffline, LiveOffline, LiveEvicted, 2880}},
		// BB_AGENT_STALE_MINUTES moves every threshold but the 5 active minutes.
		{20 * m, 60, Live{PresQuiet, LiveStale, LiveActive, 20}},
		{61 * m, 60, Live{PresStale, LiveStale, LiveStale, 61}},
		{121 * m, 60, Live{PresOffline, LiveOffline, LiveEvicted, 121}},
		{3 * m, 2, Live{PresStale, LiveStale, LiveStale, 3}},
	} {
		if got := LiveOf(now.Add(-c.ago), now, c.stale); got != c.want {
			t.Errorf("%v ago, stale %d: %+v, want %+v", c.ago, c.stale, got, c.want)
		}
	}
	if MinutesSince(now.Add(-90*time.Second), now) != 1 || MinutesSince(now.Add(time.Hour), now) != 0 {
		t.Error("MinutesSince")
	}
}

func TestClockAndTimes(t *testing.T) {
	c, err := ClockFromEnv("2026-11-21T23:30:00+01:00")
	if err != nil || !c.Now().Equal(time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)) || c.Now().Location() != time.UTC {
		t.Errorf("BB_NOW: %v %v", c, err)
	}
	if _, err := ClockFromEnv("yesterday"); !IsCode(err, CodeInvalidInput) {
		t.Errorf("bad BB_NOW: %v", err)
	}
	if c, _ := ClockFromEnv(""); c != (SystemClock{}) {
		t.Errorf("empty BB_NOW: %T", c)
	}
	tm := time.Date(2026, 11, 21, 23, 0, 1, 123456789, time.FixedZone("x", 3600))
	s := FormatTime(tm)
	if s != "2026-11-21T22:00:01.123456+00:00" {
		t.Errorf("FormatTime = %s", s)
	}
	back, err := ParseTime(s)
	if err != nil || !back.Equal(tm.Truncate(time.Microsecond)) {
		t.Errorf("ParseTime(%s) = %v, %v", s, back, err)
	}
	for _, in := range []string{"2026-11-21T22:00:01Z", "2026-11-21 22:00:01", "2026-11-21T22:00:01.5", "2026-11-21 22:00:01.000001+00:00"} {
		if _, err := ParseTime(in); err != nil {
			t.Errorf("ParseTime(%q): %v", in, err)
		}
	}
	// Text order is time order.
	a, b := FormatTime(tm), FormatTime(tm.Add(time.Microsecond))
	if !(a < b) {
		t.Errorf("%s !< %s", a, b)
	}
}

// FuzzParseRef: a parsed ref has three trimmed, non-empty parts without ':'
// or control characters; rendering it and parsing again gives the same ref;
// it is numeric exactly when its text is a canonical decimal; and its JSON
// form decodes to the same RefID.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"gh:issue:42", "tt:task:auth-13", " a : b : 007 ", "a:b", "a:b:c:d", "::", "gh:issue:-5", "x:y:18446744073709551616", "é:ü:ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			if !IsCode(err, CodeInvalidRefFormat) {
				t.Fatalf("ParseRef(%q): error code %s", s, CodeOf(err))
			}
			return
		}
		for _, p := range []string{r.Where, r.What, r.Ref.Text} {
			if p == "" || p != strings.TrimSpace(p) || strings.Contains(p, ":") || strings.IndexFunc(p, unicode.IsControl) >= 0 || !utf8.ValidString(p) || len(p) > MaxRefPartLen {
				t.Fatalf("ParseRef(%q) part %q", s, p)
			}
		}
		again, err := ParseRef(r.String())
		if err != nil || again != r {
			t.Fatalf("re-parse of %q: %+v, %v; want %+v", r.String(), again, err, r)
		}
		if r.Ref.Numeric {
			n, err := strconv.ParseUint(r.Ref.Text, 10, 64)
			if err != nil || strconv.FormatUint(n, 10) != r.Ref.Text {
				t.Fatalf("numeric ref %q is not canonical", r.Ref.Text)
			}
		} else if _, err := strconv.ParseUint(r.Ref.Text, 10, 64); err == nil {
			t.Fatalf("text ref %q parses as a number", r.Ref.Text)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Ref
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Fatalf("JSON round trip of %+v: %s -> %+v, %v", r, b, back, err)
		}
		if _, err := ValidateRefs([]Ref{r}); err != nil {
			t.Fatalf("ValidateRefs rejects parsed %+v: %v", r, err)
		}
	})
}

// FuzzParseDuration: a parsed duration is non-negative, a whole multiple of
// its unit, and equals number × unit of the trimmed input.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"10s", "10m", "1h", "2d", "1w", "0s", " 3d ", "10", "m", "-1m", "1.5h", "9223372036854775807s", "5217w"} {
		f.Add(s)
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if !IsCode(err, CodeInvalidInput) {
				t.Fatalf("ParseDuration(%q): code %s", s, CodeOf(err))
			}
			return
		}
		tr := strings.TrimSpace(s)
		unit, ok := units[tr[len(tr)-1]]
		if !ok {
			t.Fatalf("ParseDuration(%q) accepted unit %q", s, tr[len(tr)-1])
		}
		if d < 0 || d%unit != 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative or not a multiple of %v", s, d, unit)
		}
		n, err := strconv.ParseInt(tr[:len(tr)-1], 10, 64)
		if err != nil || time.Duration(n)*unit != d {
			t.Fatalf("ParseDuration(%q) = %v, want %d × %v", s, d, n, unit)
		}
		if d > 101*366*24*time.Hour {
			t.Fatalf("ParseDuration(%q) = %v beyond the cap", s, d)
		}
	})
}

// FuzzValidateTags: accepted tags obey every limit, keep first-seen order
// without duplicates, come from the input, and validating them again is a
// no-op. Tags are given as one string split on ','.
func FuzzValidateTags(f *testing.F) {
	for _, s := range []string{"a,b,a", "ci", "", "a b", "x,,y", "1,2,3,4,5,6,7,8,9,10,11", "ünï,🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := strings.Split(s, ",")
		out, err := ValidateTags(in)
		if err != nil {
			if !IsCode(err, CodeInvalidInput) {
				t.Fatalf("ValidateTags(%q): code %s", in, CodeOf(err))
			}
			return
		}
		if len(in) > MaxTagsPerMessage {
			t.Fatalf("accepted %d tags", len(in))
		}
		seen := map[string]bool{}
		for _, tag := range out {
			if tag == "" || len(tag) > MaxTagLen || !utf8.ValidString(tag) || strings.IndexFunc(tag, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
				t.Fatalf("accepted bad tag %q", tag)
			}
			if seen[tag] || !slices.Contains(in, tag) {
				t.Fatalf("duplicate or foreign tag %q in %q", tag, out)
			}
			seen[tag] = true
		}
		for _, tag := range in {
			if !seen[tag] {
				t.Fatalf("tag %q dropped", tag)
			}
		}
		again, err := ValidateTags(out)
		if err != nil || !slices.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q, %v", out, again, err)
		}
	})
}

// FuzzParseLimit: an accepted limit is within 1..max and equals the input
// number clamped to max; a rejected one is INVALID_INPUT naming the field.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"20", "0", "-1", "100", "101", "abc", "", " 5", "1e2", "+7"} {
		f.Add(s, 100)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 10000 {
			return
		}
		n, err := ParseLimit(s, max)
		if err != nil {
			var he *Error
			if !IsCode(err, CodeInvalidInput) || !errorsAs(err, &he) || he.Field != "limit" {
				t.Fatalf("ParseLimit(%q): %v", s, err)
			}
			if v, convErr := strconv.Atoi(strings.TrimSpace(s)); convErr == nil && v >= 1 {
				t.Fatalf("ParseLimit(%q) rejected a positive integer", s)
			}
			return
		}
		v, convErr := strconv.Atoi(strings.TrimSpace(s))
		if convErr != nil || n < 1 || n > max || n != min(v, max) {
			t.Fatalf("ParseLimit(%q, %d) = %d", s, max, n)
		}
	})
}

func errorsAs(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// FuzzGivenInputs: a list given for a flag is refused exactly when it
// names nothing, and what it keeps is trimmed and non-empty; a given
// priority or message number is refused or a valid one.
func FuzzGivenInputs(f *testing.F) {
	for _, s := range []string{",,", "", " ", "a", "a,,b", " INCURSION , HANDOFF ", "high", "\x00"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		l, err := NameList("type", s)
		if (err != nil) != (strings.Trim(s, ", \t\n\r\v\f") == "" && strings.TrimSpace(strings.ReplaceAll(s, ",", "")) == "") {
			t.Fatalf("NameList(%q) = %q, %v", s, l, err)
		}
		for _, x := range l {
			if x == "" || x != strings.TrimSpace(x) || strings.Contains(x, ",") {
				t.Fatalf("NameList(%q) kept %q", s, x)
			}
		}
		if err := GivenPriority(s); err == nil && Priority(s).Level() < 0 {
			t.Fatalf("GivenPriority(%q) accepted", s)
		}
		if err := GivenMessageNumber("reply-to", n); (err == nil) != (n >= 1) {
			t.Fatalf("GivenMessageNumber(%d) = %v", n, err)
		}
	})
}
