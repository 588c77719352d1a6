package server

import (
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"context"
	"path/filepath"
	"testing"

	"github.com/blackboard-hub/bb/internal/boot"
)

// BenchmarkPrincipal is what authenticating a request costs: the
// operator's token (a constant-time compare) against an agent's credential
// (a hash and a cache lookup after its first use). A post costs ~1 ms, so
// both are noise next to it (bb serve bench --credentials measures the
// whole request).
func BenchmarkPrincipal(b *testing.B) {
	dir := b.TempDir()
	bo, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), Create: true, ProjectRoot: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer bo.Close()
	nc, err := bo.API.CreateCredential(context.Background(), credentials.Input{Agent: "load-00"})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Service: bo.API, Token: "operator-0123456789abcdef"})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, tok string }{{"operator", "operator-0123456789abcdef"}, {"agent", nc.Token}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.principal(context.Background(), c.tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
