package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-26T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		name               string
		bi                 *debug.BuildInfo
		ldV, ldC, ldD      string
		version, commit, d string
	}{
		{"no stamp", nil, "", "", "", Base, "", ""},
		{"checkout, modified", stamped, "", "", "", Base + "-dirty", "0123456789abcdef0123456789abcdef01234567", "2026-11-26T10:00:00Z"},
		{"go install @version", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.1"}}, "", "", "", "v0.3.1", "", ""},
		{"ldflags win", stamped, "v1.0.0", "abc", "2026-01-02T03:04:05Z", "v1.0.0", "abc", "2026-01-02T03:04:05Z"},
	} {
		in := resolve(c.bi, c.ldV, c.ldC, c.ldD)
		if in.Version != c.version || in.Commit != c.commit || in.Date != c.d {
			t.Errorf("%s: got %q %q %q, want %q %q %q", c.name, in.Version, in.Commit, in.Date, c.version, c.commit, c.d)
		}
		if in.GoVersion == "" || in.Platform == "" {
			t.Errorf("%s: go version %q, platform %q", c.name, in.GoVersion, in.Platform)
		}
	}
	if got := resolve(stamped, "", "", "").Short(); got != "0123456789ab" {
		t.Errorf("Short = %q", got)
	}
}
