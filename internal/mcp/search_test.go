package mcp

import (
	"context"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestSearchTool(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	if _, err := svc.Post(ctx, hub.PostInput{From: "alice", Content: "the session cookie expires too soon"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTask(ctx, "alice", hub.TaskInput{Title: "Rotate cookie keys"}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, svc, Options{}))
	out := ok(t, cs, "bb_search", map[string]any{"query": "cookie"})
	hits := out["hits"].([]any)
	if len(hits) != 2 || hits[0].(map[string]any)["kind"] != "task" {
		t.Fatalf("hits: %v", hits)
	}
	out = ok(t, cs, "bb_search", map[string]any{"query": `"session cookie`, "kind": "message", "agent": "alice", "since": "1h"})
	hits = out["hits"].([]any)
	if len(hits) != 1 || len(hits[0].(map[string]any)["marks"].([]any)) != 2 {
		t.Fatalf("filtered hits: %v", hits)
	}
	fail(t, cs, "bb_search", map[string]any{"query": `()*"`}, hub.CodeInvalidInput)
}
