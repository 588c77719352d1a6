package search

import (
	"github.com/blackboard-hub/bb/internal/hub"

	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseSearchQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Cookie", "cookie"},
		{`"session cookie" expires`, "session cookie|expires"},
		{`"unbalanced quote`, "unbalanced|quote"},
		{`a OR b`, "a|or|b"},
		{`internal/auth/cookie.go`, "internal|auth|cookie|go"},
		{`NEAR(x y) col:z x`, "near|x|y|col|z"},
		{`Été "Ça va"`, "été|ça va"},
	} {
		terms, err := ParseQuery(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		var got []string
		for _, tm := range terms {
			got = append(got, strings.Join(tm.Tokens, " "))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%q: %q; want %q", c.in, strings.Join(got, "|"), c.want)
		}
	}
	many := ""
	for i := 0; i < hub.MaxSearchTerms+1; i++ {
		many += string(rune('a'+i)) + "x "
	}
	for _, in := range []string{"", " ", `"" *`, "\xff", many} {
		if _, err := ParseQuery(in); hub.CodeOf(err) != hub.CodeInvalidInput {
			t.Errorf("%q: %v; want INVALID_INPUT", in, err)
		}
	}
}

func TestSnippetMarksMatches(t *testing.T) {
	terms, _ := ParseQuery("rotat")
	body := strings.Repeat("filler words here ", 20) + "we rotate the key; Rotation daily. " + strings.Repeat("tail ", 60)
	s, marks := snippet(body, terms)
	if !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len(marks) != 2 {
		t.Fatalf("snippet %q marks %v", s, marks)
	}
	if s[marks[0][0]:marks[0][1]] != "rotate" || s[marks[1][0]:marks[1][1]] != "Rotation" {
		t.Errorf("marks %v in %q", marks, s)
	}
}

// FuzzParseSearchQuery: every term is non-empty lower-case word runes (no
// character any index reads as syntax), or the query is refused as
// INVALID_INPUT; snippets and marks stay inside the text.
func FuzzParseSearchQuery(f *testing.F) {
	for _, s := range []string{"a", `"a b`, `a" OR "b`, `x*:^()`, "\x00", "İstanbul", `''"`} {
		f.Add(s, "body with İstanbul and a b words")
	}
	f.Fuzz(func(t *testing.T, q, body string) {
		terms, err := ParseQuery(q)
		if err != nil {
			if hub.CodeOf(err) != hub.CodeInvalidInput {
				t.Fatalf("%q: %v", q, err)
			}
			return
		}
		for _, tm := range terms {
			if len(tm.Tokens) == 0 {
				t.Fatalf("%q: empty term", q)
			}
			for _, tok := range tm.Tokens {
				if tok == "" || !utf8.ValidString(tok) {
					t.Fatalf("%q: bad token %q", q, tok)
				}
				for _, r := range tok {
					if !hub.IsWordRune(r) {
						t.Fatalf("%q: token %q holds %q", q, tok, r)
					}
				}
			}
		}
		s, marks := snippet(body, terms)
		for _, m := range marks {
			if m[0] < 0 || m[1] > len(s) || m[0] >= m[1] {
				t.Fatalf("mark %v outside %q", m, s)
			}
		}
	})
}
