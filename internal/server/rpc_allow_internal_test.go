package server

import (
	"reflect"
	"sort"
	"testing"

	"github.com/blackboard-hub/bb/internal/app"
)

// Every remotable method of app.API has exactly one entry in the RPC
// list (served with a role, or not served with a reason), and the list
// names no method that is not one: a new method is never served over
// HTTP without somebody deciding who may call it.
func TestRPCAllowListCoversEveryMethod(t *testing.T) {
	rules := rpcRules()
	t0 := reflect.TypeOf((*app.API)(nil)).Elem()
	var missing []string
	seen := map[string]bool{}
	for i := 0; i < t0.NumMethod(); i++ {
		m := t0.Method(i)
		if !remotable(m.Type) {
			continue
		}
		seen[m.Name] = true
		r, ok := rules[m.Name]
		switch {
		case !ok:
			missing = append(missing, m.Name)
		case r.Need == "" && r.NotServed == "":
			t.Errorf("%s: neither a role nor a reason it is not served", m.Name)
		case r.Need != "" && r.NotServed != "":
			t.Errorf("%s: both served (%s) and not served", m.Name, r.Need)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("remotable methods of app.API with no entry in rpcRules (rpc_allow.go): %v", missing)
	}
	for name := range rules {
		if !seen[name] {
			t.Errorf("rpcRules lists %s, which is not a remotable method of app.API", name)
		}
	}
	for name, m := range rpcMethods() {
		if rules[name].Need != m.need || m.need == "" {
			t.Errorf("%s served with role %q, listed %q", name, m.need, rules[name].Need)
		}
	}
}
