package pyjson

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"unicode/utf8"
)

// The expected strings were printed by CPython 3.11's json module.

func sample() Object {
	return Object{
		{"a", []any{}},
		{"b", Object{}},
		{"c", []any{1, Object{{"d", nil}, {"e", true}}}},
		{"s", "<>&\u2028\u2029\u00e9\U0001F600\x7f\x01\n\"\\"},
		{"f", []any{1.0, 1e16, 1.5e-7, 123456789.125, math.Copysign(0, -1), 0.0001, 1e-05}},
	}
}

func TestPrettyMatchesPython(t *testing.T) {
	want := "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null,\n      \"e\": true\n    }\n  ],\n" +
		"  \"s\": \"<>&\u2028\u2029é😀\x7f\\u0001\\n\\\"\\\\\",\n" +
		"  \"f\": [\n    1.0,\n    1e+16,\n    1.5e-07,\n    123456789.125,\n    -0.0,\n    0.0001,\n    1e-05\n  ]\n}"
	got := string(MustMarshal(sample(), Pretty))
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCompactMatchesPython(t *testing.T) {
	want := `{"a": [], "b": {}, "c": [1, {"d": null, "e": true}], "s": "<>&\u2028\u2029\u00e9\ud83d\ude00\u007f\u0001\n\"\\", "f": [1.0, 1e+16, 1.5e-07, 123456789.125, -0.0, 0.0001, 1e-05]}`
	got := string(MustMarshal(sample(), Compact))
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDumpStringsMatchesPython(t *testing.T) {
	got := DumpStrings([]string{"a", "b", "\u00e9", "\U0001F600", "\x7f"})
	want := `["a", "b", "\u00e9", "\ud83d\ude00", "\u007f"]`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	if DumpStrings([]string{}) != "[]" {
		t.Fatal("empty list")
	}
}

func TestReprMatchesPython(t *testing.T) {
	for in, want := range map[string]string{
		"it's":  `"it's"`,
		`a"b'c`: `'a"b\'c'`,
		"\x00\x1b\u200b\u00a0\u2028\U0001F600\ufeff\\": `'\x00\x1b\u200b\xa0\u2028😀\ufeff\\'`,
		"plain":     `'plain'`,
		"tab\t\r\n": `'tab\t\r\n'`,
	} {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
	}
	if got := ReprList([]string{"nope", "x"}); got != `['nope', 'x']` {
		t.Fatal(got)
	}
}

func TestUnsupportedType(t *testing.T) {
	if _, err := Marshal(struct{}{}, Pretty); err == nil {
		t.Fatal("want error")
	}
}

// FuzzEncoder: for any JSON document, both flavours of the encoder print
// valid JSON that decodes to the same value.
func FuzzEncoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x"], "b": null}`, `"\u2028<&>"`, `[1e300, -0.0, 5e-324]`, `{}`, `[]`, `"\ud83d\ude00"`, `[true, false, {"": {"": []}}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			return
		}
		for _, o := range []Options{Pretty, Compact} {
			out, err := Marshal(v, o)
			if err != nil {
				t.Fatalf("%q: %v", doc, err)
			}
			if !json.Valid(out) {
				t.Fatalf("%q: invalid output %q", doc, out)
			}
			var back any
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v, back) {
				t.Fatalf("%q: round trip %#v != %#v (%s)", doc, back, v, out)
			}
			if o.EnsureASCII {
				for _, c := range out {
					if c >= utf8.RuneSelf || c == 0x7f {
						t.Fatalf("%q: non-ASCII byte in %q", doc, out)
					}
				}
			}
		}
	})
}

func FuzzFloatRepr(f *testing.F) {
	for _, x := range []float64{0, 1, 0.1, 1e16, 1e15, 123456789012345678, 1e-4, 1e-5, 5e-324, math.MaxFloat64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		s := FloatRepr(x)
		var back float64
		if err := json.Unmarshal([]byte(s), &back); err != nil || back != x {
			t.Fatalf("%v -> %s -> %v (%v)", x, s, back, err)
		}
	})
}
