package artifacts

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Input registers (upserts) a board artifact.
type Input struct {
	Agent       string
	Path        string
	Description string
	Version     *string
	Refs        []hub.Ref
}

// AddArtifact upserts the artifact at in.Path: registering a path again
// replaces producer, description, version, refs and time.
func (s *Service) AddArtifact(ctx context.Context, in Input) (hub.Artifact, bool, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return hub.Artifact{}, false, err
	}
	if err := s.kernel.CheckBoardAgent(ctx, in.Agent); err != nil {
		return hub.Artifact{}, false, err
	}
	path, err := hub.CleanArtifactPath(s.kernel.ProjectRoot, in.Path)
	if err != nil {
		return hub.Artifact{}, false, err
	}
	if err := hub.CheckLen("description", in.Description, hub.MaxArtifactDescLen); err != nil {
		return hub.Artifact{}, false, err
	}
	if in.Version != nil {
		if err := hub.CheckLen("version", *in.Version, hub.MaxVersionLen); err != nil {
			return hub.Artifact{}, false, err
		}
	}
	refs, err := hub.ValidateRefs(in.Refs)
	if err != nil {
		return hub.Artifact{}, false, err
	}
	type res struct {
		A   hub.Artifact
		New bool
	}
	r, err := hub.Write(ctx, s.kernel, in, func(tx hub.Tx) (res, error) {
		now := s.kernel.Now()
		a := hub.Artifact{Path: path, ProducedBy: in.Agent, Description: in.Description, Version: in.Version, Refs: refs, CreatedAt: now, UpdatedAt: now}
		created, err := tx.UpsertBoardArtifact(ctx, &a)
		if err != nil {
			return res{}, err
		}
		e := s.kernel.Event(hub.EventArtifactRegistered, in.Agent, map[string]any{"id": a.ID, "path": a.Path, "new": created})
		e.Message = a.Path + ": " + hub.Preview(a.Description, 100)
		return res{a, created}, tx.AppendEvent(ctx, e)
	})
	return r.A, r.New, err
}

// ArtifactByPath returns one board artifact.
func (s *Service) ArtifactByPath(ctx context.Context, p string) (hub.Artifact, error) {
	path, err := hub.CleanArtifactPath("", p)
	if err != nil {
		return hub.Artifact{}, err
	}
	a, err := hub.Read(ctx, s.kernel, func(tx hub.Tx) (*hub.Artifact, error) { return tx.BoardArtifactByPath(ctx, path) })
	if err != nil {
		return hub.Artifact{}, err
	}
	if a == nil {
		return hub.Artifact{}, hub.Errorf(hub.CodeNotFound, "artifact %q not found", path)
	}
	return *a, nil
}

// Query filters board artifacts.
type Query struct {
	By    string
	Ref   *hub.Ref
	Limit int
}

// Artifacts lists board artifacts, most recently registered first.
func (s *Service) Artifacts(ctx context.Context, q Query) ([]hub.Artifact, error) {
	f := hub.ArtifactFilter{By: q.By, Ref: q.Ref, Limit: hub.ClampLimit(q.Limit, hub.DefaultArtifactsLimit, hub.MaxArtifactsLimit)}
	return hub.Read(ctx, s.kernel, func(tx hub.Tx) ([]hub.Artifact, error) { return tx.ListBoardArtifacts(ctx, f) })
}

// RefMatches is what `bb refs` finds.
type RefMatches struct {
	Messages  []hub.Message
	Artifacts []hub.Artifact
}

// FindRefs returns every message and artifact that carries ref. A numeric
// ref matches its decimal text ("13" and 13 are the same ref).
func (s *Service) FindRefs(ctx context.Context, ref hub.Ref) (RefMatches, error) {
	return hub.Read(ctx, s.kernel, func(tx hub.Tx) (RefMatches, error) {
		msgs, err := tx.ListMessages(ctx, hub.MessageFilter{Ref: &ref})
		if err != nil {
			return RefMatches{}, err
		}
		arts, err := tx.ListBoardArtifacts(ctx, hub.ArtifactFilter{Ref: &ref})
		return RefMatches{Messages: msgs, Artifacts: arts}, err
	})
}
