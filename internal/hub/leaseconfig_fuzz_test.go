package hub_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// FuzzParsePortRange: any text is a range within 1024..65535, lo <= hi,
// or an INVALID_INPUT naming port_range; never a panic.
func FuzzParsePortRange(f *testing.F) {
	for _, s := range []string{hub.DefaultPortRange, "80-90", "2000-1000", "1024-65535", "-", "1-2-3", " 41000 - 41001 ", "99999999999999999999-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := hub.ParsePortRange(s)
		if err != nil {
			var he *hub.Error
			if !errors.As(err, &he) || he.Code != hub.CodeInvalidInput || he.Field != "port_range" {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if lo < hub.MinLeasePort || hi > 65535 || lo > hi {
			t.Fatalf("%q gave %d-%d", s, lo, hi)
		}
	})
}

// FuzzParseSessionLeases: a declaration is at most 16 distinct
// port:/name: leases with valid labels, or INVALID_INPUT.
func FuzzParseSessionLeases(f *testing.F) {
	for _, s := range []string{"port:web port:api name:db", "port:web,port:web", "disk:x", "", "port:" + strings.Repeat("a", 33)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := hub.ParseSessionLeases(s)
		if err != nil {
			if hub.CodeOf(err) != hub.CodeInvalidInput {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, l := range ls {
			if l.Kind != "port" && l.Kind != "name" || l.Label == "" || len(l.Label) > 32 || seen[l.Lease()] {
				t.Fatalf("%q gave %+v", s, ls)
			}
			seen[l.Lease()] = true
		}
		if len(ls) > hub.MaxSessionLeases {
			t.Fatalf("%q gave %d leases", s, len(ls))
		}
	})
}
