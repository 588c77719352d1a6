package sqlite_test

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

func TestZZProbe(t *testing.T) {
	qf := os.Getenv("PROBE")
	if qf == "" {
		t.Skip()
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, "/tmp/i16q-probe/bb.db", sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db := st.SQL()
	src, _ := os.ReadFile(qf)
	for _, q := range strings.Split(string(src), "\n;\n") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		var ds []time.Duration
		var first [][]string
		for i := 0; i < 9; i++ {
			t0 := time.Now()
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			cols, _ := rows.Columns()
			var out [][]string
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for j := range vals {
					ptrs[j] = &vals[j]
				}
				rows.Scan(ptrs...)
				if i < 8 {
					continue
				}
				var s []string
				for _, v := range vals {
					switch x := v.(type) {
					case []byte:
						s = append(s, string(x))
					default:
						s = append(s, strings.TrimSpace(strings.ReplaceAll(fmtv(x), "\n", " ")))
					}
				}
				out = append(out, s)
			}
			rows.Close()
			if i < 8 {
				ds = append(ds, time.Since(t0))
			}
			first = out
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("\n== %v  (%d rows)\n%s", ds[len(ds)/2], len(first), q)
		for i, r := range first {
			if i >= 8 {
				break
			}
			t.Logf("   %v", r)
		}
	}
}
