package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Find agrees with git (rev-parse --show-toplevel, --git-common-dir) in a
// main work tree, below it, in linked work trees (beside it and nested in
// it, as Claude Code's .claude/worktrees/<name>), in a submodule and
// outside any repository; it recognizes a bare repository; and ID is the
// root commit, the same in a clone.
func TestFindAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_ALLOW_PROTOCOL=file")
	run := func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	repo := filepath.Join(base, "repo")
	deep := filepath.Join(repo, "a", "b")
	outside := filepath.Join(base, "plain")
	for _, d := range []string{deep, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(repo, "init", "-q")
	run(repo, "commit", "-q", "--allow-empty", "-m", "x")
	linked := filepath.Join(base, "linked")
	run(repo, "worktree", "add", "-q", linked)
	nested := filepath.Join(repo, ".claude", "worktrees", "x")
	run(repo, "worktree", "add", "-q", nested, "-b", "worktree-x")
	lib := filepath.Join(base, "lib")
	run(base, "init", "-q", lib)
	run(lib, "commit", "-q", "--allow-empty", "-m", "lib")
	run(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub")
	sub := filepath.Join(repo, "sub")

	for _, c := range []struct {
		dir  string
		kind Kind
	}{{repo, Main}, {deep, Main}, {linked, Linked}, {nested, Linked}, {filepath.Join(nested, "."), Linked}, {sub, Submodule}, {outside, None}} {
		r, err := Find(c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		if r.Kind != c.kind {
			t.Errorf("%s: kind %s, want %s", c.dir, r.Kind, c.kind)
		}
		if c.kind == None {
			continue
		}
		if top := run(c.dir, "rev-parse", "--show-toplevel"); r.Top != top {
			t.Errorf("%s: top %q, git says %q", c.dir, r.Top, top)
		}
		common := run(c.dir, "rev-parse", "--git-common-dir")
		if !filepath.IsAbs(common) {
			common = filepath.Join(c.dir, common)
		}
		if !SameRepository(r.CommonDir, filepath.Clean(common)) {
			t.Errorf("%s: common dir %q, git says %q", c.dir, r.CommonDir, common)
		}
		if c.kind == Linked && r.MainTop != repo {
			t.Errorf("%s: main work tree %q, want %q", c.dir, r.MainTop, repo)
		}
		if c.kind == Linked && r.Rel(filepath.Join(c.dir, "src")) != filepath.Join(repo, "src") {
			t.Errorf("%s: Rel maps to %q", c.dir, r.Rel(filepath.Join(c.dir, "src")))
		}
	}
	bare := filepath.Join(base, "bare.git")
	run(base, "clone", "-q", "--bare", repo, bare)
	if r, _ := Find(bare); r.Kind != Bare {
		t.Errorf("bare: kind %s", r.Kind)
	}

	// The fingerprint: the root commit, cached, the same in a clone.
	root := run(repo, "rev-list", "--max-parents=0", "HEAD")
	mr, _ := Find(repo)
	if id := ID(context.Background(), mr); id != root {
		t.Fatalf("ID %q, root commit %q", id, root)
	}
	if b, err := os.ReadFile(filepath.Join(mr.CommonDir, idFile)); err != nil || strings.TrimSpace(string(b)) != root {
		t.Fatalf("not cached: %q %v", b, err)
	}
	clone := filepath.Join(base, "clone")
	run(base, "clone", "-q", repo, clone)
	cr, _ := Find(clone)
	lr, _ := Find(linked)
	if ID(context.Background(), cr) != root || ID(context.Background(), lr) != root {
		t.Fatal("a clone or a linked work tree has another fingerprint")
	}
	if lib, _ := Find(lib); ID(context.Background(), lib) == root {
		t.Fatal("another repository has the same fingerprint")
	}
}

// A .git file that is not "gitdir: <path>", or that points nowhere, is an
// error naming the file and the way out.
func TestBrokenGitFile(t *testing.T) {
	d := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{"nonsense\n", "not a valid .git file"},
		{"gitdir: " + filepath.Join(d, "missing") + "\n", "does not exist"},
	} {
		if err := os.WriteFile(filepath.Join(d, ".git"), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Find(filepath.Join(d))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "BB_DIR") {
			t.Errorf("%q: %v", c.content, err)
		}
	}
}

// FuzzGitFile: whatever a .git file holds, Find answers without panicking:
// an error, or a work tree at the file's directory.
func FuzzGitFile(f *testing.F) {
	f.Add("gitdir: ../x\n")
	f.Add("gitdir:\n")
	f.Add("gitdir: .\r\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, content string) {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, ".git"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Find(d)
		if err == nil && r.Top != d {
			t.Fatalf("%q: top %q", content, r.Top)
		}
	})
}
