package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// SQLite plans a statement whose LIMIT is a bare bound parameter with the
// value bound at the time, and marks the statement stale whenever that
// parameter is bound again: every call would parse it anew and the
// per-connection statement cache would save nothing for it. The store
// therefore never hands the driver a bare "LIMIT ?". This runs the reads
// with a LIMIT that a post and a check-in make (the notice counts, whose
// caps are literals), a log read (a literal page size) and a log read by
// tag (bound per-tag limits), and checks what reached the driver.
func TestNoBareBoundLimitReachesSQLite(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var limited []string
	st.OnQuery = func(q string, _ []any) {
		if strings.Contains(q, "LIMIT") {
			mu.Lock()
			limited = append(limited, q)
			mu.Unlock()
		}
	}
	svc := hub.NewService(st, nil, t.TempDir())
	if _, err := svc.Post(ctx, hub.PostInput{From: "alice", Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CheckIn(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Log(ctx, hub.LogQuery{Limit: 20, Reader: "bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Log(ctx, hub.LogQuery{Limit: 20, Tags: []string{"x", "y"}}); err != nil {
		t.Fatal(err)
	}
	guarded := 0
	for _, q := range limited {
		if strings.Contains(q, "LIMIT ?") {
			t.Errorf("a bare bound LIMIT reached SQLite:\n%s", q)
		}
		if strings.Contains(q, "LIMIT +?") {
			guarded++
		}
	}
	if guarded == 0 {
		t.Fatalf("no statement with a bound LIMIT ran; saw %d with LIMIT", len(limited))
	}
}

// Statement journals (what SQLite keeps to undo one statement inside a
// larger transaction, e.g. one post of a group commit) stay in memory:
// on disk they cost a write system call per page.
func TestTempStoreInMemory(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	if err := st.SQL().QueryRowContext(ctx, "PRAGMA temp_store").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != 2 {
		t.Fatalf("temp_store = %d, want 2 (MEMORY)", v)
	}
}
