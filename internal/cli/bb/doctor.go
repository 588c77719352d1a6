package bb

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/install"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

// Doctor check statuses.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
	checkSkip = "skip"
)

// doctorCheck is one line of bb doctor: what was checked, what was found,
// and the command that fixes it.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// doctorReport is bb doctor's --json data.
type doctorReport struct {
	// Healthy is false when any check failed (bb doctor then exits 1).
	Healthy bool   `json:"healthy"`
	Project string `json:"project,omitempty"`
	// Backend is sqlite, postgres or remote (a bb serve).
	Backend string `json:"backend,omitempty"`
	// Location is the database file, the redacted database URL, or the
	// server's URL.
	Location string `json:"location,omitempty"`
	// Identity is who "I" would be for a bb command run here, and Source
	// where that comes from (--as, BB_AGENT_ID, default).
	Identity       string           `json:"identity"`
	IdentitySource string           `json:"identity_source"`
	Clients        []install.Wiring `json:"clients"`
	Checks         []doctorCheck    `json:"checks"`
}

// errUnhealthy makes bb doctor exit 1 after printing its report.
var errUnhealthy = errors.New("unhealthy")

func (a *app) doctorCmd() *cobra.Command {
	var global bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the board, your identity, each client's wiring, trust and the guard",
		Long: `Check everything bb needs to work here, and say how to fix what does not:
the board and its backend (or BB_SERVER reachable with a valid BB_TOKEN),
who "I" would be for a bb command run here, and for every client bb install
wired in this project: its files present and current (each of bb's hook
entries, event and matcher, against what this bb's install writes: entries
an older bb wrote are "outdated" until 'bb install <client>' runs again),
the hooks running a bb that starts and pinning this board, the MCP entry
starting and answering an MCP initialize, and the client's own trust gate
(Codex runs a hook only once it is trusted, Gemini CLI and Copilot CLI
ignore an untrusted folder, Qwen Code too when its optional folder trust
is on, Claude Code asks before loading a folder). Then the git guard.

Each problem comes with the command that fixes it. Exit status 1 when a
check failed (warnings do not fail). --json gives every check, and per
client "outdated" (true or false) with "hook_changes" (event, change:
matcher|missing|stale|duplicate, installed_matcher, want_matcher).`,
		Example: `  bb doctor
  bb doctor --json
  bb doctor --global     # the clients' files in your home instead`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := a.doctor(cmd.Context(), global)
			if err := a.reply(cmd, r, func(w io.Writer) { printDoctor(w, r) }); err != nil {
				return err
			}
			if !r.Healthy {
				return errUnhealthy
			}
			return nil
		},
	}
	c.Flags().BoolVar(&global, "global", false, "check the clients' files in your home (bb install --global)")
	return c
}

func (a *app) doctor(ctx context.Context, global bool) *doctorReport {
	r := &doctorReport{Clients: []install.Wiring{}}
	a.doctorBoard(ctx, r)
	a.doctorIdentity(r)
	if r.Project != "" || global {
		a.doctorClients(ctx, r, global)
	}
	if r.Project != "" && !global {
		doctorGuard(r)
	}
	r.Healthy = true
	for _, c := range r.Checks {
		if c.Status == checkFail {
			r.Healthy = false
		}
	}
	return r
}

func (r *doctorReport) add(name, status, detail, fix string) {
	r.Checks = append(r.Checks, doctorCheck{Name: name, Status: status, Detail: detail, Fix: fix})
}

// doctorBoard checks the board: where it is, that it opens and answers
// (and, for a SQLite file, that it can be read and written).
func (a *app) doctorBoard(ctx context.Context, r *doctorReport) {
	add := r.add
	remoteURL := strings.TrimSpace(a.env.Getenv(EnvServer))
	switch {
	case remoteURL != "":
		r.Backend, r.Location = "remote", remoteURL
		if root, err := a.findProject(); err == nil {
			r.Project = root
		} else if wd, err := a.env.Getwd(); err == nil {
			r.Project = wd
		}
	default:
		cfg, err := a.boardConfig()
		r.Project = cfg.ProjectRoot
		if err != nil {
			add("board", checkFail, hub.MessageOf(err), "bb init")
			break
		}
		r.Backend, r.Location = cfg.Describe()
	}
	if r.Backend != "" {
		svc, err := a.service(ctx)
		if err == nil {
			_, err = svc.Board(ctx)
		}
		switch {
		case err == nil && r.Backend == "remote":
			add("board", checkOK, "bb serve at "+remoteURL+" answers with this token", "")
		case err == nil:
			add("board", checkOK, fmt.Sprintf("%s board at %s", r.Backend, r.Location), "")
		case r.Backend == "remote":
			add("board", checkFail, fmt.Sprintf("bb serve at %s: %s", remoteURL, hub.MessageOf(err)),
				"start it ('bb serve' in the project) or fix BB_SERVER; set BB_TOKEN to the token bb serve uses")
		default:
			add("board", checkFail, hub.MessageOf(err), boardFix(err, r.Location))
		}
	}
	if r.Backend == "sqlite" {
		boardAccess(r.Location, add)
	}
}

