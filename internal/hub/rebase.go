package hub

import "context"

// RebaseScopes makes an older board's scopes relative, once: every
// reservation (active or not) whose scope is an absolute path under the
// top of the repository's work tree gets the relative form; others (paths
// that were outside it) are kept as they are. It is a no-op, after one
// read, once done; a board without a project root is left alone. It
// returns how many rows changed.
func (s *Service) RebaseScopes(ctx context.Context) (int, error) {
	if s.ProjectRoot == "" {
		return 0, nil
	}
	rec, err := Read(ctx, s, func(tx Tx) (RepositoryRecord, error) { return tx.GetRepository(ctx) })
	if err != nil || rec.Scopes != ScopesAbsolute {
		return 0, err
	}
	top := s.RepositoryTop()
	n := 0
	err = s.Store.Write(ctx, func(tx Tx) error {
		rec, err := tx.GetRepository(ctx)
		if err != nil || rec.Scopes != ScopesAbsolute {
			return err
		}
		if n, err = tx.RebaseScopes(ctx, func(p string) (string, bool) { return RebaseScope(top, p) }); err != nil {
			return err
		}
		rec.Scopes = ScopesRelative
		return tx.PutRepository(ctx, rec)
	})
	return n, err
}
