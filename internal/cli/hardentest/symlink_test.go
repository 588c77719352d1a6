package hardentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReservationScopesSeeThroughSymlinks reproduces the report: with
// `ln -s src/lib inside`, 'src/lib/*' and 'inside/*' were both granted to
// different agents; `ln -s /etc linkout` made --scope linkout acceptable
// while `bb artifact add linkout/x` was PATH_TRAVERSAL.
func TestReservationScopesSeeThroughSymlinks(t *testing.T) {
	dir := newBoard(t)
	if err := os.MkdirAll(filepath.Join(dir, "src", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	for link, target := range map[string]string{
		"inside":   "src/lib",
		"linkout":  outside,
		"dangling": "src/not-yet",
		"dangout":  filepath.Join(outside, "missing"),
		"loop":     "loop",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	for _, a := range []string{"amber-otter", "blue-heron"} {
		must(t, dir, nil, "bb", "agent", "register", "--name", a, "--role", "dev")
	}
	reserve := func(agent, scope string) result {
		return runIn(t, dir, nil, "bb", "--json", "agent", "reserve", "--agent", agent, "--scope", scope, "--bead", "bb-1")
	}
	if r := reserve("amber-otter", "src/lib/*"); r.code != 0 {
		t.Fatalf("first reserve: %s", r.stdout)
	}
	// The same directory through the link: the same scope, a conflict.
	for _, s := range []string{"inside/*", "inside", "inside/x.go", "./inside/../src/lib/y.go"} {
		r := reserve("blue-heron", s)
		if r.code != 1 || jsonField(t, r.stdout, "error.code") != "RESERVATION_CONFLICT" {
			t.Errorf("--scope %s through the link: exit %d %s", s, r.code, r.stdout)
		}
	}
	r := reserve("amber-otter", "inside/*")
	if r.code != 0 || jsonField(t, r.stdout, "data.renewed") != "true" {
		t.Errorf("the owner reserving through the link renews: %s", r.stdout)
	}
	// Links that lead outside the project, dangling or not, are refused
	// with the code artifacts use.
	for _, s := range []string{"linkout", "linkout/x", "linkout/*", "dangout", "dangout/y"} {
		r := reserve("blue-heron", s)
		if r.code != 1 || jsonField(t, r.stdout, "error.code") != "PATH_TRAVERSAL" || !strings.Contains(r.stdout, "leads outside the project through a symbolic link") {
			t.Errorf("--scope %s: exit %d %s", s, r.code, r.stdout)
		}
		a := runIn(t, dir, nil, "bb", "--json", "--as", "blue-heron", "artifact", "add", s, "d")
		if a.code != 1 || jsonField(t, a.stdout, "error.code") != "PATH_TRAVERSAL" {
			t.Errorf("artifact add %s: %s", s, a.stdout)
		}
	}
	// A dangling link inside the project resolves to its future target.
	if r := reserve("blue-heron", "dangling"); r.code != 0 {
		t.Fatalf("dangling inside: %s", r.stdout)
	}
	if r := reserve("amber-otter", "src/not-yet/z.go"); r.code != 1 || jsonField(t, r.stdout, "error.code") != "RESERVATION_CONFLICT" {
		t.Errorf("the dangling link's target is reserved: %s", r.stdout)
	}
	// A link loop is refused, not followed forever.
	if r := reserve("blue-heron", "loop/x"); r.code != 1 || !strings.Contains(r.stdout, "too many levels of symbolic links") {
		t.Errorf("loop: %s", r.stdout)
	}
	// Release through the link frees the reservation taken by its target.
	must(t, dir, nil, "bb", "agent", "release", "--agent", "amber-otter", "--scope", "inside/*")
	if r := reserve("blue-heron", "src/lib/*"); r.code != 0 {
		t.Errorf("after release: %s", r.stdout)
	}
}
