package bb

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
	// fails marks a step that is expected to fail (shown, not fatal).
	fails bool
	// save names a variable that receives the first UUID the step prints;
	// later steps use it as {name} in their arguments.
	save string
}

// demoSent finds the id of the message a step sent ("Sent HANDOFF 7f3c2a9e to …": the
// short id human output prints, or a whole one).
var demoSent = regexp.MustCompile(`(?:Sent|Replied) \S+ ([0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?)\b`)

func (a *app) demoCmd() *cobra.Command {
	var keep, serve bool
	var addr string
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run a scripted session of three agents on a temporary board",
		Long: `Create a temporary board and play a short, real session: three agents
(alice, bob, carol) set their status, post, reply, register artifacts with
refs, and the board, log and summary are printed. Every step is an actual
bb command, shown as you would type it. Use --keep to keep the board and
explore it afterwards with --dir. Use --serve to keep the dashboard of the
demo board up (bb serve) until Ctrl+C.`,
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
			vars := map[string]string{}
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
				args := make([]string, len(st.args))
				for i, s := range st.args {
					for k, v := range vars {
						s = strings.ReplaceAll(s, "{"+k+"}", v)
					}
					args[i] = s
				}
				out, err := a.demoRun(cmd, dir, args, w, st.fails)
				if err != nil {
					return err
				}
				if st.save != "" {
					if m := demoSent.FindStringSubmatch(out); m != nil {
						vars[st.save] = m[1]
					}
				}
			}
			if keep {
				fmt.Fprintf(w, "\nThe board is kept: try  bb --dir %s log\n", dir)
			}
			if serve {
				fmt.Fprintln(w)
				return a.serveDir(cmd.Context(), dir, addr)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the temporary board and print its location")
	c.Flags().BoolVar(&serve, "serve", false, "then serve the demo board's dashboard until Ctrl+C (bb serve)")
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:7777", "with --serve: host:port to listen on (loopback only)")
	return c
}

// demoRun runs one bb command in-process against the demo board and prints
// it the way a terminal would show it.
func (a *app) demoRun(cmd *cobra.Command, dir string, args []string, w io.Writer, fails bool) (string, error) {
	fmt.Fprintf(w, "$ bb %s\n", shellJoin(args))
	var out, errb bytes.Buffer
	env := a.env
	env.Stdout, env.Stderr = &out, &errb
	env.Stdin = strings.NewReader("")
	env.ProcessExits = false // many commands run in this one process
	env.Getwd = func() (string, error) { return dir, nil }
	parent := env.Getenv
	env.Getenv = func(k string) string {
		switch k {
		case "BB_DIR", "BB_AGENT_ID", EnvServer, "BB_TOKEN":
			return ""
		}
		return parent(k)
	}
	code := Run(cmd.Context(), args, env)
	w.Write(out.Bytes())
	w.Write(errb.Bytes())
	if code != 0 && !fails && !demoExpectsFailure(args) {
		return "", hub.Errorf(hub.CodeInternal, "demo step failed (exit %d): bb %s", code, shellJoin(args))
	}
	return out.String(), nil
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
		// bb agent: identity, reservations, protocol mail (seed 000/001).
		{note: "bb agent: the same agents register for coordination", args: []string{"agent", "register", "--name", "alice", "--role", "parser"}},
		{args: []string{"agent", "register", "--name", "bob", "--role", "tests"}},
		{args: []string{"agent", "register", "--name", "carol", "--role", "review"}},
		{note: "They reserve the files they work on (a trailing /* covers a whole directory)", args: []string{"agent", "reserve", "--agent", "alice", "--scope", "config/*", "--bead", "gh-42"}},
		{args: []string{"agent", "reserve", "--agent", "bob", "--scope", "tests/api/*", "--bead", "gh-43", "--ttl", "60"}},
		{note: "Bob also wants config/schema.json: it lies inside alice's scope, so the reserve is refused (recorded as a conflict, not an incursion: nothing was edited)", fails: true,
			args: []string{"agent", "reserve", "--agent", "bob", "--scope", "config/schema.json", "--bead", "gh-43"}},
		{note: "Alice hands the config work over to bob (HANDOFF needs an ack)", save: "handoff", args: []string{"agent", "send", "--from", "alice", "--to", "bob", "--bead", "gh-42",
			"--category", "HANDOFF", "--subject", "Config parser ready", "--body", "timeout_ms is in config/schema.json; schema v2 is final.",
			"--next-action", "Run the API tests against schema v2"}},
		{args: []string{"agent", "inbox", "--agent", "bob"}},
		{args: []string{"agent", "ack", "--agent", "bob", "--message", "{handoff}"}},
		{note: "Alice releases config/*, so bob can now take config/schema.json", args: []string{"agent", "release", "--agent", "alice", "--scope", "config/*"}},
		{args: []string{"agent", "reserve", "--agent", "bob", "--scope", "config/schema.json", "--bead", "gh-43"}},
		{note: "Carol is BLOCKED and asks alice", save: "blocked", args: []string{"agent", "send", "--from", "carol", "--to", "alice", "--bead", "gh-17",
			"--category", "BLOCKED", "--subject", "Which checklist for PR 17?", "--body", "I cannot finish the review without the release checklist.",
			"--urgency", "high", "--requested-action", "Point me to the checklist"}},
		{note: "Alice accepts the blocker and answers on the same thread", args: []string{"agent", "ack", "--agent", "alice", "--message", "{blocked}"}},
		{save: "answer", args: []string{"agent", "send", "--from", "alice", "--to", "carol", "--bead", "gh-17", "--category", "DECISION",
			"--subject", "Use docs/release-checklist.md", "--body", "The checklist is docs/release-checklist.md; skip the perf section for PR 17."}},
		{args: []string{"agent", "read", "--agent", "carol", "--message", "{answer}"}},
		{note: "Coordination status: reservations, acks, counts and the protocol timeline", args: []string{"agent", "status"}},
		{note: "The protocol events on the timeline", args: []string{"events", "--type", "HANDOFF,BLOCKED,INCURSION,RESUME"}},
	}
}