// doctorIdentity says who bb commands here act as, and from what.
func (a *app) doctorIdentity(r *doctorReport) {
	add := r.add
	id, explicit := a.identity()
	r.Identity = id
	switch {
	case a.g.as != "" || a.g.asGiven:
		r.IdentitySource = "--as"
	case explicit && strings.TrimSpace(a.env.Getenv("BB_AGENT_ID")) != "":
		r.IdentitySource = "BB_AGENT_ID"
	case explicit:
		r.IdentitySource = "BB_TOKEN" // the agent the credential acts as
	default:
		r.IdentitySource = "default"
	}
	if err := hub.ValidateBoardAgentID(id); err != nil {
		add("identity", checkFail, fmt.Sprintf("%q (%s) is not a valid agent id: %s", id, r.IdentitySource, hub.MessageOf(err)), "export BB_AGENT_ID=<id> with a valid id")
	} else if explicit {
		add("identity", checkOK, fmt.Sprintf("bb commands here act as %s (%s); inside a client session wired by bb install, each session gets its own id from the hooks", id, r.IdentitySource), "")
	} else {
		add("identity", checkOK, "bb commands here act as human (no --as or BB_AGENT_ID); inside a client session wired by bb install, each session gets its own id from the hooks", "")
	}
}

// doctorClients checks each client bb install wired here (or globally).
func (a *app) doctorClients(ctx context.Context, r *doctorReport, global bool) {
	add := r.add
	o := install.Options{Global: global}
	base := r.Project
	if global {
		base = a.env.Getenv("HOME")
	}
	ie := a.newInstall(o, base, a.env.Exe, a.env.Getenv)
	for _, cl := range install.Clients() {
		w, err := ie.Inspect(cl)
		name := "client " + cl.Name
		if err != nil {
			add(name, checkFail, hub.MessageOf(err), "fix or move the file, then: bb install "+cl.Name)
			continue
		}
		if !w.Installed {
			continue
		}
		r.Clients = append(r.Clients, w)
		a.doctorClient(ctx, ie, cl, w, global, r.Project, add)
	}
	if len(r.Clients) == 0 {
		add("clients", checkWarn, "no client is wired to this board here", "bb install <"+strings.Join(install.ClientNames(), "|")+">")
	}
}

// doctorGuard checks the git guard of the project.
func doctorGuard(r *doctorReport) {
	add := r.add
	if dir, err := hooksDir(r.Project); err != nil {
		add("guard", checkSkip, "not a git repository: no guard to check", "")
	} else {
		var missing []string
		for _, h := range []string{"pre-commit", "pre-push"} {
			if !isGuardScript(filepath.Join(dir, h)) {
				missing = append(missing, h)
			}
		}
		switch len(missing) {
		case 0:
			add("guard", checkOK, "pre-commit and pre-push guard installed in "+dir, "")
		case 2:
			add("guard", checkWarn, "the git guard is not installed: commits touching files another agent holds are not refused", "bb guard install")
		default:
			add("guard", checkFail, "the git guard is incomplete: "+strings.Join(missing, ", ")+" missing in "+dir, "bb guard install")
		}
	}
}

// doctorClient checks one wired client: files current, hooks running a bb
// that starts and pinning this board, the MCP entry answering, trust.
func (a *app) doctorClient(ctx context.Context, ie *install.Env, cl install.Client, w install.Wiring, global bool, project string, add func(name, status, detail, fix string)) {
	name := "client " + cl.Name
	fix := w.Fix(global)
	doctorClientEntries(cl, w, name, fix, add)
	// An idle session of a client bb cannot wake hears the team only at
	// its next prompt: the person is the one who is told.
	if !cl.Wakes && cl.WakeNote != "" {
		add(name+" wake", checkWarn, cl.WakeNote, "")
	}
	doctorClientHooks(ctx, cl, w, global, project, name, fix, add)
	// The MCP entry starts and answers.
	if w.MCPCommand != "" {
		if info, err := mcpInitialize(ctx, w.MCPCommand, w.MCPArgs, project); err != nil {
			add(name+" mcp", checkFail, fmt.Sprintf("%s: the MCP entry (%s %s) does not start: %s", cl.Title, w.MCPCommand, strings.Join(w.MCPArgs, " "), err), notFoundFix(err, fix))
		} else {
			add(name+" mcp", checkOK, fmt.Sprintf("%s: the MCP entry starts (%s)", cl.Title, info), "")
		}
	}
	doctorClientTrust(ie, cl, name, add)
}

