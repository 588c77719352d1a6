// Package artifacts is the board's register of files and outputs that
// agents produce (a path inside the project, a description, a version,
// the refs it relates to), and the lookup of everything that names a ref
// (bb refs: the messages and artifacts that carry it).
//
// It is built over the kernel (*hub.Service), which keeps the stored
// artifact, the rule for paths inside the project (hub.CleanArtifactPath)
// and refs; internal/app composes it with the kernel's roles into the API
// the surfaces use.
package artifacts

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Service is the artifact register over the kernel.
type Service struct {
	kernel *hub.Service
}

// New builds the artifact register over k.
func New(k *hub.Service) *Service { return &Service{kernel: k} }

// API is the artifact register's role.
type API interface {
	AddArtifact(ctx context.Context, in Input) (hub.Artifact, bool, error)
	ArtifactByPath(ctx context.Context, p string) (hub.Artifact, error)
	Artifacts(ctx context.Context, q Query) ([]hub.Artifact, error)
	FindRefs(ctx context.Context, ref hub.Ref) (RefMatches, error)
}

var _ API = (*Service)(nil)
