package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// A full disk, simulated with SQLite's max_page_count (portable, no root
// needed; hardentest.TestDiskFull fills a real tmpfs when run as root).
func TestExplainDiskFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "full.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE t (v TEXT)", "PRAGMA max_page_count = 3"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		_, werr = db.ExecContext(ctx, "INSERT INTO t VALUES (?)", strings.Repeat("x", 2000))
	}
	var he *hub.Error
	if e := Explain(werr, path); !errors.As(e, &he) || he.Code != hub.CodeIOWriteFailed || !strings.Contains(he.Message, "is full: free some space") {
		t.Fatalf("Explain(%v) = %v", werr, e)
	}
	if Explain(errors.New("other"), path) != nil {
		t.Fatal("a non-SQLite error was explained")
	}
}