// doctorClientEntries checks a client's written entries: the MCP entry
// there, the entries what this bb writes, and no machine path pinned in a
// file meant to be committed.
func doctorClientEntries(cl install.Client, w install.Wiring, name, fix string, add func(name, status, detail, fix string)) {
	switch {
	case w.MCPCommand == "":
		add(name, checkFail, fmt.Sprintf("%s: bb's hooks are there but the MCP entry %q is missing from %s", cl.Title, cl.Server, w.MCPPath), fix)
	case w.Outdated:
		// An install by an older bb (or edited by hand): each hook entry's
		// event and matcher against what this bb's install writes.
		var how []string
		for _, c := range w.HookChanges {
			how = append(how, c.String())
		}
		add(name, checkFail, fmt.Sprintf("%s: outdated: re-run %s (%s: %s)", cl.Title, fix, w.HooksPath, strings.Join(how, "; ")), fix)
	case !w.Current:
		add(name, checkFail, cl.Title+": the entries differ from what this bb writes (an older bb, or edited by hand)", fix)
	default:
		files := w.MCPPath
		if w.HooksPath != "" && len(w.Hooks) > 0 && w.HooksPath != w.MCPPath {
			files += ", " + w.HooksPath
		}
		add(name, checkOK, fmt.Sprintf("%s: entries current in %s", cl.Title, files), "")
	}
	// A file meant to be committed that pins this machine's path: every
	// clone and work tree would get a directory it lacks.
	if w.Pinned != "" {
		add(name+" committed", checkFail, fmt.Sprintf("%s: %s pins --dir %s, a path of this machine, in a file meant to be committed (every clone and work tree gets it); %s writes entries that find the board from where the client runs", cl.Title, w.PinnedIn, w.Pinned, fix), fix)
	}
}

// doctorClientHooks checks a client's hooks: their type, and that each
// command hook's bb starts and pins this board.
func doctorClientHooks(ctx context.Context, cl install.Client, w install.Wiring, global bool, project, name, fix string, add func(name, status, detail, fix string)) {
	if w.HookType == install.HookTypeMCP {
		add(name+" hook type", checkOK, cl.Title+": hooks answered by the session's bb mcp (mcp_tool hooks; the session start runs bb)", "")
	} else if w.HookType == install.HookTypeCommand && cl.Hooks != nil && cl.Hooks.MCPHooks {
		add(name+" hook type", checkOK, cl.Title+": command hooks (a bb process per event; this client version has no mcp_tool hooks)", "")
	}
	checked := map[string]bool{}
	for _, ev := range slices.Sorted(maps.Keys(w.Hooks)) {
		if w.HookTypes[ev] != install.HookTypeCommand {
			continue // answered by bb mcp, whose entry is checked below
		}
		exe, dir := install.CommandExe(w.Hooks[ev])
		if !global && dir != "" && project != "" && filepath.Clean(dir) != filepath.Clean(project) {
			add(name+" hooks", checkFail, fmt.Sprintf("%s: the %s hook pins --dir %s, not this board's %s", cl.Title, ev, dir, project), fix)
			break
		}
		if checked[exe] {
			continue
		}
		checked[exe] = true
		if err := runsVersion(ctx, exe); err != nil {
			add(name+" hooks", checkFail, fmt.Sprintf("%s: the hooks run %q, which does not start: %s", cl.Title, exe, err),
				notFoundFix(err, fix))
		} else {
			add(name+" hooks", checkOK, fmt.Sprintf("%s: the hooks run %s", cl.Title, exe), "")
		}
	}
}

