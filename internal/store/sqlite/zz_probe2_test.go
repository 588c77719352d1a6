package sqlite_test

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

func TestZZSearch(t *testing.T) {
	if os.Getenv("PROBE2") == "" {
		t.Skip()
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, "/tmp/i16q-probe/bb.db", sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, hub.FixedClock{T: benchNow}, t.TempDir())
	for _, q := range []hub.SearchQuery{
		{Text: "zephyr"}, {Text: "w4242"}, {Text: "w4242 deploy"}, {Text: "deploy", Agent: "agent-10"}, {Text: "deploy", Since: 2 * time.Hour}, {Text: "deploy"},
		{Text: "w4242", Agent: "agent-10"},
	} {
		var ds []time.Duration
		var n int
		for i := 0; i < 15; i++ {
			t0 := time.Now()
			res, err := svc.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
			n = len(res.Hits)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%-40v %v  hits %d", q, ds[len(ds)/2], n)
	}
	var lds []time.Duration
	for i := 0; i < 15; i++ {
		t0 := time.Now()
		svc.Log(ctx, hub.LogQuery{From: "agent-07", Limit: 20})
		lds = append(lds, time.Since(t0))
	}
	sort.Slice(lds, func(i, j int) bool { return lds[i] < lds[j] })
	t.Logf("log %v", lds[len(lds)/2])
}
