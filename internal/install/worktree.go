package install

import (
	"path/filepath"
	"strings"
)

// Claude Code creates a work tree for a --worktree session, a subagent
// with isolation: "worktree" and each desktop-app session under
// .claude/worktrees/<name>, and starts the session there. A git-ignored
// file such as .claude/settings.local.json (where bb writes its hooks) is
// not in a new work tree, so such a session would run none of bb's hooks.
// Claude Code copies into each work tree it creates the git-ignored files
// that match a pattern of .worktreeinclude at the repository root
// (gitignore syntax): https://code.claude.com/docs/en/worktrees ("Copy
// gitignored files to worktrees"). bb install claude adds its hook file
// there; the copied hooks pin the main work tree's board (--dir) and check
// paths relative to the work tree the session runs in.

// worktreeIncludeFile is the file Claude Code reads at the repository root.
const worktreeIncludeFile = ".worktreeinclude"

const worktreeIncludeComment = "# Blackboard (bb install): the hooks of sessions in Claude Code work trees"

// hasLine reports whether text has line l (ignoring surrounding blanks
// and a leading "/").
func hasLine(text, l string) bool {
	for _, x := range strings.Split(text, "\n") {
		x = strings.TrimSpace(x)
		if x == l || x == "/"+l {
			return true
		}
	}
	return false
}

// addWorktreeInclude appends pattern to .worktreeinclude at base (created
// when missing), recording the lines it added.
func (ie *Env) addWorktreeInclude(pattern string) (*FileChange, error) {
	f, err := ie.file(filepath.Join(ie.base, worktreeIncludeFile), "worktreeinclude")
	if err != nil {
		return nil, err
	}
	pattern = filepath.ToSlash(pattern)
	if hasLine(f.cur, pattern) {
		return f, nil
	}
	if !f.existed && f.cur == "" {
		f.rec.Created = true
	}
	nl := "\n"
	if strings.Contains(f.cur, "\r\n") {
		nl = "\r\n"
	}
	text := f.cur
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += nl
	}
	var added []string
	if !hasLine(text, worktreeIncludeComment) {
		added = append(added, worktreeIncludeComment)
	}
	added = append(added, pattern)
	f.cur = text + strings.Join(added, nl) + nl
	f.rec.Lines = append(f.rec.Lines, added...)
	return f, nil
}

// removeWorktreeInclude removes the lines install added to
// .worktreeinclude; a file install created goes when nothing else is left.
func (ie *Env) removeWorktreeInclude() (*FileChange, error) {
	f, err := ie.file(filepath.Join(ie.base, worktreeIncludeFile), "worktreeinclude")
	if err != nil || !f.existed || len(f.rec.Lines) == 0 {
		return f, err
	}
	drop := map[string]bool{}
	for _, l := range f.rec.Lines {
		drop[l] = true
	}
	var kept []string
	for _, l := range strings.SplitAfter(f.cur, "\n") {
		if l == "" || drop[strings.TrimSpace(l)] {
			continue
		}
		kept = append(kept, l)
	}
	f.cur = strings.Join(kept, "")
	f.rec.Lines = nil
	if f.rec.Created && strings.TrimSpace(f.cur) == "" {
		f.delete = true
	}
	return f, nil
}
