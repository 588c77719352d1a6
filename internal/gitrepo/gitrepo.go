// Package gitrepo reads a git repository's layout from its files, without
// starting git: where the work tree holding a directory begins, whether it
// is the main work tree or a linked one (git worktree add, Claude Code's
// .claude/worktrees/<name>), and where the main work tree and the common
// directory are. Hooks run on a coding agent's critical path, so a process
// start (a few milliseconds) is avoided; what is read is what git itself
// reads (gitrepository-layout(5)): a .git directory, or a .git file saying
// "gitdir: <path>", and in a linked work tree's git directory the
// "commondir" file naming the repository's common directory.
package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Kind tells what holds a directory.
type Kind int

// Kinds of checkout.
const (
	// None: no git work tree holds the directory.
	None Kind = iota
	// Main: the repository's main work tree (its .git is a directory).
	Main
	// Linked: a linked work tree (git worktree add); its .git file points
	// into <common>/worktrees/<name>.
	Linked
	// Submodule: a submodule's work tree; it is a repository of its own.
	Submodule
	// Bare: the directory is (inside) a bare repository, which has no work
	// tree.
	Bare
)

func (k Kind) String() string {
	return [...]string{"none", "main", "linked", "submodule", "bare"}[k]
}

// Repo is what holds a directory.
type Repo struct {
	Kind Kind
	// Top is the top of the work tree holding the directory ("" for None
	// and Bare).
	Top string
	// GitDir is the work tree's own git directory (.git, or
	// <common>/worktrees/<name> for a linked work tree).
	GitDir string
	// CommonDir is the repository's common directory (objects, refs,
	// hooks, config): the same for every work tree of one repository.
	CommonDir string
	// MainTop is the top of the repository's main work tree ("" when the
	// repository is bare).
	MainTop string
}

// Error is a layout git itself would reject or that has no main work
// tree; its message names the cause and the way out.
type Error struct {
	Dir string
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Find returns what holds dir (an absolute, cleaned directory), walking up
// like git does from dir to the root. It does not follow GIT_DIR and the
// like: see FromEnv. A directory outside any repository is Kind None, no
// error.
func Find(dir string) (Repo, error) {
	for d := dir; ; {
		r, ok, err := At(d)
		if err != nil || ok {
			return r, err
		}
		up := filepath.Dir(d)
		if up == d {
			return Repo{}, nil
		}
		d = up
	}
}

// At tells whether d itself is the top of a work tree (it has a .git
// entry) or a bare repository, and what it is; ok is false when it is
// neither.
func At(d string) (Repo, bool, error) {
	r, ok, err := TopAt(d)
	if ok || err != nil {
		return r, ok, err
	}
	if isBareDir(d) {
		return Repo{Kind: Bare, GitDir: d, CommonDir: d}, true, nil
	}
	return Repo{}, false, nil
}

// TopAt tells whether d is the top of a work tree (it has a .git entry),
// and of which repository; ok is false when it is not. It costs one lstat
// when it is not (no bare-repository test).
func TopAt(d string) (Repo, bool, error) {
	p := filepath.Join(d, ".git")
	fi, err := os.Lstat(p)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// git follows a .git symbolic link: to a directory, or to a
		// .git file (anything else is refused when read).
		if t, serr := os.Stat(p); serr == nil {
			fi = t
		}
	}
	switch {
	case err == nil && fi.IsDir():
		r := Repo{Kind: Main, Top: d, GitDir: p, CommonDir: p, MainTop: d}
		if isSubmoduleDir(p) {
			r.Kind = Submodule // an old-style submodule with its own .git
		}
		return r, true, nil
	case err == nil:
		r, err := fromGitFile(d, p)
		return r, true, err
	case !errors.Is(err, fs.ErrNotExist):
		if errors.Is(err, syscall.ENOTDIR) {
			return Repo{}, false, nil // d is a file
		}
		return Repo{}, false, &Error{Dir: d, Msg: fmt.Sprintf("cannot read %s: %v", p, unwrapPath(err))}
	}
	return Repo{}, false, nil
}

// fromGitFile reads a .git file ("gitdir: <path>") at top.
func fromGitFile(top, p string) (Repo, error) {
	b, err := readBounded(p, MaxLineFile, false)
	if err != nil {
		return Repo{}, layoutErr(top, p, MaxLineFile, err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r"), "gitdir:")
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" {
		return Repo{}, &Error{Dir: top, Msg: fmt.Sprintf("%s is not a valid .git file (expected \"gitdir: <path>\"); repair it, or pass --dir/BB_DIR naming the board's project", p)}
	}
	gitDir := rest
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(top, gitDir)
	}
	gitDir = filepath.Clean(gitDir)
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return Repo{}, &Error{Dir: top, Msg: fmt.Sprintf("%s points to %s, which does not exist (was the main work tree moved or deleted?); run 'git worktree repair' in the main work tree, or pass --dir/BB_DIR naming the board's project", p, gitDir)}
	}
	common := gitDir
	if c, err := readBounded(filepath.Join(gitDir, "commondir"), MaxLineFile, false); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitDir, cd)
		}
		common = filepath.Clean(cd)
		if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
			return Repo{}, &Error{Dir: top, Msg: fmt.Sprintf("the repository of the work tree %s (%s) does not exist; run 'git worktree repair' in the main work tree, or pass --dir/BB_DIR naming the board's project", top, common)}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Repo{}, layoutErr(top, filepath.Join(gitDir, "commondir"), MaxLineFile, err)
	}
	r := Repo{Kind: Linked, Top: top, GitDir: gitDir, CommonDir: common}
	if common == gitDir {
		// No commondir: a submodule (gitdir in the superproject's
		// .git/modules) or a clone with --separate-git-dir.
		r.Kind = Main
		if isSubmoduleDir(gitDir) {
			r.Kind = Submodule
		}
		r.MainTop = top
		return r, nil
	}
	r.MainTop = mainTop(common)
	if r.MainTop == "" {
		return r, &Error{Dir: top, Msg: fmt.Sprintf("the work tree %s belongs to the bare repository %s, which has no main work tree to hold the board; pass --dir/BB_DIR naming the board's project (bb init --dir <dir> creates one)", top, common)}
	}
	if fi, err := os.Stat(r.MainTop); err != nil || !fi.IsDir() {
		return r, &Error{Dir: top, Msg: fmt.Sprintf("the main work tree %s of %s no longer exists; pass --dir/BB_DIR naming the board's project", r.MainTop, top)}
	}
	return r, nil
}

