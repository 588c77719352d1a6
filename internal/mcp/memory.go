package mcp

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"github.com/blackboard-hub/bb/internal/hub/memory"

	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Shared memory (seed 002, as bb memory).

type memorySetIn struct {
	Key       string `json:"key" jsonschema:"fact name"`
	Value     string `json:"value" jsonschema:"the fact"`
	Scope     string `json:"scope,omitempty" jsonschema:"default global"`
	ScopeID   string `json:"scope_id,omitempty" jsonschema:"the scope's id"`
	ExpiresIn string `json:"expires_in,omitempty" jsonschema:"e.g. 2h, 7d"`
}

type memoryGetIn struct {
	Key     string `json:"key,omitempty" jsonschema:"one fact"`
	Scope   string `json:"scope,omitempty" jsonschema:"default global"`
	ScopeID string `json:"scope_id,omitempty" jsonschema:"the scope's id"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 50"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type memoriesOut struct {
	Memories   []resume.MemoryView `json:"memories"`
	NextCursor string              `json:"next_cursor,omitempty"`
}

func (s *Server) addMemoryTools() {
	addTool(s, tool{name: "bb_memory_set", needsID: true, destructive: true, idempotent: true,
		desc: "Share a fact (same key: replace)."},
		func(ctx context.Context, c *call, in memorySetIn) (memory.WriteResult, error) {
			mi := memory.Input{Key: in.Key, Value: in.Value, Scope: in.Scope, ScopeID: in.ScopeID}
			if in.ExpiresIn != "" {
				d, err := memory.CheckExpiresIn("expires_in", in.ExpiresIn) // the words bb memory set --expires-in gives
				if err != nil {
					return memory.WriteResult{}, err
				}
				mi.ExpiresIn = d
			}
			return c.svc.SetMemory(ctx, c.agent, mi)
		})

	addTool(s, tool{name: "bb_memory_get", readOnly: true,
		desc: "A fact by key, or a scope's facts."},
		func(ctx context.Context, c *call, in memoryGetIn) (memoriesOut, error) {
			scope := in.Scope
			if scope == "" {
				scope = hub.ScopeGlobal
			}
			if in.Key != "" {
				m, err := c.svc.GetMemory(ctx, scope, in.ScopeID, in.Key)
				if err != nil {
					return memoriesOut{}, err
				}
				return memoriesOut{Memories: []resume.MemoryView{resume.ViewMemory(m)}}, nil
			}
			off, err := offsetOf(in.Cursor)
			if err != nil {
				return memoriesOut{}, err
			}
			ms, err := c.svc.ListMemory(ctx, scope, in.ScopeID)
			if err != nil {
				return memoriesOut{}, err
			}
			page, next := pageOf(resume.ViewMemories(ms), off, limitOr(in.Limit, defaultListLimit))
			return memoriesOut{Memories: page, NextCursor: next}, nil
		})
}
