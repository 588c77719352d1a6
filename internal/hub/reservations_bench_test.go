package hub_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// seedReservations opens a board with n active reservations spread over a
// deep tree: /proj/pkgNNN/modMM/fileK.go, one agent per package.
func seedReservations(tb testing.TB, n int) (*hub.Service, *sqlstore.DB) {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	svc := hub.NewService(st, hub.FixedClock{T: t0}, "/proj")
	err = st.Write(ctx, func(tx hub.Tx) error {
		for p := 0; p < 1000; p++ {
			if err := tx.TouchAgent(ctx, fmt.Sprintf("agent-%03d", p), t0); err != nil {
				return err
			}
		}
		for i := 0; i < n; i++ {
			r := hub.Reservation{ID: fmt.Sprintf("r%06d", i), Scope: fmt.Sprintf("/proj/pkg%03d/mod%02d/file%d.go", i%1000, (i/1000)%100, i),
				AgentID: fmt.Sprintf("agent-%03d", i%1000), BeadID: "bb-1", State: hub.ResActive, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
			if err := tx.InsertReservation(ctx, &r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return svc, st
}

// BenchmarkConflictCheck100k is the conflict check of a new reservation
// with 100k active reservations in the store: ancestor lookups plus a
// descendant range scan on idx_reservations_active_scope, in one read
// transaction, with the overlap classification.
func BenchmarkConflictCheck100k(b *testing.B) {
	_, st := seedReservations(b, 100_000)
	ctx := context.Background()
	scopes := []string{"/proj/pkg007/mod03/file3007.go", "/proj/pkg123/mod45", "/proj/pkg999/new.go"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := scopes[i%len(scopes)]
		err := st.Read(ctx, func(tx hub.Tx) error {
			rows, err := tx.OverlappingActive(ctx, p, hub.Ancestors(p), 1000)
			for _, r := range rows {
				_ = hub.ClassifyOverlap(r.Scope, p)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReserveConflict100k is a whole refused reserve (conflict check,
// INCURSION event written and committed) with 100k active reservations.
func BenchmarkReserveConflict100k(b *testing.B) {
	svc, _ := seedReservations(b, 100_000)
	ctx := context.Background()
	if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: "intruder", Role: "r"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "intruder", Scope: "/proj/pkg007/mod03", BeadID: "bb-2"})
		if !hub.IsCode(err, hub.CodeReservationConflict) {
			b.Fatal(err)
		}
	}
}

// The conflict check never scans the reservations table: both of its
// queries search idx_reservations_active_scope.
func TestConflictCheckUsesIndex(t *testing.T) {
	_, st := seedReservations(t, 2000)
	for _, q := range []string{
		`SELECT id FROM reservations WHERE state = 'active' AND scope IN (?, ?, ?) LIMIT ?`,
		`SELECT id FROM reservations WHERE state = 'active' AND scope >= ? AND scope < ? AND scope <> ? ORDER BY scope LIMIT ?`,
	} {
		rows, err := st.SQL().Query(`EXPLAIN QUERY PLAN `+q, "a", "b", "c", 10)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, "idx_reservations_active_scope") || strings.Contains(p, "SCAN reservations") {
			t.Errorf("plan of %q: %s", q, p)
		}
	}
}

// The index-driven check finds exactly what a brute-force comparison of
// every active row finds.
func TestOverlappingActiveMatchesBruteForce(t *testing.T) {
	_, st := seedReservations(t, 3000)
	ctx := context.Background()
	var all []hub.Reservation
	_ = st.Read(ctx, func(tx hub.Tx) error {
		var err error
		all, err = tx.ListReservations(ctx, hub.ReservationFilter{States: []string{hub.ResActive}})
		return err
	})
	for _, p := range []string{"/proj", "/", "/proj/pkg007", "/proj/pkg007/mod02/file2007.go", "/proj/pkg00", "/proj/pkg007/mod02/file2007.go/x", "/elsewhere"} {
		want := 0
		for _, r := range all {
			if hub.ClassifyOverlap(r.Scope, p) != hub.OverlapDisjoint {
				want++
			}
		}
		var got []hub.Reservation
		_ = st.Read(ctx, func(tx hub.Tx) error {
			var err error
			got, err = tx.OverlappingActive(ctx, p, hub.Ancestors(p), 10000)
			return err
		})
		if len(got) != want {
			t.Errorf("%s: index found %d, brute force %d", p, len(got), want)
		}
	}
}
