// Package memory is the board's shared memory: durable key/value entries
// in a scope (global, project, task or agent), with value types, expiry
// and garbage collection (vybe's memory, seed 002). Agents keep notes
// there for each other and for their next session; the resume brief shows
// the relevant ones.
//
// It is built over the kernel (*hub.Service), which keeps the stored
// entry (hub.Memory) and its scopes; internal/app composes it with the
// kernel's roles into the API the surfaces use.
package memory

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the shared memory over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the shared memory over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }

// API is the shared memory's role.
type API interface {
	SetMemory(ctx context.Context, agent string, in Input) (WriteResult, error)
	GetMemory(ctx context.Context, scope, scopeID, key string) (hub.Memory, error)
	ListMemory(ctx context.Context, scope, scopeID string) ([]hub.Memory, error)
	ListAllMemory(ctx context.Context) ([]hub.Memory, error)
	DeleteMemory(ctx context.Context, agent, scope, scopeID, key string) (WriteResult, error)
	GCMemory(ctx context.Context, agent string, limit int) (GCResult, error)
}

var _ API = (*Service)(nil)
