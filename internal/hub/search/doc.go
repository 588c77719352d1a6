// Package search is the board's full-text search as people and scripts
// use it: a typed query (words and "quoted phrases", filters by kind,
// agent and age) parsed into terms, run against the store's index, and
// each match returned with a snippet and the byte ranges of the matched
// words. The index itself, the words of a text and the ranking belong to
// the kernel's store contract (hub.SearchTx, hub.Words, hub.SearchScore).
//
// It is built over the kernel (*hub.Service); internal/app composes it
// with the kernel's roles into the API the surfaces use.
package search

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the full-text search over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the search over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }

// API is the search's role.
type API interface {
	Search(ctx context.Context, q Query) (Result, error)
}

var _ API = (*Service)(nil)
