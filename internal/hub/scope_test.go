package hub

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Seed 001 §5.3 required examples.
func TestOverlapRequiredExamples(t *testing.T) {
	root := "/proj"
	cases := []struct {
		a, b string
		want Overlap
	}{
		{"src/*", "src/lib/parser.ts", OverlapPartial},
		{"src/lib", "src/lib/parser.ts", OverlapPartial},
		{"src/lib/parser.ts", "src/lib/parser.ts", OverlapExact},
		{"src/lib", "src/components", OverlapDisjoint},
	}
	for _, c := range cases {
		a, err := CanonicalScope(root, root, c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := CanonicalScope(root, root, c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := ClassifyOverlap(a.Path, b.Path); got != c.want {
			t.Errorf("%s vs %s = %s, want %s", c.a, c.b, got, c.want)
		}
		if got := ClassifyOverlap(b.Path, a.Path); got != c.want {
			t.Errorf("%s vs %s = %s, want %s (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

func TestOverlapEdges(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want Overlap
	}{
		{"/p/src", "/p/src2", OverlapDisjoint}, // a prefix that is not a parent
		{"/p/src", "/p/src-old/x", OverlapDisjoint},
		{"/", "/p/x", OverlapPartial},
		{"/", "/", OverlapExact},
		{"/p", "/p/a/b/c/d", OverlapPartial},
	} {
		if got := ClassifyOverlap(c.a, c.b); got != c.want {
			t.Errorf("%s vs %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestCanonicalScope(t *testing.T) {
	root := "/proj"
	for _, c := range []struct {
		wd, raw, path string
		wild          bool
		shown         string
	}{
		{"/proj", "src/lib/", "src/lib", false, "src/lib"},
		{"/proj", "src/lib/*", "src/lib", true, "src/lib/*"},
		{"/proj/src", "lib/parser.ts", "src/lib/parser.ts", false, "src/lib/parser.ts"},
		{"/proj/src", "../docs//x/./y", "docs/x/y", false, "docs/x/y"},
		{"/proj/src", "/proj/a", "a", false, "a"},
		{"/proj", "*", ".", true, "*"},
		{"/proj", ".", ".", false, "."},
		// '\' separates on Windows only; elsewhere a name may hold it
		// (issue 38 item 10: it was rewritten to '/').
		{"/proj", `src\win\file.go`, map[bool]string{true: "src/win/file.go", false: `src\win\file.go`}[backslashSeparates], false, map[bool]string{true: "src/win/file.go", false: `src\win\file.go`}[backslashSeparates]},
		// A name that only looks like a variable, inside the path, is a name.
		{"/proj", "out/Foo$Bar.class", "out/Foo$Bar.class", false, "out/Foo$Bar.class"},
		{"/proj", "/proj/$HOME/x", "$HOME/x", false, "$HOME/x"},
	} {
		s, err := CanonicalScope(root, c.wd, c.raw)
		if err != nil {
			t.Errorf("%q in %s: %v", c.raw, c.wd, err)
			continue
		}
		if s.Path != c.path || s.Wildcard != c.wild || s.Display(root) != c.shown {
			t.Errorf("%q in %s = %+v shown %q, want %s %v %q", c.raw, c.wd, s, s.Display(root), c.path, c.wild, c.shown)
		}
	}
	for _, raw := range []string{"", "   ", "src/*.go", "src/**", "src*", "../outside", "/etc/passwd", "a\x00b", "a\nb"} {
		if _, err := CanonicalScope(root, root, raw); !IsCode(err, CodeInvalidArgs) {
			t.Errorf("%q: got %v, want INVALID_ARGS", raw, err)
		}
	}
}

func TestRelativeScopes(t *testing.T) {
	if got := strings.Join(Ancestors("src/a/b.go"), ","); got != ".,src,src/a" {
		t.Errorf("Ancestors = %s", got)
	}
	if got := Ancestors("."); len(got) != 0 {
		t.Errorf("Ancestors(.) = %v", got)
	}
	for _, c := range []struct {
		a, b string
		want Overlap
	}{
		{".", "src/a.go", OverlapPartial},
		{".", ".", OverlapExact},
		{".", "/abs/kept", OverlapDisjoint}, // an absolute scope kept from an older board
		{"src", "/src/x", OverlapDisjoint},
		{"src", "src2/x", OverlapDisjoint},
		{".github", ".", OverlapPartial},
	} {
		if got := ClassifyOverlap(c.a, c.b); got != c.want {
			t.Errorf("%s vs %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	lo, hi := DescendantRange(".")
	for _, p := range []string{"src", ".github/x", "-x", "\u00e9t\u00e9/x"} {
		if !(p >= lo && p < hi) {
			t.Errorf("%q not below .", p)
		}
	}
	for _, c := range []struct{ root, p, want string }{
		{"/proj", "/proj/src/a.go", "src/a.go"},
		{"/proj", "/proj", "."},
		{"/proj", "/other/a.go", "/other/a.go"},
		{"/proj", "src/a.go", "src/a.go"},
		{"/proj", "/proj2/a", "/proj2/a"},
	} {
		if got, _ := RebaseScope(c.root, c.p); got != c.want {
			t.Errorf("RebaseScope(%s, %s) = %s, want %s", c.root, c.p, got, c.want)
		}
	}
	for _, c := range []struct {
		in, want string
		ok       bool
	}{{"src/a.go", "src/a.go", true}, {"./src//a.go", "src/a.go", true}, {"../x", "", false}, {"/x", "", false}, {`src\b.go`, map[bool]string{true: "src/b.go", false: `src\b.go`}[backslashSeparates], true}} {
		got, ok := RelativeScope(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("RelativeScope(%q) = %q %v", c.in, got, ok)
		}
	}
}

func TestAncestorsAndRange(t *testing.T) {
	if got := strings.Join(Ancestors("/a/b/c"), ","); got != "/,/a,/a/b" {
		t.Errorf("Ancestors = %s", got)
	}
	if got := Ancestors("/"); len(got) != 0 {
		t.Errorf("Ancestors(/) = %v", got)
	}
	lo, hi := DescendantRange("/a")
	if lo != "/a/" || hi != "/a0" {
		t.Errorf("range = %s %s", lo, hi)
	}
	for _, p := range []string{"/a/b", "/a/-", "/a/~~", "/a/\xff"} {
		if !(p >= lo && p < hi) {
			t.Errorf("%q not in range", p)
		}
	}
	for _, p := range []string{"/a", "/a-b", "/a.b", "/b", "/a0"} {
		if p >= lo && p < hi {
			t.Errorf("%q in range", p)
		}
	}
}

// FuzzScope checks the canonicalization pipeline and the overlap classes
// against their definitions: canonical output is relative, clean and
// idempotent; classification is symmetric and agrees with Ancestors and
// DescendantRange (which the index-driven conflict check relies on).
func FuzzScope(f *testing.F) {
	f.Add("src/*", "src/lib/parser.ts", "/proj")
	f.Add("src/lib", "src/components", "/proj/x")
	f.Add("a/../b/./c/", `b\c\d`, "/proj")
	f.Add("*", ".", "/proj")
	f.Add("x//y///*", "x/y0", "/proj")
	f.Fuzz(func(t *testing.T, a, b, wd string) {
		const root = "/proj"
		wd = CanonicalPath(root, wd)
		if strings.Contains(wd, "*") || !utf8.ValidString(wd) || HasControl(wd) {
			return // such a working directory cannot be typed back as a scope
		}
		sa, errA := CanonicalScope(root, wd, a)
		sb, errB := CanonicalScope(root, wd, b)
		for _, c := range []struct {
			s   Scope
			err error
			raw string
		}{{sa, errA, a}, {sb, errB, b}} {
			if c.err != nil {
				if !IsCode(c.err, CodeInvalidArgs) {
					t.Fatalf("%q: error code %s", c.raw, CodeOf(c.err))
				}
				continue
			}
			p := c.s.Path
			if !IsRelative(p) || strings.HasSuffix(p, "/") || strings.Contains(p, "//") ||
				(p != "." && strings.Contains("/"+p+"/", "/./")) || strings.Contains("/"+p+"/", "/../") {
				t.Fatalf("%q: not canonical: %q", c.raw, p)
			}
			if !IsWithin(".", p) {
				t.Fatalf("%q: %q escapes the root", c.raw, p)
			}
			again, err := CanonicalScope(root, root, p)
			if err != nil || again.Path != p {
				t.Fatalf("%q: not idempotent: %q -> %q (%v)", c.raw, p, again.Path, err)
			}
			shown := c.s.Display(root)
			if strings.TrimSpace(shown) == "" {
				continue // a name made only of spaces reads as "no scope"
			}
			back, err := CanonicalScope(root, root, shown)
			if err != nil || back != c.s {
				t.Fatalf("%q: display %q does not round-trip: %+v vs %+v (%v)", c.raw, shown, back, c.s, err)
			}
		}
		if errA != nil || errB != nil {
			return
		}
		ab, ba := ClassifyOverlap(sa.Path, sb.Path), ClassifyOverlap(sb.Path, sa.Path)
		if ab != ba {
			t.Fatalf("asymmetric: %s vs %s", ab, ba)
		}
		if (ab == OverlapExact) != (sa.Path == sb.Path) {
			t.Fatalf("exact iff equal: %q %q %s", sa.Path, sb.Path, ab)
		}
		isAnc := func(x, y string) bool { // x a proper ancestor of y per Ancestors
			for _, anc := range Ancestors(y) {
				if anc == x {
					return true
				}
			}
			return false
		}
		inRange := func(x, y string) bool { // y below x per DescendantRange
			lo, hi := DescendantRange(x)
			return y >= lo && y < hi && y != x
		}
		partial := isAnc(sa.Path, sb.Path) || isAnc(sb.Path, sa.Path)
		if (ab == OverlapPartial) != partial {
			t.Fatalf("partial disagrees with Ancestors: %q %q %s", sa.Path, sb.Path, ab)
		}
		if isAnc(sa.Path, sb.Path) != inRange(sa.Path, sb.Path) {
			t.Fatalf("Ancestors and DescendantRange disagree on %q above %q", sa.Path, sb.Path)
		}
	})
}

// A scope the shell was meant to expand and did not (it was quoted) is
// refused, naming why, instead of reserved literally (issue 38 item 10).
func TestUnexpandedScopesAreRefused(t *testing.T) {
	for _, raw := range []string{"~", "~/x", "~ana/src", "$HOME/x", "${HOME}/x", "src/$DIR/a.go", "$_x"} {
		_, err := CanonicalScope("/proj", "/proj", raw)
		if err == nil || !IsCode(err, CodeInvalidArgs) || !strings.Contains(err.Error(), "expand") {
			t.Errorf("%q: %v, want INVALID_ARGS saying it was not expanded", raw, err)
		}
	}
	for _, raw := range []string{"src/~backup", "a$", "$", "src/$1", "x/~"} {
		if _, err := CanonicalScope("/proj", "/proj", raw); err != nil {
			t.Errorf("%q: %v, want a scope", raw, err)
		}
	}
}
