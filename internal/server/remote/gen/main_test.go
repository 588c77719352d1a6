package main

import (
	"bytes"
	"os"
	"testing"
)

// client_gen.go must match app.API: run `go generate ./internal/server/remote`
// after changing the interface.
func TestClientGenUpToDate(t *testing.T) {
	want, err := Generate("../../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../client_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("internal/server/remote/client_gen.go is stale: run go generate ./internal/server/remote")
	}
}

func TestQualify(t *testing.T) {
	for in, want := range map[string]string{
		"[]AgentView":       "[]hub.AgentView",
		"*string":           "*string",
		"map[string]Memory": "map[string]hub.Memory",
		"context.Context":   "context.Context",
		"time.Time":         "time.Time",
	} {
		if got := qualify("hub", in); got != want {
			t.Errorf("qualify(%q) = %q, want %q", in, got, want)
		}
	}
}
