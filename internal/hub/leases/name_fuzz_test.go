package leases_test

import (
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
)

// FuzzValidateName: a name is accepted only within the grammar (never a
// '/', at most 64 bytes), with the kind its prefix says; anything else is
// INVALID_ARGS naming the lease.
func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"build", "deploy:staging", "port:web", "name:db", "port:", "src/a.go", "", "Build", strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, err := leases.ValidateName(s)
		if err != nil {
			if hub.CodeOf(err) != hub.CodeInvalidArgs {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if s == "" || len(s) > leases.MaxNameLen || strings.ContainsAny(s, "/\\ \t\n") {
			t.Fatalf("%q accepted", s)
		}
		switch {
		case strings.HasPrefix(s, "port:"):
			if kind != leases.KindPort || leases.EnvName(s) == "" {
				t.Fatalf("%q: kind %s", s, kind)
			}
		case strings.HasPrefix(s, "name:"):
			if kind != leases.KindName {
				t.Fatalf("%q: kind %s", s, kind)
			}
		default:
			if kind != leases.KindLock {
				t.Fatalf("%q: kind %s", s, kind)
			}
		}
	})
}
