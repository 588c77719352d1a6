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

// Scope is a canonical reservation scope (seed 001 §5.1): a path relative
// to the top of the work tree it was given in ("src/a.go"; "." is the top
// itself), with '/' separators, no trailing slash, case-folded on Windows,
// so that one file is one scope in every work tree and every clone of the
// repository. A board without a project root (and a scope kept from an
// older board that lay outside its project) holds absolute paths, which
// overlap only with each other. Wildcard records that it was given as "dir/*" ("this directory
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

// backslashSeparates reports whether '\' separates path elements, as on
// Windows; elsewhere it is a character a file name may hold (seed 001
// §5.1 normalizes the platform's separators to '/', as path.resolve does).
const backslashSeparates = runtime.GOOS == "windows"

// slashed is p with the platform's separators as '/'.
func slashed(p string) string {
	if backslashSeparates {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// unexpanded reports why a relative scope looks like a path the shell was
// meant to expand and did not (it was quoted): a leading "~" or "~user", or an
// element beginning with "$NAME" or "${". "" when it does not.
func unexpanded(s string) string {
	first, _, _ := strings.Cut(s, "/")
	if strings.HasPrefix(first, "~") {
		return "it begins with " + first + ", which bb does not expand: give the path itself (e.g. $HOME/... unquoted, or relative to the work tree)"
	}
	for el := range strings.SplitSeq(s, "/") {
		if len(el) > 1 && el[0] == '$' && (el[1] == '{' || el[1] == '_' || (el[1] >= 'A' && el[1] <= 'Z') || (el[1] >= 'a' && el[1] <= 'z')) {
			return "it holds " + el + ", a variable bb does not expand: let the shell expand it (no quotes), or give the path itself"
		}
	}
	return ""
}

// CanonicalPath turns an absolute or relative OS path into the canonical
// slash form: relative paths resolve against wd (like path.resolve), '\' is
// a separator, "." and ".." are resolved lexically, the trailing slash is
// removed (except for the root), and Windows paths are lowercased.
func CanonicalPath(wd, p string) string {
	p, wd = slashed(p), slashed(wd)
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
// With root set (the top of the work tree the scope was given in), the
// scope must lie inside root and is returned relative to it ("." for root
// itself); without, it stays absolute.
func CanonicalScope(root, wd, raw string) (Scope, error) {
	s := raw // not trimmed: a name may begin or end with a space
	if strings.TrimSpace(s) == "" {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "{field} cannot be empty")
	}
	if len(s) > MaxScopeLen || !utf8.ValidString(s) || HasControl(s) {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "invalid scope: at most %d bytes of UTF-8 text without control characters", MaxScopeLen)
	}
	var sc Scope
	norm := slashed(s)
	if why := unexpanded(norm); why != "" && !strings.HasPrefix(norm, "/") && !isDrivePath(norm) {
		// A relative scope is typed; an absolute one is a path a client
		// or a shell already expanded, whatever its names hold.
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "invalid scope %q: %s", raw, why)
	}
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
			return Scope{}, FieldErr(CodeInvalidArgs, "scope", "scope %q is outside the work tree %s: give a path inside it (relative to it, or absolute)", raw, r)
		}
		p, err := resolveScope(root, r, sc.Path)
		if err != nil {
			return Scope{}, FieldErr(CodePathTraversal, "scope", "scope %q %s", raw, err.Error())
		}
		sc.Path = relativeTo(r, p)
	}
	if len(sc.Path) > MaxScopeLen {
		return Scope{}, FieldErr(CodeInvalidArgs, "scope", "scope too long: %d bytes (max %d)", len(sc.Path), MaxScopeLen)
	}
	return sc, nil
}

// relativeTo turns canonical p, inside canonical r, into the relative form
// ("." for r itself).
func relativeTo(r, p string) string {
	if p == r {
		return "."
	}
	rel := strings.TrimPrefix(p, r)
	return strings.TrimPrefix(rel, "/")
}

// RelativeScope canonicalizes a path already relative to the top of a
// work tree ("src/a.go", as git names them): separators, "." and "..",
// case folding. ok is false when it is absolute or leaves the work tree.
func RelativeScope(rel string) (string, bool) {
	n := slashed(rel)
	if n == "" || strings.HasPrefix(n, "/") || isDrivePath(n) {
		return "", false
	}
	c := path.Clean(n)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	if foldCase {
		c = strings.ToLower(c)
	}
	return c, true
}

// IsRelative reports whether a canonical scope is relative to a work
// tree's top (the form of every scope of a board with a project).
func IsRelative(p string) bool { return p != "" && !strings.HasPrefix(p, "/") && !isDrivePath(p) }

func isDrivePath(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// RebaseScope turns a scope stored as an absolute path under root (an
// older board's form) into the relative form; ok is false when it is not
// under root (it is kept as it is).
func RebaseScope(root, p string) (string, bool) {
	if root == "" || IsRelative(p) {
		return p, false
	}
	r := CanonicalPath("/", root)
	if !IsWithin(r, p) {
		return p, false
	}
	return relativeTo(r, p), true
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

// IsWithin reports whether p is dir or below it (both canonical). "." (the
// top of the work tree) holds every relative scope; an absolute scope is
// never within a relative one, nor the reverse.
func IsWithin(dir, p string) bool {
	if dir == p {
		return true
	}
	if dir == "." {
		return IsRelative(p)
	}
	if IsRelative(dir) != IsRelative(p) {
		return false
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

// Ancestors returns the proper ancestors of a canonical path, the top
// first ("src/a/b" → ".", "src", "src/a"; "/a/b/c" → "/", "/a", "/a/b").
func Ancestors(p string) []string {
	if IsRelative(p) {
		if p == "." {
			return nil
		}
		out := []string{"."}
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				out = append(out, p[:i])
			}
		}
		return out
	}
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
// strictly below p lies in it: "src" → ["src/", "src0"), as '0' is the
// byte after '/'. For "." (the top) the range is every string, and the
// caller drops what is not relative (ClassifyOverlap says disjoint).
func DescendantRange(p string) (lo, hi string) {
	if p == "." {
		return "", "\U0010FFFF"
	}
	if strings.HasSuffix(p, "/") { // the root
		return p, p[:len(p)-1] + "0"
	}
	return p + "/", p + "0"
}

// Display renders the scope as people read it: relative to the top of the
// work tree ("src/lib/*", "." for the top itself, "*" for everything). An
// absolute scope is shown relative to root when inside it (a board opened
// before its scopes were made relative), else as it is.
func (s Scope) Display(root string) string {
	rel := s.Path
	if !IsRelative(rel) && root != "" {
		if r, ok := RebaseScope(root, rel); ok {
			rel = r
		}
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
