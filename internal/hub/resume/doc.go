// Package resume is an agent's work loop over the kernel: the resume
// brief (what to work on next: the focus task, what changed since the
// agent last looked, the pipeline, what its work unblocks) and push (an
// event, memories, artifacts and a task's status reported in one
// transaction), the statistics of the loop's runs, and the JSON shapes of
// tasks, events, memory and artifacts in vybe's field names. vybe's
// resume/push/status/loop, bb resume and MCP bb_resume use it; each
// surface words the brief itself.
//
// It is built over the kernel (*hub.Service); internal/app composes it
// with the kernel's roles into the API the surfaces use.
package resume

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/memory"
)

// Service is the work loop over the kernel.
type Service struct {
	kernel *hub.Service
	// mem writes the memories a push carries.
	mem *memory.Service
}

// New builds the work loop over k.
func New(k *hub.Service) *Service { return &Service{kernel: k, mem: memory.New(k)} }

// API is the work loop's role.
type API interface {
	Push(ctx context.Context, agent string, in PushInput) (PushResult, error)
	Resume(ctx context.Context, in ResumeInput) (ResumeResult, error)
	PeekResume(ctx context.Context, agent, projectDir string) (PeekResult, error)
	PeekOwnResume(ctx context.Context, agent, projectDir string) (PeekResult, error)
	ListTaskArtifacts(ctx context.Context, taskID string, limit int) ([]ArtifactView, error)
	ListTaskEvents(ctx context.Context, q EventsQuery) ([]EventView, error)
	// TaskStoreStatus counts what is stored (vybe status).
	TaskStoreStatus(ctx context.Context, agent string) (TaskStatus, error)
	// LoopRunStats summarizes the last runs of a work loop.
	LoopRunStats(ctx context.Context, last int, projectID string) (LoopStats, error)
}

var _ API = (*Service)(nil)
