package bb

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePorcelainZ(t *testing.T) {
	out := " M src/a.go\x00?? new dir/file.txt\x00R  src/new.go\x00src/old.go\x00A  ../x\x00"
	got := strings.Join(parsePorcelainZ("/repo", []byte(out)), ",")
	if got != "src/a.go,new dir/file.txt,src/new.go" { // relative to the work tree's top; ../x is outside it
		t.Fatalf("got %s", got)
	}
}

// FuzzParsePorcelainZ: any git output parses without panicking into
// canonical paths relative to the work tree's top, at most one per record.
func FuzzParsePorcelainZ(f *testing.F) {
	f.Add([]byte(" M a\x00R  b\x00c\x00?? d/e\x00"))
	f.Add([]byte("R  only\x00"))
	f.Add([]byte("\x00\x00XY"))
	f.Fuzz(func(t *testing.T, out []byte) {
		files := parsePorcelainZ("/repo", out)
		if len(files) > strings.Count(string(out), "\x00")+1 {
			t.Fatalf("%d files from %d records", len(files), strings.Count(string(out), "\x00")+1)
		}
		for _, f := range files {
			if strings.HasPrefix(f, "/") || strings.Contains(f, "//") || f == ".." || strings.HasPrefix(f, "../") {
				t.Fatalf("not canonical: %q", f)
			}
		}
	})
}

// TestGitWorkTreeAgreesWithGit: the work tree found without starting git is
// the one `git rev-parse --show-toplevel` names, in a checkout, below it, in
// a linked work tree (.git is a file there) and outside any repository; and
// git's environment hands the question to git.
func TestGitWorkTreeAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	run := func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	repo := filepath.Join(base, "repo")
	deep := filepath.Join(repo, "a", "b")
	outside := filepath.Join(base, "plain", "dir")
	for _, d := range []string{deep, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(repo, "init", "-q")
	run(repo, "commit", "-q", "--allow-empty", "-m", "x")
	linked := filepath.Join(base, "linked")
	run(repo, "worktree", "add", "-q", linked)
	noEnv := func(string) string { return "" }
	for _, dir := range []string{repo, deep, linked, outside} {
		top, found := gitWorkTree(noEnv, dir)
		if !found {
			t.Fatalf("%s: not decided without git", dir)
		}
		want := ""
		c := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel")
		if out, err := c.Output(); err == nil {
			want = strings.TrimSpace(string(out))
		}
		if top != want {
			t.Errorf("%s: found %q, git says %q", dir, top, want)
		}
	}
	if _, found := gitWorkTree(func(k string) string {
		if k == "GIT_DIR" {
			return filepath.Join(repo, ".git")
		}
		return ""
	}, outside); found {
		t.Error("GIT_DIR set: the search must be left to git")
	}
}
