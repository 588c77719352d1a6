package roles

import (
	"slices"
	"testing"
)

// The roles are read from app.API as app.go writes it: the kernel's roles,
// then one per application, each with its package's path.
func TestRead(t *testing.T) {
	rs, err := Read("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 10 || rs[0] != (Role{Pkg: "hub", Path: "internal/hub", Name: "Identity"}) {
		t.Fatalf("roles: %v", rs)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.String())
	}
	for _, want := range []string{"hub.Admin", "hooks.API", "agentmail.API", "oversight.API"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	pkgs := Packages(rs)
	if pkgs[0] != "internal/app" || !slices.Contains(pkgs, "internal/hub/hooks") || len(slices.Compact(slices.Clone(pkgs))) != len(pkgs) {
		t.Errorf("packages: %v", pkgs)
	}
	ifaces, _, err := Interfaces("../..", "internal/hub/hooks")
	if err != nil || ifaces["API"] == nil {
		t.Errorf("hooks.API not found: %v", err)
	}
}
