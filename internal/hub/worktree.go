package hub

import (
	"path/filepath"
	"sync"

	"github.com/blackboard-hub/bb/internal/gitrepo"
)

// workTrees knows the git repository the board serves (the one holding
// its project root), read once from the repository's files.
type workTrees struct {
	once sync.Once
	repo gitrepo.Repo
	// inGit is false when the project is in no git repository: scopes are
	// then relative to the project root, as before repositories counted.
	inGit bool
}

// boardRepo is the repository holding the project root.
func (s *Service) boardRepo() (gitrepo.Repo, bool) {
	load := func(w *workTrees) {
		if s.ProjectRoot == "" {
			return
		}
		r, err := gitrepo.Find(filepath.Clean(s.ProjectRoot))
		if err == nil && r.Top != "" && (r.Kind == gitrepo.Main || r.Kind == gitrepo.Linked || r.Kind == gitrepo.Submodule) {
			w.repo, w.inGit = r, true
		}
	}
	if s.trees == nil {
		var w workTrees
		load(&w)
		return w.repo, w.inGit
	}
	s.trees.once.Do(func() { load(s.trees) })
	return s.trees.repo, s.trees.inGit
}

// RepositoryTop is the top of the work tree holding the project root (the
// project root itself outside git): what repository-relative paths, such
// as those a clone sends through bb serve, are relative to.
func (s *Service) RepositoryTop() string {
	if r, ok := s.boardRepo(); ok {
		return r.Top
	}
	return s.ProjectRoot
}

// workTreeTop finds the top of the work tree of the board's repository
// holding p (an absolute canonical path): the nearest directory, p or
// above, with a .git entry of the same repository (a main work tree, a
// linked one made by git worktree add, or Claude Code's
// .claude/worktrees/<name>). A submodule or another repository nested in a
// work tree is looked through, as its files are the work tree's files.
func (s *Service) workTreeTop(p string) (string, error) {
	repo, ok := s.boardRepo()
	if !ok {
		return s.ProjectRoot, nil
	}
	d := filepath.FromSlash(p)
	if v := filepath.VolumeName(s.ProjectRoot); v != "" && filepath.VolumeName(d) == "" {
		d = v + d
	}
	for {
		r, found, err := gitrepo.TopAt(d)
		if err != nil {
			return "", FieldErr(CodeInvalidArgs, "scope", "%s", err.Error())
		}
		if found && r.Kind != gitrepo.Bare && gitrepo.SameRepository(r.CommonDir, repo.CommonDir) {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", FieldErr(CodeInvalidArgs, "scope", "%s is outside the work tree of every checkout of the repository at %s: give a path inside one", p, repo.MainTop)
		}
		d = up
	}
}

// ScopeOf parses a scope the way reserve and release do: relative scopes
// resolve against wd, and the result is relative to the top of the work
// tree holding it. An empty wd means the scope is already relative to the
// repository's top (what remote clients send).
func (s *Service) ScopeOf(wd, raw string) (Scope, error) {
	if s.ProjectRoot == "" {
		if wd == "" {
			wd = "/"
		}
		return CanonicalScope("", wd, raw)
	}
	if wd == "" {
		top := s.RepositoryTop()
		return CanonicalScope(top, top, raw)
	}
	if _, ok := s.boardRepo(); !ok {
		return CanonicalScope(s.ProjectRoot, wd, raw)
	}
	abs, err := CanonicalScope("", wd, raw) // validates, and places it
	if err != nil {
		return Scope{}, err
	}
	top, err := s.workTreeTop(abs.Path)
	if err != nil {
		return Scope{}, err
	}
	return CanonicalScope(top, wd, raw)
}
