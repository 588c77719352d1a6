// Package buildinfo says which build of Blackboard is running: its version,
// the commit it was built from, when that commit was made, and the Go
// toolchain. A release build sets the first three at link time:
//
//	go build -ldflags "-X github.com/blackboard-hub/bb/internal/buildinfo.version=v0.2.0 \
//	  -X github.com/blackboard-hub/bb/internal/buildinfo.commit=$(git rev-parse HEAD) \
//	  -X github.com/blackboard-hub/bb/internal/buildinfo.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" ./cmd/bb
//
// Without them the values come from what the Go toolchain stamps into every
// binary (runtime/debug.ReadBuildInfo): the module version of `go install
// …@vX.Y.Z`, and vcs.revision, vcs.time and vcs.modified of a build inside a
// git checkout.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Base is the version of a build that carries none: a plain `go build` in
// a checkout, or `go run`.
const Base = "0.1.0"

// Set at link time with -ldflags -X (see the package comment); never
// assigned by the program.
var (
	version string
	commit  string
	date    string
)

// Info describes one build. Fields are in JSON key order.
type Info struct {
	// Version is the release version ("0.1.0" or "v0.2.0"), with "-dirty"
	// when built from a checkout with uncommitted changes.
	Version string `json:"version"`
	// Commit is the full git commit hash, "" when unknown.
	Commit string `json:"commit"`
	// Date is the commit's time (or the release build's), RFC 3339 UTC, ""
	// when unknown.
	Date string `json:"date"`
	// GoVersion is the toolchain that built the binary ("go1.26.0").
	GoVersion string `json:"go_version"`
	// Platform is GOOS/GOARCH ("linux/amd64").
	Platform string `json:"platform"`
}

// Read returns this binary's build description.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(bi, version, commit, date)
}

// resolve merges the link-time values (which win) with the toolchain's
// stamp bi (which may be nil).
func resolve(bi *debug.BuildInfo, ldVersion, ldCommit, ldDate string) Info {
	in := Info{GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	modified := false
	if bi != nil {
		in.GoVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.time":
				in.Date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if in.Version == "" {
		in.Version = Base
		if modified {
			in.Version += "-dirty"
		}
	}
	if ldVersion != "" {
		in.Version = ldVersion
	}
	if ldCommit != "" {
		in.Commit = ldCommit
	}
	if ldDate != "" {
		in.Date = ldDate
	}
	return in
}

// Short is the commit's first 12 characters ("" when unknown).
func (in Info) Short() string {
	if len(in.Commit) > 12 {
		return in.Commit[:12]
	}
	return in.Commit
}