// doctorClientTrust reports the client's own trust gate, for clients that
// have one.
func doctorClientTrust(ie *install.Env, cl install.Client, name string, add func(name, status, detail, fix string)) {
	if t := ie.CheckTrust(cl); t != nil {
		switch t.State {
		case install.TrustTrusted:
			add(name+" trust", checkOK, cl.Title+": "+t.Detail, "")
		case install.TrustUnknown:
			add(name+" trust", checkWarn, cl.Title+": "+t.Detail, t.Fix)
		default:
			add(name+" trust", checkFail, cl.Title+": "+t.Detail, t.Fix)
		}
	}
}

// errNotOnPath: a command is not found.
var errNotOnPath = errors.New("not found on PATH")

// notFoundFix is fix, or, when the program is not found, the way to put it
// within reach.
func notFoundFix(err error, fix string) string {
	if !errors.Is(err, errNotOnPath) {
		return fix
	}
	if !strings.Contains(fix, "--absolute") {
		fix += " --absolute"
	}
	return "put bb on PATH, or: " + fix
}

// runsVersion runs `exe --version` (found on PATH when bare).
func runsVersion(ctx context.Context, exe string) error {
	path, err := exec.LookPath(exe)
	if err != nil {
		return errNotOnPath
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mcpInitialize starts an MCP stdio server as a client would and sends
// initialize; it returns the server's name and version.
func mcpInitialize(ctx context.Context, command string, args []string, dir string) (string, error) {
	path, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("%s %w", command, errNotOnPath)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, path, args...)
	c.Dir = dir
	in, err := c.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		return "", err
	}
	defer func() { _ = in.Close(); _ = c.Wait() }()
	req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bb-doctor","version":"1"}}}` + "\n"
	if _, err := io.WriteString(in, req); err != nil {
		return "", err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				ServerInfo struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"serverInfo"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID != 1 {
			continue
		}
		if resp.Error != nil {
			return "", errors.New(resp.Error.Message)
		}
		return strings.TrimSpace(resp.Result.ServerInfo.Name + " " + resp.Result.ServerInfo.Version), nil
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = "it exited without answering initialize"
	}
	return "", errors.New(strings.Join(strings.Fields(msg), " "))
}

func printDoctor(w io.Writer, r *doctorReport) {
	if r.Project != "" {
		fmt.Fprintf(w, "project   %s\n", r.Project)
	}
	if r.Backend != "" {
		fmt.Fprintf(w, "backend   %s (%s)\n", r.Backend, r.Location)
	}
	fmt.Fprintf(w, "identity  %s (%s)\n", r.Identity, r.IdentitySource)
	for _, c := range r.Checks {
		mark := map[string]string{checkOK: "ok  ", checkWarn: "warn", checkFail: "FAIL", checkSkip: "skip"}[c.Status]
		fmt.Fprintf(w, "%s  %-20s %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "      %-20s fix: %s\n", "", c.Fix)
		}
	}
	if r.Healthy {
		fmt.Fprintln(w, "Everything bb checks works here.")
	} else {
		fmt.Fprintln(w, "Some checks failed: run the fix shown under each (or do what the check says).")
	}
}

// boardAccess warns when other users of the machine can read the board:
// its mail and memory are its owner's (bb init creates .bb/ 0700 and the
// database 0600; docs/security.md).
func boardAccess(db string, add func(name, status, detail, fix string)) {
	dir := filepath.Dir(db)
	var open []string
	for _, p := range []string{dir, db, db + "-wal", db + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue // -wal and -shm come and go
		}
		if fi.Mode().Perm()&0o077 != 0 {
			open = append(open, fmt.Sprintf("%s (%s)", p, fi.Mode().Perm()))
		}
	}
	if len(open) == 0 {
		add("board access", checkOK, "only its owner can read or write the board", "")
		return
	}
	add("board access", checkWarn, "other users of this machine can read the board's mail and memory: "+strings.Join(open, ", "),
		fmt.Sprintf("chmod 700 %s && chmod 600 %s*", shellquote.Quote(dir), shellquote.Quote(db)))
}

// boardFix is the one fix of a board that cannot be opened. A cause the
// store explained (an empty, foreign, damaged or read-only file; a log
// that does not match) names its own way out in the detail, which no
// second fix may contradict (re-initialising an intact board whose log was
// replaced loses it): the fix line is then bb init only for an empty file,
// which holds nothing left to lose.
func boardFix(err error, db string) string {
	if hub.IsCode(err, hub.CodeIOReadFailed) || hub.IsCode(err, hub.CodeIOWriteFailed) {
		if fi, serr := os.Stat(db); serr == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			return "bb init (a new, empty board in its place)"
		}
		return ""
	}
	return "bb init"
}
