package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// idFile caches a repository's fingerprint in its common directory, so
// git is started once per clone, not once per command.
const idFile = "bb-repository-id"

// ShallowID is the fingerprint of a shallow clone (git clone --depth):
// its history is cut, so its root commit, and which repository it is a
// clone of, cannot be told.
const ShallowID = "shallow"

// ID is the fingerprint of r's repository: the hash of its root commit
// (the smallest, when histories were joined), the same in every clone and
// work tree. It is read from the cache file in the common directory, or,
// the first time, asked of git (git rev-list --max-parents=0 HEAD) and
// cached. ShallowID for a shallow clone (git lists its cut-off points in
// the common directory's "shallow" file; never cached, so that a clone
// deepened with git fetch --unshallow is told). "" when the repository
// has no commit yet or git cannot tell.
func ID(ctx context.Context, r Repo) string {
	if r.CommonDir == "" || r.Top == "" {
		return ""
	}
	p := filepath.Join(r.CommonDir, idFile)
	if b, err := readBounded(p, MaxLineFile, false); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id
		}
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "shallow")); err == nil {
		return ShallowID
	}
	out, err := Run(ctx, r.Top, nil, "rev-list", "--max-parents=0", "HEAD")
	if err != nil {
		return ""
	}
	roots := strings.Fields(string(out))
	if len(roots) == 0 {
		return ""
	}
	sort.Strings(roots)
	_ = os.WriteFile(p, []byte(roots[0]+"\n"), 0o644) // a cache: a read-only repository just asks git again
	return roots[0]
}
