package hub

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func graphNext(g map[string][]string) func(string) ([]string, error) {
	return func(x string) ([]string, error) { return g[x], nil }
}

func TestDependsOnReachable(t *testing.T) {
	g := map[string][]string{"a": {"b"}, "b": {"c", "d"}, "d": {"e"}}
	for _, c := range []struct {
		from, to string
		want     bool
	}{{"a", "e", true}, {"a", "a", true}, {"e", "a", false}, {"c", "d", false}, {"b", "e", true}} {
		got, err := DependsOnReachable(c.from, c.to, graphNext(g))
		if err != nil || got != c.want {
			t.Errorf("%s->%s = %v, %v; want %v", c.from, c.to, got, err, c.want)
		}
	}
	// A cycle already in the data does not loop forever.
	g = map[string][]string{"a": {"b"}, "b": {"a"}}
	if got, _ := DependsOnReachable("a", "z", graphNext(g)); got {
		t.Error("z is not reachable")
	}
}

// FuzzDependsOnReachable builds a graph from bytes, adds only the edges the
// check allows, and verifies the result is acyclic and that every rejected
// edge would indeed have closed a cycle.
func FuzzDependsOnReachable(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 2, 0})
	f.Add([]byte{3, 3})
	f.Add([]byte{0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 4, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		const n = 8
		g := map[string][]string{}
		name := func(x byte) string { return fmt.Sprintf("t%d", x%n) }
		for i := 0; i+1 < len(b); i += 2 {
			task, dep := name(b[i]), name(b[i+1])
			cyc, err := DependsOnReachable(dep, task, graphNext(g))
			if err != nil {
				t.Fatal(err)
			}
			if cyc != reachableRef(g, dep, task) {
				t.Fatalf("check disagrees with reference for %s -> %s in %v", task, dep, g)
			}
			if !cyc {
				g[task] = append(g[task], dep)
			}
		}
		for i := 0; i < n; i++ {
			for _, d := range g[name(byte(i))] {
				if reachableRef(g, d, name(byte(i))) {
					t.Fatalf("cycle through %s in %v", name(byte(i)), g)
				}
			}
		}
	})
}

// reachableRef is a plain recursive reference implementation.
func reachableRef(g map[string][]string, from, to string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(x string) bool {
		if x == to {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, d := range g[x] {
			if walk(d) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

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
			if !IsCode(err, CodeInvalidInput) || !strings.HasPrefix(err.Error(), "invalid expires-in duration: ") {
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
