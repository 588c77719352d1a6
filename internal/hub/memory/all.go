package memory

import (
	"github.com/blackboard-hub/bb/internal/hub"

	"cmp"
	"context"
	"slices"
)

// ListAllMemory lists the unexpired entries of every scope (and every
// scope id), newest first, at most MaxMemoryList of them: what a person
// asking "what is remembered here?" wants to see, wherever an agent put it
// (without the agent memory the authority table keeps from its caller).
func (s *Service) ListAllMemory(ctx context.Context) ([]hub.Memory, error) {
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]hub.Memory, error) {
		now := s.kernel.Now()
		out := []hub.Memory{}
		for _, scope := range hub.MemoryScopes {
			ms, err := tx.ListMemory(ctx, scope, "", true, now, MaxMemoryList)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				// Another agent's memory its viewer may not read is
				// left out.
				if hub.May(ctx, hub.MemoryTarget(hub.VerbRead, m.Scope, m.ScopeID)) {
					out = append(out, m)
				}
			}
		}
		slices.SortStableFunc(out, func(a, b hub.Memory) int {
			if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
				return c
			}
			return cmp.Compare(b.ID, a.ID)
		})
		return out[:min(len(out), MaxMemoryList)], nil
	})
}
