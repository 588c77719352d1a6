package bb

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/gitrepo"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/procid"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

// The git guard: pre-commit and pre-push hooks that run `bb guard check`,
// which refuses a commit or push touching paths another active agent has
// reserved. An existing hook is kept (renamed <hook>.bb-chained) and run
// after the check; uninstall puts it back.

const guardMarker = "bb-guard:"

var guardHookNames = []string{"pre-commit", "pre-push"}

// guardHook is one git hook the guard manages.
type guardHook struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Action: installed, updated, unchanged, removed, restored (the chained
	// hook put back), absent (nothing of bb's there).
	Action string `json:"action"`
	// Chained is the previous hook bb runs after its check ("" when none).
	Chained string `json:"chained,omitempty"`
}

// guardResult is bb guard install/uninstall's --json data.
type guardResult struct {
	HooksDir string      `json:"hooks_dir"`
	Hooks    []guardHook `json:"hooks"`
}

// guardCheck is bb guard check's --json data.
type guardCheck struct {
	Stage string `json:"stage"`
	// Paths is how many distinct paths the commit or push touches.
	Paths int `json:"paths"`
	// Mode is the effective mode: block, warn or off.
	Mode    string `json:"mode"`
	Refused bool   `json:"refused"`
	// Held are the checked paths other agents' reservations overlap.
	Held   []hooks.PathCheck `json:"held"`
	Reason string            `json:"reason,omitempty"`
	Note   string            `json:"note,omitempty"`
}

func (a *app) guardCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "guard",
		Short: "Git hooks that refuse commits and pushes touching files another agent holds",
		Long: `The git guard installs pre-commit and pre-push hooks in the project's git
repository (honouring core.hooksPath). They run 'bb guard check', which
refuses a commit whose staged paths — both sides of renames and copies,
deletions and submodules included — or a push whose commits touch a path
reserved by another ACTIVE agent, naming the holder and the way out.
Reservations of stale or evicted agents, and expired ones, do not block.

A hook that was already there is kept and run after the check (renamed
<hook>.bb-chained); 'bb guard uninstall' puts it back. Skip the check once
with BB_GUARD=off (or git's --no-verify, which skips every hook). The
board's hook mode applies ('bb config set hooks.mode block|warn|off':
warn reports without refusing); BB_GUARD=off|warn|block overrides it.`,
		Example: `  bb guard install
  BB_GUARD=off git commit -m "hotfix"   # skip the check once
  bb guard check --stage commit          # what the pre-commit hook runs
  bb guard uninstall`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.guardInstallCmd(), a.guardUninstallCmd(), a.guardCheckCmd())
	return c
}

// guardInstallCmd is bb guard install.
func (a *app) guardInstallCmd() *cobra.Command {
	var absolute bool
	c := &cobra.Command{
		Use:   "install",
		Short: "Install the pre-commit and pre-push guard (keeping existing hooks)",
		Long: `Write the pre-commit and pre-push hooks into the repository's hooks
directory (core.hooksPath when set). An existing hook is renamed
<hook>.bb-chained and run after bb's check. The hooks run 'bb' from PATH
(--absolute: this binary's path) and pin the project directory. Running
it again changes nothing.`,
		Example: `  bb guard install
  bb --json guard install`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := a.findProject()
			if err != nil && strings.TrimSpace(a.env.Getenv(EnvServer)) == "" {
				return err
			}
			if err != nil {
				if root, err = a.targetDir(); err != nil {
					return err
				}
			}
			exe := "bb"
			if absolute {
				exe = a.env.Exe
			}
			res, err := a.guardInstall(root, exe)
			if err != nil {
				return err
			}
			return a.reply(cmd, res, func(w io.Writer) { printGuard(w, res) })
		},
	}
	c.Flags().BoolVar(&absolute, "absolute", false, "run this bb binary by its absolute path instead of 'bb' from PATH")
	return c
}

// guardUninstallCmd is bb guard uninstall.
func (a *app) guardUninstallCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the guard hooks and put back the hooks they chained",
		Long: `Delete the pre-commit and pre-push hooks bb guard install wrote and rename
the hooks it had kept (<hook>.bb-chained) back to their names, so the
hooks directory is as it was. Hooks bb did not write are left alone.`,
		Example: `  bb guard uninstall`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.guardRepoDir()
			if err != nil {
				return err
			}
			res, err := guardUninstall(dir)
			if err != nil {
				return err
			}
			return a.reply(cmd, res, func(w io.Writer) { printGuard(w, res) })
		},
	}
}

