package hub

import (
	"fmt"
	"testing"
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
