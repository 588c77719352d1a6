package bb

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/buildinfo"
	"github.com/blackboard-hub/bb/internal/view"
)

// Version of the bb binary (the build's, see internal/buildinfo).
var Version = buildinfo.Read().Version

// versionCmd is `bb version` (and `bb --version`): which build is running.
func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date and Go version of bb",
		Long: `Print which build of bb is running: its version, the git commit it was
built from, that commit's date, the Go toolchain and the platform. 'bb
--version' prints the same. --json gives the fields (version, commit, date,
go_version, platform) in the envelope.

A release build sets version, commit and date at link time (-ldflags -X, see
the README); any other build takes them from what the Go toolchain stamps
into the binary (the module version of 'go install …@vX.Y.Z', the git
revision and commit time of a build in a checkout). A value the build does
not know is empty in --json and left out of the text.`,
		Example: `  bb version
  bb --version
  bb version --json | jq -r .data.commit`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.printVersion(cmd) },
	}
}

// printVersion answers bb version and bb --version. It never opens the
// board, so it works anywhere.
func (a *app) printVersion(cmd *cobra.Command) error {
	in := buildinfo.Read()
	if a.g.json {
		writeJSON(a.env.Stdout, view.Envelope{OK: true, Command: "version", Data: in})
		return nil
	}
	writeVersion(a.env.Stdout, in)
	return nil
}

// writeVersion is the text of bb version: one line a script can cut, then
// one line per known field.
func writeVersion(w io.Writer, in buildinfo.Info) {
	fmt.Fprintf(w, "bb %s\n", in.Version)
	if in.Commit != "" {
		fmt.Fprintf(w, "  commit:   %s\n", in.Commit)
	}
	if in.Date != "" {
		fmt.Fprintf(w, "  date:     %s\n", in.Date)
	}
	fmt.Fprintf(w, "  go:       %s\n", in.GoVersion)
	fmt.Fprintf(w, "  platform: %s\n", in.Platform)
}
