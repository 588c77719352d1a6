package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/loadgen"
)

// BenchmarkServeLoad runs the load generator of `bb serve bench` against an
// in-process server (the CLI form runs it against a separate process and
// also reports the server's RSS). Reported metrics: posts/s, write p99,
// SSE delivery p99.
func BenchmarkServeLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		e := newEnvB(b)
		rep, err := loadgen.Run(context.Background(), loadgen.Config{URL: e.URL, Clients: 50, Duration: 3 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Errors != 0 {
			b.Fatalf("%d errors: %s", rep.Errors, rep.FirstErrorMsg)
		}
		b.ReportMetric(rep.PostsPerSec, "posts/s")
		b.ReportMetric(float64(rep.WriteP99)/1e6, "write-p99-ms")
		b.ReportMetric(float64(rep.DeliveryP99)/1e6, "sse-p99-ms")
		b.Log("\n" + rep.String())
	}
}
