package sqlstore

import (
	"fmt"
	"testing"
)

// inLists covers every id once, in order, in runs of at most inListMax,
// each run's arguments led by the lead values; stopping the loop stops it.
func TestInLists(t *testing.T) {
	ids := make([]string, 2*inListMax+50)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	var sizes []int
	next := 0
	for n, args := range inLists(ids, "lead", 7) {
		sizes = append(sizes, n)
		if len(args) != n+2 || args[0] != "lead" || args[1] != 7 {
			t.Fatalf("run %d: args %v", len(sizes), args[:3])
		}
		for _, a := range args[2:] {
			if a != ids[next] {
				t.Fatalf("arg %v, want %s", a, ids[next])
			}
			next++
		}
	}
	if fmt.Sprint(sizes) != fmt.Sprint([]int{inListMax, inListMax, 50}) || next != len(ids) {
		t.Fatalf("runs %v covering %d ids, want %d", sizes, next, len(ids))
	}
	runs := 0
	for range inLists(ids) {
		runs++
		break
	}
	if runs != 1 {
		t.Fatalf("%d runs after a break", runs)
	}
	for range inLists(nil, "lead") {
		t.Fatal("a run for no ids")
	}
}
