package hub_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// mdCell shows a role of the authority table in docs/security.md.
func mdCell(a hub.Access) string {
	if a == "" {
		return "—"
	}
	return string(a)
}

// docs/security.md prints the authority table: every row, as the core
// applies it.
func TestAuthorityTableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, r := range hub.AuthorityTable() {
		line := fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", r.Thing, r.Verb, mdCell(r.Own), mdCell(r.Unowned), mdCell(r.Other), r.Note)
		if !strings.Contains(string(doc), line) {
			missing = append(missing, line)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("docs/security.md lacks these rows of the authority table:\n%s", strings.Join(missing, "\n"))
	}
}

// Every row names a known role in at least one column, and no thing and
// verb has two rows.
func TestAuthorityTableRows(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range hub.AuthorityTable() {
		k := string(r.Thing) + "/" + string(r.Verb)
		if seen[k] {
			t.Errorf("two rows for %s", k)
		}
		seen[k] = true
		if r.Own == "" && r.Unowned == "" && r.Other == "" {
			t.Errorf("row %s allows nobody", k)
		}
		for _, a := range []hub.Access{r.Own, r.Unowned, r.Other} {
			if a != "" {
				if _, err := hub.ParseAccess("role", string(a)); err != nil {
					t.Errorf("row %s: %v", k, err)
				}
			}
		}
	}
}

// Authorize: each role on its own, nobody's and another agent's thing;
// a person's act on another's thing is an override; without a principal
// (the local board) everything is allowed.
func TestAuthorize(t *testing.T) {
	agent := hub.Principal{Credential: "bob", Agent: "bob", Role: hub.AccessAgent}
	over := hub.Principal{Credential: "ana", Agent: "ana", Role: hub.AccessOverseer}
	op := hub.Principal{Credential: hub.OperatorCredential, Role: hub.AccessOperator}
	complete := func(owner string) hub.Target {
		return hub.Target{Thing: hub.ThingTask, Verb: hub.VerbComplete, Owner: owner, Name: "task t1"}
	}
	for _, c := range []struct {
		p        *hub.Principal
		t        hub.Target
		ok, over bool
	}{
		{nil, complete("alice"), true, false},
		{&agent, complete("bob"), true, false},
		{&agent, complete(""), true, false},
		{&agent, complete("alice"), false, false},
		{&over, complete("alice"), true, true},
		{&op, complete("alice"), true, true},
		{&agent, hub.Target{Thing: hub.ThingTask, Verb: hub.VerbDelete}, false, false},
		{&over, hub.Target{Thing: hub.ThingTask, Verb: hub.VerbDelete}, true, false},
		{&agent, hub.MemoryTarget(hub.VerbRead, hub.ScopeAgent, "alice"), false, false},
		{&over, hub.MemoryTarget(hub.VerbRead, hub.ScopeAgent, "alice"), true, true},
		{&over, hub.MemoryTarget(hub.VerbWrite, hub.ScopeAgent, "alice"), false, false},
		{&agent, hub.MemoryTarget(hub.VerbWrite, hub.ScopeProject, "p"), true, false},
		{&agent, hub.MemoryTarget(hub.VerbRead, hub.ScopeGlobal, ""), true, false},
		{&over, hub.MemoryTarget(hub.VerbWrite, hub.ScopeGlobal, ""), false, false},
		{&op, hub.MemoryTarget(hub.VerbWrite, hub.ScopeGlobal, ""), true, false},
		{&agent, hub.Target{Thing: hub.ThingTask, Verb: hub.VerbTakeover, Owner: "alice"}, true, false},
		{&over, hub.Target{Thing: hub.ThingLocation, Verb: hub.VerbWrite, Owner: "alice"}, false, false},
		{&agent, hub.Target{Thing: hub.ThingRepository, Verb: hub.VerbClaim}, false, false},
		{&op, hub.Target{Thing: hub.ThingRepository, Verb: hub.VerbReset}, true, false},
	} {
		ctx := context.Background()
		if c.p != nil {
			ctx = hub.WithPrincipal(ctx, *c.p)
		}
		o, err := hub.Authorize(ctx, c.t)
		if (err == nil) != c.ok || (o != nil) != c.over {
			t.Errorf("%+v doing %+v: override %v, err %v; want ok %v override %v", c.p, c.t, o, err, c.ok, c.over)
		}
		if err != nil && (hub.CodeOf(err) != hub.CodeForbidden || !strings.Contains(err.Error(), c.p.Credential)) {
			t.Errorf("refusal does not name the credential: %v", err)
		}
	}
	if _, err := hub.Authorize(hub.WithPrincipal(context.Background(), agent), hub.Target{Thing: "spaceship", Verb: hub.VerbRead}); err == nil {
		t.Fatal("a thing without a row is allowed")
	}
}
