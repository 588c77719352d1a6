package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Shared memory (seed 002, as bb memory).

type memorySetIn struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	Scope     string `json:"scope,omitempty" jsonschema:"global (default)|project|task|agent"`
	ScopeID   string `json:"scope_id,omitempty" jsonschema:"id of the project, task or agent"`
	ExpiresIn string `json:"expires_in,omitempty" jsonschema:"time to live: 90m, 2h, 7d"`
}

type memoryGetIn struct {
	Key     string `json:"key,omitempty" jsonschema:"omit to list the scope"`
	Scope   string `json:"scope,omitempty"`
	ScopeID string `json:"scope_id,omitempty"`
}

type memoriesOut struct {
	Memories []hub.MemoryView `json:"memories"`
}

func (s *Server) addMemoryTools() {
	addTool(s, tool{name: "bb_memory_set", needsID: true,
		desc: "Remember a fact for every agent and later sessions (build command, decision, gotcha), optionally scoped or expiring."},
		func(ctx context.Context, c *call, in memorySetIn) (hub.MemoryWriteResult, error) {
			mi := hub.MemoryInput{Key: in.Key, Value: in.Value, Scope: in.Scope, ScopeID: in.ScopeID}
			if in.ExpiresIn != "" {
				d, err := hub.ParseExpiresIn(in.ExpiresIn)
				if err != nil {
					return hub.MemoryWriteResult{}, err
				}
				mi.ExpiresIn = d
			}
			return c.svc.SetMemory(ctx, c.agent, mi)
		})

	addTool(s, tool{name: "bb_memory_get", readOnly: true,
		desc: "Recall one remembered value by key, or list a scope's memory."},
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
				return memoriesOut{Memories: []hub.MemoryView{hub.ViewMemory(m)}}, nil
			}
			ms, err := c.svc.ListMemory(ctx, scope, in.ScopeID)
			out := memoriesOut{Memories: hub.ViewMemories(ms)}
			if out.Memories == nil {
				out.Memories = []hub.MemoryView{}
			}
			return out, err
		})
}
