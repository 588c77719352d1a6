package boardtest

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A release build carries the version, commit and date set with -ldflags,
// and bb version, bb --version and --json report them, outside any board.
func TestVersionLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bb with -ldflags (-short)")
	}
	exe := filepath.Join(t.TempDir(), "bb")
	const pkg = "github.com/blackboard-hub/bb/internal/buildinfo"
	ld := "-X " + pkg + ".version=v9.8.7 -X " + pkg + ".commit=feedc0de1234567890 -X " + pkg + ".date=2026-11-26T15:00:00Z"
	build := exec.Command("go", "build", "-ldflags", ld, "-o", exe, "github.com/blackboard-hub/bb/cmd/bb")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir() // no board here: bb version must not need one
	run := func(args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bb %v: %v", args, err)
		}
		return string(out)
	}
	text := run("version")
	for _, want := range []string{"bb v9.8.7\n", "commit:   feedc0de1234567890", "date:     2026-11-26T15:00:00Z", "go:       " + runtime.Version()} {
		if !strings.Contains(text, want) {
			t.Errorf("bb version: missing %q in\n%s", want, text)
		}
	}
	if got := run("--version"); got != text {
		t.Errorf("bb --version = %q, bb version = %q", got, text)
	}
	var env struct {
		OK      bool
		Command string
		Data    map[string]string
	}
	if err := json.Unmarshal([]byte(run("--version", "--json")), &env); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"version": "v9.8.7", "commit": "feedc0de1234567890", "date": "2026-11-26T15:00:00Z", "go_version": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
	if !env.OK || env.Command != "version" || len(env.Data) != len(want) {
		t.Fatalf("envelope %+v", env)
	}
	for k, v := range want {
		if env.Data[k] != v {
			t.Errorf("data.%s = %q, want %q", k, env.Data[k], v)
		}
	}
}
