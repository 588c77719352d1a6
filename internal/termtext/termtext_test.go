package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineEscapesEveryControlCharacter(t *testing.T) {
	for r := rune(0); r < 0xa0; r++ {
		if r >= 0x20 && r < 0x7f {
			continue
		}
		got := Line("a" + string(r) + "b")
		if strings.ContainsRune(got, r) || !strings.HasPrefix(got, `a\`) || !strings.HasSuffix(got, "b") {
			t.Errorf("Line(%U) = %q", r, got)
		}
	}
}

func TestLineExamples(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                 "plain text",
		"caf\u00e9 \u65e5\u672c":     "caf\u00e9 \u65e5\u672c",
		"\x1b]0;pwned\a\x1b[2J fake": `\x1b]0;pwned\a\x1b[2J fake`,
		"ok\rforged":                 `ok\rforged`,
		"two\nlines\tand tab":        `two\nlines\tand tab`,
		"\u009b31m":                  `\u009b31m`,
		"abc\u202eexe.txt":           `abc\u202eexe.txt`,
		"bad\xffbyte":                `bad\xffbyte`,
		"del\x7f":                    `del\x7f`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextKeepsNewlineAndTab(t *testing.T) {
	if got := Text("a\n\tb\r\x1b[1A"); got != "a\n\tb\\r\\x1b[1A" {
		t.Errorf("Text = %q", got)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := Writer{W: &buf}
	n, err := w.Write([]byte("x\x1b[2Jy\n"))
	if err != nil || n != 7 || buf.String() != "x\\x1b[2Jy\n" {
		t.Fatalf("Write = %d %v %q", n, err, buf.String())
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;t\a", "\r\n\t", "\u202e", "\xff\xfe", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
			}
			for _, r := range out {
				if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || bidi(r) {
					t.Fatalf("control %U left in %q (from %q)", r, out, s)
				}
			}
		}
		if strings.ContainsAny(Line(s), "\n\t") {
			t.Fatalf("Line kept a newline or tab: %q", s)
		}
		if Clean(s) != (Line(s) == s) {
			t.Fatalf("Clean(%q) disagrees with Line", s)
		}
	})
}

func TestJSONEscapesWhatTheEncoderLeavesRaw(t *testing.T) {
	in := map[string]string{"body": "a\x1b[2J\x7f\u0085\u009b\u202eevil\u2066 ok é 中\n"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	safe := JSON(raw)
	for _, r := range string(safe) {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || bidi(r) {
			t.Fatalf("%U left raw in %s", r, safe)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil {
		t.Fatal(err)
	}
	if back["body"] != in["body"] {
		t.Fatalf("decoded %q, want %q", back["body"], in["body"])
	}
	if !strings.Contains(string(safe), `é 中`) {
		t.Fatalf("printable text was escaped: %s", safe)
	}
	if clean := []byte(`{"a":"b"}`); &JSON(clean)[0] != &clean[0] {
		t.Fatal("a clean document is copied")
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"}, {"hello!", 5, "hell…"}, {"héllo wörld", 4, "hél…"}, {"abc", 0, "abc"}, {"", 3, ""},
	} {
		if got := Clip(c.in, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestClipBytesNeverCutsACharacter(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"}, {"hello!", 5, "hello…"}, {"aé", 2, "a…"}, {"a€b", 3, "a…"}, {"a€b", 4, "a€…"},
	} {
		if got := ClipBytes(c.in, c.n); got != c.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "one": "one", "\n \n  two  \nthree": "two", "  \n\t\n": "", "a\nb": "a"} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
