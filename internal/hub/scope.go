package hub

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"
)

// MaxScopeLen bounds a reservation scope (bytes, after canonicalization).
const MaxScopeLen = 4096

// Scope is a canonical reservation scope (seed 001 §5.1): an absolute path
// with '/' separators, no trailing slash (except the root), case-folded on
// Windows. Wildcard records that it was given as "dir/*" ("this directory
// and below"); for overlap checks every scope covers itself and everything
// below it, so Wildcard does not change the classification.
type Scope struct {
	Path     string
	Wildcard bool
}

// Overlap classes of two scopes (seed 001 §5.2).
type Overlap string

// Overlap classes.
const (
	OverlapExact    Overlap = "exact"
	OverlapPartial  Overlap = "partial"
	OverlapDisjoint Overlap = "disjoint"
)

// foldCase reports whether scopes are compared case-insensitively (Windows).
var foldCase = runtime.GOOS == "windows"

// CanonicalPath turns an absolute or relative OS path into the canonical
// slash form: relative paths resolve against wd (like path.resolve), '\' is
// a separator, "." and ".." are resolved lexically, the trailing slash is
// removed (except for the root), and Windows paths are lowercased.
func CanonicalPath(wd, p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	wd = strings.ReplaceAll(wd, `\`, "/")
	vol := ""
	if foldCase {
		// Keep a drive letter ("c:") in front of the path.
		if v := filepath.VolumeName(p); v != "" {
			vol, p = strings.ToLower(v), p[len(v):]
		} else if v := filepath.VolumeName(wd); v != "" {
			vol, wd = strings.ToLower(v), wd[len(v):]
		}
	}
	if !strings.HasPrefix(p, "/") {
		p = wd + "/" + p
	}
	c := path.Clean("/" + p)
	if foldCase {
		c = strings.ToLower(c)
	}
	return vol + c
}

// CanonicalScope canonicalizes a scope given on the command line. raw may
// end in "/*" (or be "*"): this directory and below. Other glob characters
// are refused (seed 001 §5.2: globs beyond a suffix '*' are out of scope).
// The result must lie inside root (the project directory) when root is set.
func CanonicalScope(root, wd, raw string) (Scope, error) {
	s := raw // not trimmed: a name may begin or end with a space
	if strings.TrimSpace(s) == "" {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "{field} cannot be empty")
	}
	if len(s) > MaxScopeLen || !utf8.ValidString(s) || HasControl(s) {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "invalid scope: at most %d bytes of UTF-8 text without control characters", MaxScopeLen)
	}
	var sc Scope
	norm := strings.ReplaceAll(s, `\`, "/")
	if norm == "*" || strings.HasSuffix(norm, "/*") {
		sc.Wildcard = true
		norm = strings.TrimSuffix(norm, "*")
		if norm == "" {
			norm = "."
		}
	}
	if strings.Contains(norm, "*") {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "invalid scope %q: only a trailing /* wildcard is supported (e.g. src/lib/*)", raw)
	}
	sc.Path = CanonicalPath(wd, norm)
	if root != "" {
		r := CanonicalPath("/", root)
		if !IsWithin(r, sc.Path) {
			return Scope{}, FieldErr(CodeInvalidArgs, "scope", "scope %q is outside the project %s", raw, r)
		}
		p, err := resolveScope(root, r, sc.Path)
		if err != nil {
			return Scope{}, FieldErr(CodePathTraversal, "scope", "scope %q %s", raw, err.Error())
		}
		sc.Path = p
	}
	if len(sc.Path) > MaxScopeLen {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "scope too long: %d bytes (max %d)", len(sc.Path), MaxScopeLen)
	}
	return sc, nil
}

// resolveScope follows the symbolic links along a canonical scope inside
// the project the way artifact paths are checked (resolvePath: dangling
// links are followed to their missing target) and returns the scope of the
// place it leads to, under the project's canonical path r, so two scopes
// naming one directory through different links overlap. A scope whose links
// lead outside the project is an error. When the project directory itself
// cannot be resolved (it does not exist), the scope stays as given.
func resolveScope(root, r, scope string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return scope, nil
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(scope, r), "/")
	real, err := resolvePath(filepath.Join(realRoot, filepath.FromSlash(rel)))
	if err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		return "", fmt.Errorf("cannot be checked: %v", err)
	}
	back, err := filepath.Rel(realRoot, real)
	if err != nil || back == ".." || strings.HasPrefix(back, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("leads outside the project through a symbolic link (to %s)", real)
	}
	return CanonicalPath(r, filepath.ToSlash(back)), nil
}

// IsWithin reports whether p is dir or below it (both canonical).
func IsWithin(dir, p string) bool {
	if dir == p {
		return true
	}
	if strings.HasSuffix(dir, "/") { // the root
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+"/")
}

// ClassifyOverlap compares two canonical scope paths (seed 001 §5.2):
// exact when equal, partial when one is an ancestor of the other, else
// disjoint.
func ClassifyOverlap(a, b string) Overlap {
	switch {
	case a == b:
		return OverlapExact
	case IsWithin(a, b), IsWithin(b, a):
		return OverlapPartial
	}
	return OverlapDisjoint
}

// Ancestors returns the proper ancestors of a canonical path, root first
// ("/a/b/c" → "/", "/a", "/a/b").
func Ancestors(p string) []string {
	var out []string
	start := strings.Index(p, "/")
	if start < 0 || len(p) <= start+1 {
		return nil // the root has no ancestors
	}
	out = append(out, p[:start+1])
	for i := start + 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// DescendantRange returns [lo, hi) such that, in byte order, every path
// strictly below p (and nothing else but p itself, for the root) lies in
// it: "/a" → ["/a/", "/a0"), as '0' is the byte after '/'.
func DescendantRange(p string) (lo, hi string) {
	if strings.HasSuffix(p, "/") { // the root
		return p, p[:len(p)-1] + "0"
	}
	return p + "/", p + "0"
}

// Display renders the scope relative to root ("src/lib/*", "." for the
// root itself, "*" for everything), or absolute when outside it.
func (s Scope) Display(root string) string {
	r := CanonicalPath("/", root)
	rel := s.Path
	switch {
	case root == "":
	case s.Path == r:
		rel = "."
	case IsWithin(r, s.Path):
		rel = strings.TrimPrefix(strings.TrimPrefix(s.Path, r), "/")
	}
	if !s.Wildcard {
		return rel
	}
	if rel == "." {
		return "*"
	}
	if strings.HasSuffix(rel, "/") {
		return rel + "*"
	}
	return rel + "/*"
}
