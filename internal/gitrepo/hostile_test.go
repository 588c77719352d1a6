package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A hostile checkout: a .git that is a symbolic link to /dev/zero, a
// FIFO, or a 100 MB file is refused with an error naming the cause, at
// once, instead of read without end, blocked on, or read whole.
func TestHostileGitFileIsRefused(t *testing.T) {
	for _, c := range []struct {
		name, want string
		make       func(p string) error
	}{
		{"symlink to /dev/zero", "a character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"FIFO", "a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"100 MB file", "too large", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := f.WriteString("gitdir: /nowhere\n"); err != nil {
				return err
			}
			return f.Truncate(100 << 20)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.make(filepath.Join(dir, ".git")); err != nil {
				t.Skipf("cannot make the file: %v", err)
			}
			sub := filepath.Join(dir, "src")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := Find(sub)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--dir/BB_DIR") {
				t.Fatalf("Find: %v, want an error saying %q and the way out", err, c.want)
			}
		})
	}
}

// A .git symbolic link to a real git directory is followed, as git does.
func TestGitSymlinkToADirectory(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "store.git")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(real, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(dir, "wt")
	if err := os.Mkdir(top, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(top, ".git")); err != nil {
		t.Fatal(err)
	}
	r, err := Find(top)
	if err != nil || r.Kind != Main || r.Top != top || r.Branch() != "main" {
		t.Fatalf("Find = %+v, %v; want the main work tree %s on main", r, err, top)
	}
}

// HEAD and the config are bounded too: a HEAD that is /dev/zero names no
// branch; a config that is /dev/zero says nothing.
func TestHostileHeadAndConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "HEAD")); err != nil {
		t.Fatal(err)
	}
	if b := (Repo{GitDir: dir}).Branch(); b != "" {
		t.Errorf("Branch of a /dev/zero HEAD = %q", b)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "config")); err != nil {
		t.Fatal(err)
	}
	if bare, wt := readCore(filepath.Join(dir, "config")); bare || wt != "" {
		t.Errorf("readCore of /dev/zero = %v %q", bare, wt)
	}
}