// mainTop is the main work tree of the repository whose common directory
// is common: core.worktree when set, else the parent of a ".git" common
// directory; "" when the repository is bare.
func mainTop(common string) string {
	bare, wt := readCore(filepath.Join(common, "config"))
	if wt != "" {
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(common, wt)
		}
		return filepath.Clean(wt)
	}
	if bare || filepath.Base(common) != ".git" {
		return ""
	}
	return filepath.Dir(common)
}

// readCore reads core.bare and core.worktree from a git config file (the
// [core] section only; includes are not followed).
func readCore(p string) (bare bool, worktree string) {
	b, err := readBounded(p, MaxConfig, true)
	if err != nil {
		return false, ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	inCore := false
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			sec := strings.ToLower(strings.Trim(l, "[] \t"))
			inCore = sec == "core"
			continue
		}
		if !inCore {
			continue
		}
		k, v, _ := strings.Cut(l, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		v = strings.Trim(v, `"`)
		switch k {
		case "bare":
			bare = strings.EqualFold(v, "true") || v == "1" || strings.EqualFold(v, "yes") || strings.EqualFold(v, "on")
		case "worktree":
			worktree = v
		}
	}
	return bare, worktree
}

// isSubmoduleDir reports whether a git directory is a submodule's: it lives
// under a superproject's .git/modules/.
func isSubmoduleDir(gitDir string) bool {
	s := filepath.ToSlash(gitDir)
	return strings.Contains(s, "/.git/modules/")
}

// isBareDir reports whether d looks like a bare repository (HEAD, objects
// and refs, with core.bare set).
func isBareDir(d string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(d, n)); err != nil {
			return false
		}
	}
	bare, _ := readCore(filepath.Join(d, "config"))
	return bare
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// FromEnv applies git's environment to a lookup from dir: with GIT_DIR set
// (git sets it for its hooks), the git directory is GIT_DIR and the work
// tree GIT_WORK_TREE, else dir's nearest work tree. ok is false when the
// environment asks for a search git alone can do (GIT_CEILING_DIRECTORIES,
// GIT_DISCOVERY_ACROSS_FILESYSTEM).
func FromEnv(getenv func(string) string, dir string) (Repo, bool, error) {
	if getenv("GIT_CEILING_DIRECTORIES") != "" || getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM") != "" {
		return Repo{}, false, nil
	}
	gd := getenv("GIT_DIR")
	if gd == "" {
		r, err := Find(dir)
		return r, true, err
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	gd = filepath.Clean(gd)
	top := getenv("GIT_WORK_TREE")
	if top != "" && !filepath.IsAbs(top) {
		top = filepath.Join(dir, top)
	}
	if top == "" {
		// git runs hooks at the top of the work tree with GIT_DIR set.
		r, err := Find(dir)
		if err != nil || r.Kind == None {
			return r, true, err
		}
		top = r.Top
	}
	top = filepath.Clean(top)
	common := gd
	if c, err := readBounded(filepath.Join(gd, "commondir"), MaxLineFile, false); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gd, cd)
		}
		common = filepath.Clean(cd)
	}
	r := Repo{Kind: Main, Top: top, GitDir: gd, CommonDir: common, MainTop: top}
	if common != gd {
		r.Kind, r.MainTop = Linked, mainTop(common)
	} else if isSubmoduleDir(gd) {
		r.Kind = Submodule
	}
	return r, true, nil
}

// Rel maps dir, inside r's work tree, to the same place in the main work
// tree (for a linked work tree); for any other kind it is dir itself.
func (r Repo) Rel(dir string) string {
	if r.Kind != Linked || r.MainTop == "" {
		return dir
	}
	rel, err := filepath.Rel(r.Top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return r.MainTop
	}
	return filepath.Join(r.MainTop, rel)
}

// SameRepository reports whether two common directories name one
// repository (compared after resolving symbolic links).
func SameRepository(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// Branch is the branch checked out in r's work tree, read from its HEAD
// file: the name after refs/heads/, a short commit hash when detached, ""
// when unreadable.
func (r Repo) Branch() string {
	if r.GitDir == "" {
		return ""
	}
	b, err := readBounded(filepath.Join(r.GitDir, "HEAD"), MaxLineFile, false)
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			return name
		}
		return ref
	}
	if len(head) > 12 {
		head = head[:12]
	}
	return head
}

// WorktreeName is r's work tree as people name it: "." for the main work
// tree, its path relative to the main work tree when inside it
// (".claude/worktrees/auth"), else its absolute path.
func (r Repo) WorktreeName() string {
	if r.Top == "" {
		return ""
	}
	if r.MainTop == "" || r.Kind != Linked {
		return "."
	}
	rel, err := filepath.Rel(r.MainTop, r.Top)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r.Top)
	}
	return filepath.ToSlash(rel)
}
