package procid

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// table is a process table written by hand.
type table map[int]Proc

func (t table) Lookup(pid int) (Proc, bool) { p, ok := t[pid]; return p, ok }

func TestWalk(t *testing.T) {
	tab := table{
		100: {Name: "claude", Parent: 1},
		200: {Name: "bash", Parent: 100},
		300: {Name: "/bin/sh", Parent: 200},
		400: {Name: "node", Parent: 1},
		500: {Name: "pwsh.exe", Parent: 600},
		600: {Name: `C:\Program Files\Codex\codex.exe`, Parent: 4},
		700: {Name: "CMD.EXE", Parent: 500},
		800: {Name: "zsh", Parent: 801},
		801: {Name: "zsh", Parent: 802},
		802: {Name: "zsh", Parent: 803},
		803: {Name: "zsh", Parent: 804},
		804: {Name: "zsh", Parent: 805},
		805: {Name: "zsh", Parent: 806},
		806: {Name: "zsh", Parent: 807},
		900: {Name: "sh", Parent: 0},
		// bb guard check run by git's pre-commit hook, in a commit the
		// agent made through its shell tool.
		1000: {Name: "pre-commit", Parent: 1001},
		1001: {Name: "git", Parent: 1002},
		1002: {Name: "bash", Parent: 1003},
		1003: {Name: "bash", Parent: 100},
	}
	for _, c := range []struct {
		from, want int
		why        string
	}{
		{100, 100, "the parent is the client"},
		{200, 100, "one shell between"},
		{300, 100, "two shells between (a path as name)"},
		{400, 400, "not a shell"},
		{700, 600, "Windows shells, any case, with .exe"},
		{800, 805, "at most five shells are skipped"},
		{1000, 100, "a git hook run by the agent's shell tool"},
		{900, 900, "a shell without a parent"},
		{999, 999, "an unknown process"},
		{1, 1, "init"},
	} {
		if got := Walk(tab, c.from); got != c.want {
			t.Errorf("%s: Walk(%d) = %d, want %d", c.why, c.from, got, c.want)
		}
	}
	if got := Walk(nil, 42); got != 42 {
		t.Errorf("no table: %d", got)
	}
	for from, want := range map[int][]int{
		100:  {100},
		300:  {300, 200, 100},
		1000: {1000, 1001, 1002, 1003, 100},
		999:  {999},
	} {
		if got := WalkPath(tab, from); !slices.Equal(got, want) {
			t.Errorf("WalkPath(%d) = %v, want %v", from, got, want)
		}
	}
}

// TestClientThroughShell: a child started through sh by this test process
// finds this process, as a hook started through a shell finds its client.
func TestClientThroughShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh -c is the POSIX case")
	}
	if os.Getenv("PROCID_CHILD") == "1" {
		os.Stdout.WriteString(strconv.FormatInt(Client(), 10) + "\n")
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// "; exit" keeps sh from exec'ing the child in its place.
	cmd := exec.Command(sh, "-c", `"$0" -test.run '^TestClientThroughShell$'; exit $?`, exe)
	cmd.Env = append(os.Environ(), "PROCID_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got := strings.TrimSpace(strings.Split(string(out), "\n")[0])
	if want := strconv.Itoa(os.Getpid()); got != want {
		t.Fatalf("Client() in a child started through sh = %s, want this process %s", got, want)
	}
}

// TestCrossPlatformVet type-checks this package for the platforms the
// clients run on, whose process tables only their own build reads. Each
// platform needs its own standard library built, minutes on a cold cache,
// so it runs only when asked: BB_TEST_CROSS=1 (set by .ci/run after it has
// built every binary for those platforms, when the cache is warm).
func TestCrossPlatformVet(t *testing.T) {
	if os.Getenv("BB_TEST_CROSS") != "1" {
		t.Skip("vets for darwin and windows only with BB_TEST_CROSS=1 (each builds its own standard library; .ci/run sets it)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	for _, target := range []string{"darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		goos, goarch, _ := strings.Cut(target, "/")
		cmd := exec.Command(goBin, "vet", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go vet for %s: %v\n%s", target, err, out)
		}
	}
}

func TestSession(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cases := []struct {
		env          func(string) string
		client, want string
	}{
		{env("CLAUDECODE", "1", "CLAUDE_CODE_SESSION_ID", " 26abe7b4-4948 "), "claude", "26abe7b4-4948"},
		{env("CLAUDE_CODE_SESSION_ID", "26abe7b4"), "", ""}, // not started by Claude Code
		{env("CLAUDECODE", "1"), "", ""},
		{env("GEMINI_SESSION_ID", "g-1"), "", ""}, // Gemini hands it to hooks only
	}
	for i, c := range cases {
		if client, id := Session(c.env); client != c.client || id != c.want {
			t.Errorf("case %d: got %q %q, want %q %q", i, client, id, c.client, c.want)
		}
	}
}
