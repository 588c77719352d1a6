package hub

import (
	"context"
	"fmt"

	"github.com/blackboard-hub/bb/internal/gitrepo"
)

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
	err = s.store.Write(ctx, func(tx Tx) error {
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

// CodeWrongRepository: a checkout of another repository than the one the
// board serves tried to use it (a clone through bb serve).
const CodeWrongRepository Code = "WRONG_REPOSITORY"

// MaxRepoIDLen bounds a repository fingerprint.
const MaxRepoIDLen = 200

// Events of the repository claim.
const (
	EventRepositoryClaimed = "repository.claimed"
	EventRepositoryReset   = "repository.reset"
)

// ClaimRepository checks that a checkout of the repository id (its
// fingerprint: the root commit; "" when the checkout cannot tell, e.g. no
// commit yet or no git) may use this board: the first id the board hears
// from the operator, or from the local board (the first bb serve in a
// checkout), becomes the repository it serves (repository.claimed); any
// other id is refused with WRONG_REPOSITORY, since its paths would
// silently mix with another repository's. Another credential's id on an
// unclaimed board is accepted without claiming it. It returns the board's
// id.
func (s *Service) ClaimRepository(ctx context.Context, id string) (string, error) {
	if id == "" {
		rec, err := Read(ctx, s, func(tx Tx) (RepositoryRecord, error) { return tx.GetRepository(ctx) })
		return rec.RepoID, err
	}
	if len(id) > MaxRepoIDLen || HasControl(id) {
		return "", FieldErr(CodeInvalidInput, "repository", "invalid repository id: at most %d characters without control characters", MaxRepoIDLen)
	}
	rec, err := Read(ctx, s, func(tx Tx) (RepositoryRecord, error) { return tx.GetRepository(ctx) })
	if err != nil {
		return "", err
	}
	if id == gitrepo.ShallowID {
		// Neither accepted nor made the board's: a shallow clone of
		// another repository would mix its paths in unseen.
		board := ""
		if rec.RepoID != "" {
			board = fmt.Sprintf(" (first commit %s)", short(rec.RepoID))
		}
		return rec.RepoID, FieldErr(CodeWrongRepository, "repository",
			"this checkout is a shallow clone: its first commit is cut off, so the board cannot tell that it is a clone of the board's repository%s. {do}",
			board).With(Action{Do: ActUnshallow})
	}
	if rec.RepoID == "" {
		if !May(ctx, Target{Thing: ThingRepository, Verb: VerbClaim, Name: "the board"}) {
			// The claim is the operator's (or the first bb serve in a
			// checkout, which has no credential): a checkout reaching an
			// unclaimed board with another credential is served, and
			// fixes nothing for good.
			return "", nil
		}
		err = s.store.Write(ctx, func(tx Tx) error {
			if rec, err = tx.GetRepository(ctx); err != nil || rec.RepoID != "" {
				return err
			}
			rec.RepoID = id
			if err := tx.PutRepository(ctx, rec); err != nil {
				return err
			}
			e := s.Event(EventRepositoryClaimed, Acting(ctx), map[string]string{"repository": id})
			e.Message = fmt.Sprintf("the board now serves the repository whose first commit is %s", short(id))
			return tx.AppendEvent(ctx, e)
		})
		if err != nil {
			return "", err
		}
	}
	if rec.RepoID != id {
		return rec.RepoID, FieldErr(CodeWrongRepository, "repository",
			"this board serves another repository (first commit %s) than this checkout's (first commit %s): it is not a clone of the board's repository. {do}",
			short(rec.RepoID), short(id)).With(Action{Do: ActOwnBoard})
	}
	return rec.RepoID, nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// RepositoryReset is what ResetRepository did.
type RepositoryReset struct {
	// Was is the repository the board served ("" when it served none).
	Was string `json:"was"`
	// EventID is the repository.reset event (0 when there was nothing to
	// reset).
	EventID int64 `json:"event_id,omitempty"`
}

// ResetRepository forgets the repository the board serves (the
// operator's, by the authority table): the next claim makes the board its
// checkout's again. A board that serves none is left as it is.
func (s *Service) ResetRepository(ctx context.Context) (RepositoryReset, error) {
	if _, err := Authorize(ctx, Target{Thing: ThingRepository, Verb: VerbReset, Name: "the board"}); err != nil {
		return RepositoryReset{}, err
	}
	var out RepositoryReset
	err := s.store.Write(ctx, func(tx Tx) error {
		rec, err := tx.GetRepository(ctx)
		if err != nil || rec.RepoID == "" {
			return err
		}
		out.Was, rec.RepoID = rec.RepoID, ""
		if err := tx.PutRepository(ctx, rec); err != nil {
			return err
		}
		e := s.Event(EventRepositoryReset, Acting(ctx), map[string]string{"was": out.Was})
		e.Message = fmt.Sprintf("the board no longer serves the repository whose first commit is %s: the next checkout to claim it does", short(out.Was))
		if err := tx.AppendEvent(ctx, e); err != nil {
			return err
		}
		out.EventID = e.Seq
		return nil
	})
	return out, err
}
