package bb

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
)

// demoStep is one command of the scripted demo, run as a real bb invocation.
type demoStep struct {
	note string
	args []string
	// file is created (relative to the project) before the step runs.
	file string
}

func (a *app) demoCmd() *cobra.Command {
	var keep bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run a scripted session of three agents on a temporary board",
		Long: `Create a temporary board and play a short, real session: three agents
(alice, bob, carol) set their status, post, reply, register artifacts with
refs, and the board, log and summary are printed. Every step is an actual
bb command, shown as you would type it. Use --keep to keep the board and
explore it afterwards with --dir.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := os.MkdirTemp("", "bb-demo-")
			if err != nil {
				return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create a temporary directory", Err: err}
			}
			if !keep {
				defer os.RemoveAll(dir)
			}
			w := a.env.Stdout
			fmt.Fprintf(w, "Blackboard demo: a temporary project at %s\n", dir)
			for _, st := range demoScript() {
				if st.note != "" {
					fmt.Fprintf(w, "\n# %s\n", st.note)
				}
				if st.file != "" {
					p := filepath.Join(dir, filepath.FromSlash(st.file))
					_ = os.MkdirAll(filepath.Dir(p), 0o755)
					if err := os.WriteFile(p, []byte("demo\n"), 0o644); err != nil {
						return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + p, Err: err}
					}
				}
				if err := a.demoRun(cmd, dir, st.args, w); err != nil {
					return err
				}
			}
			if keep {
				fmt.Fprintf(w, "\nThe board is kept: try  bb --dir %s log\n", dir)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the temporary board and print its location")
	return c
}

// demoRun runs one bb command in-process against the demo board and prints
// it the way a terminal would show it.
func (a *app) demoRun(cmd *cobra.Command, dir string, args []string, w io.Writer) error {
	fmt.Fprintf(w, "$ bb %s\n", shellJoin(args))
	var out, errb bytes.Buffer
	env := a.env
	env.Stdout, env.Stderr = &out, &errb
	env.Stdin = strings.NewReader("")
	env.Getwd = func() (string, error) { return dir, nil }
	parent := env.Getenv
	env.Getenv = func(k string) string {
		switch k {
		case "BB_DIR", "BB_AGENT_ID":
			return ""
		}
		return parent(k)
	}
	code := Run(cmd.Context(), args, env)
	w.Write(out.Bytes())
	w.Write(errb.Bytes())
	if code != 0 && !demoExpectsFailure(args) {
		return hub.Errorf(hub.CodeInternal, "demo step failed (exit %d): bb %s", code, shellJoin(args))
	}
	return nil
}

func demoExpectsFailure(args []string) bool {
	for _, s := range args {
		if s == "../secrets.txt" {
			return true
		}
	}
	return false
}

func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, s := range args {
		if s == "" || strings.ContainsAny(s, " \t\"'$`\\*?[]#&;|<>()") {
			out[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		} else {
			out[i] = s
		}
	}
	return strings.Join(out, " ")
}

func demoScript() []demoStep {
	return []demoStep{
		{note: "Create the board (.bb/ at the project root)", args: []string{"init"}},
		{note: "Three agents say what they are doing", args: []string{"--as", "alice", "status", "set", "Refactor the config parser", "--status", "coding", "--progress", "30"}},
		{args: []string{"--as", "bob", "status", "set", "Write integration tests for the API", "--status", "testing", "--progress", "10"}},
		{args: []string{"--as", "carol", "status", "set", "Review open pull requests", "--status", "reviewing"}},
		{note: "They talk on the board: tags, priorities, refs and replies", args: []string{"--as", "alice", "post", "Starting on the config parser; please avoid config/ for an hour", "--tag", "config", "--ref", "gh:issue:42"}},
		{args: []string{"--as", "bob", "post", "The API tests need the new config format. What is the key for timeouts?", "--tag", "config", "--tag", "api", "--reply-to", "1"}},
		{args: []string{"--as", "alice", "post", "It is timeout_ms, in config/schema.json. Landing in 20 minutes.", "--reply-to", "2", "--ref", "gh:issue:42"}},
		{args: []string{"--as", "carol", "post", "CI is red on main since 10:02: flaky network test", "--priority", "high", "--tag", "ci"}},
		{note: "Bob is blocked until alice lands her change", args: []string{"--as", "bob", "status", "set", "Waiting for the config change", "--status", "blocked", "--blockers", "needs timeout_ms from alice"}},
		{note: "Artifacts: files the agents produced, linked to the same issue", file: "config/schema.json", args: []string{"--as", "alice", "artifact", "add", "config/schema.json", "New config schema with timeout_ms", "--version", "v2", "--ref", "gh:issue:42"}},
		{file: "docs/review-notes.md", args: []string{"--as", "carol", "artifact", "add", "docs/review-notes.md", "Review notes for PR 17", "--ref", "gh:pr:17"}},
		{note: "Paths must stay inside the project: this is refused", args: []string{"--as", "carol", "artifact", "add", "../secrets.txt", "nope"}},
		{note: "Everything that mentions issue 42", args: []string{"refs", "gh:issue:42"}},
		{note: "The thread started by message 1", args: []string{"message", "1"}},
		{note: "Alice finishes; bob is unblocked", args: []string{"--as", "alice", "status", "set", "Config parser refactor done", "--status", "idle", "--progress", "100"}},
		{args: []string{"--as", "bob", "status", "set", "Write integration tests for the API", "--status", "testing", "--progress", "60"}},
		{note: "The board, the log and the summary", args: []string{"status"}},
		{args: []string{"log"}},
		{args: []string{"log", "--priority", "high"}},
		{args: []string{"summary"}},
		{note: "The timeline of everything that happened", args: []string{"events", "--limit", "12"}},
	}
}