// guardCheckCmd is bb guard check, what the hooks run.
func (a *app) guardCheckCmd() *cobra.Command {
	var stage string
	c := &cobra.Command{
		Use:   "check",
		Short: "Refuse (exit 1) when the commit or push touches paths another active agent holds",
		Long: `Check the paths of the commit being made (--stage commit: the staged
changes, 'git diff --cached') or of the commits being pushed (--stage push:
the ref lines git gives a pre-push hook on stdin; the remote's name is the
first argument) against other agents' reservations. Exits 1 naming each
holder, the reserved scope, until when, and how to proceed, when an active
agent holds one of them; exits 0 otherwise. Acting agent: --as or
$BB_AGENT_ID, else the agent of the coding-agent session the commit is
made in (found through the client process, as bb mcp finds it); its own
reservations never conflict. Problems reading the
board or git are reported on stderr and do not block (exit 0).
The paths go through the core's path check (CheckPaths, the rule of the
edit hook); each overlap is recorded as an INCURSION event. The board's
hooks.mode applies (warn: report only; off: skip); BB_GUARD=off|warn|block
overrides it.`,
		Example: `  bb guard check --stage commit
  echo "refs/heads/main $(git rev-parse HEAD) refs/heads/main 0000000000000000000000000000000000000000" | bb guard check --stage push origin`,
		Args: usageArgs(cobra.MaximumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if stage != "commit" && stage != "push" {
				return usageErr{fmt.Errorf("invalid --stage %q: expected commit or push", stage)}
			}
			return a.guardCheck(cmd, stage, args)
		},
	}
	c.Flags().StringVar(&stage, "stage", "commit", "what to check: commit (staged paths) or push (pushed commits)")
	return c
}

// guardRepoDir is where guard install/uninstall act: the project (or the
// working directory).
func (a *app) guardRepoDir() (string, error) {
	if root, err := a.findProject(); err == nil {
		return root, nil
	}
	return a.targetDir()
}

