package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// Short-lived processes read pages through a memory map; a process that
// asks for NoMemoryMap (bb serve, bb mcp) reads them with system calls.
func TestMemoryMapOption(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bb.db")
	for _, c := range []struct {
		o    sqlite.Options
		want int64
	}{{sqlite.Options{Create: true}, 1 << 30}, {sqlite.Options{NoMemoryMap: true}, 0}} {
		st, err := sqlite.Open(ctx, path, c.o)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := st.SQL().QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%+v: mmap_size %d, want %d", c.o, got, c.want)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
