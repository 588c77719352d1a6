package boot

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// A board made before scopes were relative (schema 027) holds absolute
// scopes, active and historical. Opened with its project directory, every
// scope under the project becomes relative; scopes outside it are kept as
// they were; every other field of every row is unchanged; the relative
// scopes then conflict with scopes given in any checkout.
func TestOlderBoardScopesBecomeRelative(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	path := filepath.Join(dir, "bb.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sqlite.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, m := range ms {
		if m.Version >= 40 {
			break
		}
		exec(m.SQL)
		exec(fmt.Sprintf("PRAGMA user_version = %d", m.Version))
	}
	const now = "2026-11-21T10:00:00.000000+00:00"
	for _, a := range []string{"ana-one", "bo-two"} {
		exec(`INSERT INTO agents (id, created_at, last_seen, updated_at) VALUES (?, ?, ?, ?)`, a, now, now, now)
	}
	rows := []struct {
		id, scope string
		wildcard  int
		agent     string
		state     string
		expires   string
		released  any
		want      string
	}{
		{"r1", root + "/src/a.go", 0, "ana-one", "active", "2099-01-01T00:00:00.000000+00:00", nil, "src/a.go"},
		{"r2", root + "/lib", 1, "ana-one", "active", "2099-01-01T00:00:00.000000+00:00", nil, "lib"},
		{"r3", root, 1, "bo-two", "released", "2026-11-21T12:00:00.000000+00:00", "2026-11-21T11:00:00.000000+00:00", "."},
		{"r4", root + "/old/x.go", 0, "bo-two", "expired", "2026-11-21T09:00:00.000000+00:00", nil, "old/x.go"},
		{"r5", "/elsewhere/y.go", 0, "bo-two", "released", "2026-11-21T12:00:00.000000+00:00", "2026-11-21T11:00:00.000000+00:00", "/elsewhere/y.go"},
		{"r6", root + "-other/z.go", 0, "bo-two", "active", "2099-01-01T00:00:00.000000+00:00", nil, root + "-other/z.go"},
	}
	for _, r := range rows {
		exec(`INSERT INTO reservations (id, scope, wildcard, agent_id, bead_id, state, created_at, expires_at, released_at)
			VALUES (?, ?, ?, ?, 'bb-1', ?, ?, ?, ?)`, r.id, r.scope, r.wildcard, r.agent, r.state, now, r.expires, r.released)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	b, err := Open(ctx, Config{SQLitePath: path, ProjectRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	check, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	for _, r := range rows {
		var scope, agent, state, expires string
		var wildcard int
		var released sql.NullString
		if err := check.QueryRow(`SELECT scope, wildcard, agent_id, state, expires_at, released_at FROM reservations WHERE id = ?`, r.id).
			Scan(&scope, &wildcard, &agent, &state, &expires, &released); err != nil {
			t.Fatal(err)
		}
		if scope != r.want || wildcard != r.wildcard || agent != r.agent || state != r.state || expires != r.expires ||
			released.Valid != (r.released != nil) {
			t.Errorf("%s: scope %q wildcard %d agent %s state %s expires %s released %v; want scope %q", r.id, scope, wildcard, agent, state, expires, released, r.want)
		}
	}
	var n int
	if err := check.QueryRow(`SELECT COUNT(*) FROM reservations`).Scan(&n); err != nil || n != len(rows) {
		t.Fatalf("%d rows (%v), want %d", n, err, len(rows))
	}
	var scopes string
	if err := check.QueryRow(`SELECT scopes FROM repository`).Scan(&scopes); err != nil || scopes != hub.ScopesRelative {
		t.Fatalf("repository scopes %q (%v)", scopes, err)
	}

	// The rebased scope conflicts with the same file named from the project
	// (absolute or relative), and is shown relative.
	b, err = Open(ctx, Config{SQLitePath: path, ProjectRoot: root, Clock: hub.FixedClock{T: mustTime(t, now)}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.API.Reserve(ctx, hub.ReserveInput{Agent: "bo-two", Scope: root + "/src/a.go", Wd: root, BeadID: "bb-2"})
	if !hub.IsCode(err, hub.CodeReservationConflict) || !containsAll(hub.MessageOf(err), "ana-one", "src/a.go") {
		t.Fatalf("reserving the rebased scope: %v", err)
	}
	if got := b.API.DisplayScope(hub.Reservation{Scope: "lib", Wildcard: true}); got != "lib/*" {
		t.Fatalf("display %q", got)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
