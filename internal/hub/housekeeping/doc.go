// Package housekeeping is what the operator does to the board as a whole:
// clearing old messages, offline agents and board artifacts (bb clear,
// with a plan of what would go first), and exporting everything in one
// snapshot (bb export). Both need the operator's rights.
//
// It is built over the kernel (*hub.Service); internal/app composes it
// with the kernel's roles into the API the surfaces use.
package housekeeping

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the board's housekeeping over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the housekeeping over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }

// API is the housekeeping's role.
type API interface {
	Clear(ctx context.Context, in ClearInput) (ClearPlan, error)
	PlanClear(ctx context.Context, in ClearInput) (ClearPlan, error)
	Export(ctx context.Context) (Export, error)
}

var _ API = (*Service)(nil)
