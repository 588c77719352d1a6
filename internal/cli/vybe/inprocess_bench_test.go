package vybe

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkInProcessTaskCreate runs `vybe task create` in-process (no
// process start), for profiling: go test -bench InProcess -cpuprofile cpu.out
func BenchmarkInProcessTaskCreate(b *testing.B) {
	dir := b.TempDir()
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Home: dir, Getenv: func(k string) string {
		if k == "VYBE_DB_PATH" {
			return filepath.Join(dir, "x.db")
		}
		return ""
	}}
	for i := 0; i < b.N; i++ {
		Run(context.Background(), []string{"task", "create", "--agent", "a", "--title", "t", "--request-id", fmt.Sprint(i)}, env)
	}
}