// hooksDir is the repository's hooks directory (core.hooksPath honoured).
func hooksDir(dir string) (string, error) {
	out, err := gitrepo.Run(context.Background(), dir, nil, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", hub.Errorf(hub.CodeInvalidInput, "%s is not in a git repository: the guard needs git (%s)", dir, oneLineErr(err))
	}
	p := strings.TrimRight(string(out), "\r\n")
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// guardScript is the hook bb writes for name.
func guardScript(name, exe, root string) string {
	q := shellquote.Quote(exe)
	found := "command -v " + q + " >/dev/null 2>&1"
	if filepath.IsAbs(exe) {
		found = "[ -x " + q + " ]"
	}
	stage := map[string]string{"pre-commit": "commit", "pre-push": "push"}[name]
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/sh
# %s installed by 'bb guard install' (Blackboard). It refuses a %s that
# touches files another active agent has reserved, then runs the hook that
# was here before (%s.bb-chained), if any.
# Skip the check once: BB_GUARD=off git %s ...   (or git %s --no-verify)
# Remove: bb guard uninstall
chained="$(dirname "$0")/%s.bb-chained"
`, guardMarker, stage, name, stage, stage, name)
	check := fmt.Sprintf(`if [ "${BB_GUARD:-}" != off ]; then
  if %s; then
    %s guard check --stage %s --dir %s "$@"%s || %s
  else
    echo "bb guard: %s not found; the reservation check was skipped" >&2
  fi
fi
`, found, q, stage, shellquote.Quote(root), map[bool]string{true: ` < "$input"`}[stage == "push"], map[bool]string{true: "status=1", false: "exit 1"}[stage == "push"], exe)
	if stage == "commit" {
		b.WriteString(check)
		b.WriteString(`if [ -x "$chained" ]; then
  exec "$chained" "$@"
fi
exit 0
`)
		return b.String()
	}
	b.WriteString(`input=$(mktemp "${TMPDIR:-/tmp}/bb-guard.XXXXXX") || exit 1
trap 'rm -f "$input"' EXIT
cat > "$input"
status=0
`)
	b.WriteString(check)
	b.WriteString(`if [ "$status" -eq 0 ] && [ -x "$chained" ]; then
  "$chained" "$@" < "$input" || status=$?
fi
exit "$status"
`)
	return b.String()
}

func isGuardScript(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(guardMarker))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// guardHooks returns the result to fill for root's repository (its hooks
// folder) and the guard hooks in it, named, with their paths.
func guardHooks(root string) (guardResult, []guardHook, error) {
	dir, err := hooksDir(root)
	if err != nil {
		return guardResult{}, nil, err
	}
	hooks := make([]guardHook, 0, len(guardHookNames))
	for _, name := range guardHookNames {
		hooks = append(hooks, guardHook{Name: name, Path: filepath.Join(dir, name)})
	}
	return guardResult{HooksDir: dir}, hooks, nil
}

// guardInstall writes the guard hooks into root's repository.
func (a *app) guardInstall(root, exe string) (guardResult, error) {
	res, hooks, err := guardHooks(root)
	if err != nil {
		return res, err
	}
	dir := res.HooksDir
	// Check everything before changing anything.
	for _, h := range hooks {
		p := h.Path
		if exists(p) && !isGuardScript(p) && exists(p+".bb-chained") {
			return res, hub.Errorf(hub.CodeConflict, "%s exists and so does %s.bb-chained: move one of them away, then run bb guard install again; nothing was written", p, p)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create " + dir, Err: err}
	}
	for _, h := range hooks {
		p := h.Path
		chained := p + ".bb-chained"
		want := guardScript(h.Name, exe, root)
		h.Action = "installed"
		switch {
		case isGuardScript(p):
			if b, _ := os.ReadFile(p); string(b) == want {
				h.Action = "unchanged"
			} else {
				h.Action = "updated"
			}
		case exists(p):
			if err := os.Rename(p, chained); err != nil {
				return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot keep the existing " + p, Err: err}
			}
		}
		if exists(chained) {
			h.Chained = chained
		}
		if h.Action != "unchanged" {
			if err := os.WriteFile(p+".bb-tmp", []byte(want), 0o755); err != nil {
				return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + p, Err: err}
			}
			if err := os.Chmod(p+".bb-tmp", 0o755); err != nil {
				return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + p, Err: err}
			}
			if err := os.Rename(p+".bb-tmp", p); err != nil {
				return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + p, Err: err}
			}
		}
		res.Hooks = append(res.Hooks, h)
	}
	return res, nil
}

// guardUninstall removes the guard hooks and restores the chained ones.
func guardUninstall(root string) (guardResult, error) {
	res, hooks, err := guardHooks(root)
	if err != nil {
		return res, err
	}
	for _, h := range hooks {
		p := h.Path
		chained := p + ".bb-chained"
		h.Action = "absent"
		if isGuardScript(p) {
			if err := os.Remove(p); err != nil {
				return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot remove " + p, Err: err}
			}
			h.Action = "removed"
			if exists(chained) {
				if err := os.Rename(chained, p); err != nil {
					return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot restore " + chained, Err: err}
				}
				h.Action, h.Chained = "restored", chained
			}
		}
		res.Hooks = append(res.Hooks, h)
	}
	return res, nil
}

func printGuard(w io.Writer, res guardResult) {
	fmt.Fprintf(w, "git guard (%s):\n", res.HooksDir)
	for _, h := range res.Hooks {
		line := fmt.Sprintf("  %-10s %s", h.Name, h.Action)
		switch {
		case h.Action == "restored":
			line += " (the previous hook is back)"
		case h.Chained != "":
			line += " (runs the previous hook after the check: " + filepath.Base(h.Chained) + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// stagedPaths lists the paths of the commit being made: both sides of
// renames and copies, deletions, submodules (NUL-separated, so any byte of
// a file name survives).
func stagedPaths(ctx context.Context, dir string) ([]string, error) {
	out, err := gitrepo.Run(ctx, dir, nil, "diff", "--cached", "--name-status", "-z", "-M")
	if err != nil {
		return nil, err
	}
	return parseNameStatus(out), nil
}

// parseNameStatus reads `git diff --name-status -z` output: a status
// field, then one path, or two for renames (R) and copies (C).
func parseNameStatus(out []byte) []string {
	f := strings.Split(string(out), "\x00")
	var paths []string
	for i := 0; i < len(f); {
		st := f[i]
		i++
		if st == "" {
			continue
		}
		n := 1
		if st[0] == 'R' || st[0] == 'C' {
			n = 2
		}
		for j := 0; j < n && i < len(f); j++ {
			paths = append(paths, f[i])
			i++
		}
	}
	return paths
}

const maxPushCommits = 1000

// pushedPaths lists the paths changed by the commits a push sends: git
// gives "<local ref> <local sha> <remote ref> <remote sha>" lines.
func pushedPaths(ctx context.Context, dir, remote string, in io.Reader) ([]string, error) {
	var commits []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || strings.Trim(f[1], "0") == "" { // a deletion pushes no commit
			continue
		}
		local, remoteSHA := f[1], f[3]
		var out []byte
		var err error
		if strings.Trim(remoteSHA, "0") != "" {
			out, err = gitrepo.Run(ctx, dir, nil, "rev-list", "--no-merges", remoteSHA+".."+local)
		}
		if strings.Trim(remoteSHA, "0") == "" || err != nil {
			args := []string{"rev-list", "--no-merges", local, "--not"}
			if remote != "" {
				args = append(args, "--remotes="+remote)
			} else {
				args = append(args, "--remotes")
			}
			if out, err = gitrepo.Run(ctx, dir, nil, args...); err != nil {
				return nil, err
			}
		}
		for _, c := range strings.Fields(string(out)) {
			if !seen[c] && len(commits) < maxPushCommits {
				seen[c] = true
				commits = append(commits, c)
			}
		}
	}
	var paths []string
	for _, c := range commits {
		out, err := gitrepo.Run(ctx, dir, nil, "diff-tree", "-r", "--root", "--no-commit-id", "--name-status", "-z", "-M", c)
		if err != nil {
			return nil, err
		}
		paths = append(paths, parseNameStatus(out)...)
	}
	return paths, nil
}

// guardCheckBatch bounds the paths sent in one CheckPaths call.
const guardCheckBatch = 500

// guardCheck is bb guard check: it fails open (exit 0, note on stderr) on
// anything but a deliberate refusal.
func (a *app) guardCheck(cmd *cobra.Command, stage string, args []string) error {
	res := guardCheck{Stage: stage, Mode: hub.ModeBlock, Held: []hooks.PathCheck{}}
	note := func(format string, v ...any) error {
		fmt.Fprintf(a.env.Stderr, "bb guard: "+format+"\n", v...)
		return a.reply(cmd, res, nil)
	}
	env := strings.ToLower(strings.TrimSpace(a.env.Getenv("BB_GUARD")))
	if env == hub.ModeOff {
		res.Mode = hub.ModeOff
		return note("BB_GUARD=off: check skipped")
	}
	ctx := cmd.Context()
	toplevel, paths, skip := a.guardPaths(ctx, stage, args)
	if skip != "" {
		return note("%s", skip)
	}
	api, err := a.service(ctx)
	if err != nil {
		return note("%s; check skipped", hub.MessageOf(err))
	}
	settings, err := api.GetHookSettings(ctx)
	if err != nil {
		return note("%s; check skipped", hub.MessageOf(err))
	}
	res.Mode = settings.Mode
	if env == hub.ModeWarn || env == hub.ModeBlock {
		res.Mode = env
	}
	if res.Mode == hub.ModeOff {
		return note("hooks.mode is off: check skipped")
	}
	agent, explicit := a.identity()
	if !explicit {
		agent = a.sessionAgent(ctx, api)
	}
	// Git names paths from the top of this work tree; scopes are relative
	// to it in every work tree and clone of the repository. Locally the
	// core is given the work tree (it resolves symbolic links there); a
	// remote board gets the relative paths alone.
	wdCheck := toplevel
	where := a.where(toplevel) // the branch a commit goes on, read once for every batch
	if a.remote() {
		wdCheck = ""
	}
	var rels []string
	res.Paths, rels = guardScopes(paths)
	in := hooks.PathCheckInput{Agent: agent, Wd: wdCheck, RecordIncursions: true, Mode: res.Mode,
		Committed: stage == "commit", Where: where}
	if err := guardCheckBatches(ctx, api, in, rels, &res); err != nil {
		return note("%s; check skipped", hub.MessageOf(err))
	}
	return a.guardVerdict(cmd, res)
}

// guardPaths lists the paths the commit (staged) or the push (the pushed
// commits, from the ref lines on stdin) touches, named from toplevel, the
// top of the work tree. skip says why the check is skipped when it cannot
// list them ("" otherwise).
func (a *app) guardPaths(ctx context.Context, stage string, args []string) (toplevel string, paths []string, skip string) {
	wd, err := a.env.Getwd()
	if err != nil {
		return "", nil, "cannot read the working directory; check skipped"
	}
	top, err := gitrepo.Run(ctx, wd, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", nil, fmt.Sprintf("not in a git work tree (%s); check skipped", oneLineErr(err))
	}
	toplevel = strings.TrimRight(string(top), "\r\n")
	if stage == "commit" {
		paths, err = stagedPaths(ctx, toplevel)
	} else {
		remote := ""
		if len(args) > 0 {
			remote = args[0]
		}
		paths, err = pushedPaths(ctx, toplevel, remote, a.env.Stdin)
	}
	if err != nil {
		return "", nil, fmt.Sprintf("cannot list the paths (%s); check skipped", oneLineErr(err))
	}
	return toplevel, paths, ""
}

// guardScopes is how many distinct paths there are and the relative scopes
// of those a reservation can hold.
func guardScopes(paths []string) (distinct int, rels []string) {
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		distinct++
		rel, ok := hub.RelativeScope(p)
		if !ok {
			continue
		}
		if _, err := hub.CanonicalScope("/", "/", rel); err != nil {
			continue // a name no reservation can hold (control characters, too long)
		}
		rels = append(rels, rel)
	}
	return distinct, rels
}

// guardCheckBatches runs the core's path check on rels, guardCheckBatch
// paths at a time with in's other fields, and gathers into res the held
// paths, whether the check refuses, and the reasons and notes.
func guardCheckBatches(ctx context.Context, api core.API, in hooks.PathCheckInput, rels []string, res *guardCheck) error {
	var reasons, notes []string
	for len(rels) > 0 {
		batch := rels[:min(len(rels), guardCheckBatch)]
		rels = rels[len(batch):]
		in.Paths = batch
		chk, err := api.CheckPaths(ctx, in)
		if err != nil {
			return err
		}
		for _, pc := range chk.Paths {
			if len(pc.Holders) > 0 {
				res.Held = append(res.Held, pc)
			}
		}
		if chk.Blocking {
			res.Refused = true
			reasons = append(reasons, hookWords(chk.Reason))
		}
		if !chk.Note.Empty() {
			notes = append(notes, hookWords(chk.Note))
		}
	}
	res.Reason, res.Note = strings.Join(reasons, "\n"), strings.Join(notes, "\n")
	return nil
}

// guardVerdict says the check's note on stderr, then passes, reports what
// warn mode would refuse, or refuses with the holders and the way out.
func (a *app) guardVerdict(cmd *cobra.Command, res guardCheck) error {
	if res.Note != "" {
		fmt.Fprintf(a.env.Stderr, "bb guard: note: %s\n", res.Note)
	}
	if !res.Refused {
		return a.reply(cmd, res, nil)
	}
	stage := res.Stage
	msg := fmt.Sprintf("bb guard: %s refused: it touches files another active agent has reserved.\n%s\nOr unstage those paths, or wait until the reservation expires.\nTo %s anyway: BB_GUARD=off git %s ...  (or git %s --no-verify)", stage, res.Reason, stage, stage, stage)
	if res.Mode == hub.ModeWarn {
		fmt.Fprintln(a.env.Stderr, strings.Replace(msg, "refused", "would be refused (warn mode)", 1))
		return a.reply(cmd, res, nil)
	}
	return &hub.Error{Code: hub.CodeReservationConflict, Message: msg}
}

// sessionAgent is the agent of the coding-agent session this process runs
// in, "" when none is known: a commit the agent makes through its shell
// tool runs the guard under the client (git and shells between), whose hook
// session names the agent, so that its own reservations do not refuse its
// own commit.
func (a *app) sessionAgent(ctx context.Context, api interface {
	SessionOf(context.Context, hooks.ClientRef) (hub.HookSession, error)
}) string {
	client, sid := procid.Session(a.env.Getenv)
	var pid int64
	if !a.remote() {
		// A process id names a process on this machine only: through a
		// bb serve it could be another machine's client.
		pid = procid.Client()
	}
	if pid <= 1 && sid == "" {
		return ""
	}
	hs, err := api.SessionOf(ctx, hooks.ClientRef{Client: client, SessionID: sid, PID: pid})
	if err != nil {
		return ""
	}
	return hs.AgentID
}

// oneLineErr is err's message on one line (git's messages span several).
func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
