package shellquote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":              "''",
		"bb":            "bb",
		"/usr/bin/bb":   "/usr/bin/bb",
		"a@b:c,d=e%f+g": "a@b:c,d=e%f+g",
		"my project":    "'my project'",
		"it's":          `'it'\''s'`,
		"$HOME":         "'$HOME'",
		"a\nb":          "'a\nb'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzQuote: a POSIX shell reads the quoted word back as the same string.
func FuzzQuote(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh on PATH")
	}
	for _, s := range []string{"", "x y", "it's", `"\$`, "a'b'c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				return // a NUL cannot stand in an argument
			}
		}
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(s)).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(out) != s {
			t.Fatalf("Quote(%q) read back as %q", s, out)
		}
	})
}
