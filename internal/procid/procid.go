// Package procid finds the coding-agent client process a hook or an MCP
// server was started by. A client (Claude Code, Codex, Gemini CLI, Cursor)
// starts its MCP servers and its hook commands as child processes, hooks
// usually through a shell; the client's process id is therefore the key
// both can compute, and the board maps it to the session's agent.
//
// The walk up the process tree reads each platform's own process table:
// /proc on Linux, sysctl kern.proc.pid on macOS, a Toolhelp snapshot on
// Windows; elsewhere only the parent is known.
package procid

import (
	"os"
	"path/filepath"
	"strings"
)

// shells are the programs a client may run a hook command through; they are
// skipped to reach the client itself (names compared in lower case, without
// a Windows ".exe"). So are git and the git hooks bb guard installs: bb
// guard check runs in the pre-commit or pre-push script (a script's process
// is named after its file), under git, which an agent's shell tool ran,
// under the client.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "env": true,
	"cmd": true, "powershell": true, "pwsh": true, "git": true, "pre-commit": true, "pre-push": true}

// Proc is what the walk needs to know of one process.
type Proc struct {
	// Name is the program's name (a base name, or a path).
	Name string
	// Parent is the parent's process id.
	Parent int
}

// Table looks processes up by id; ok is false when pid is unknown.
type Table interface {
	Lookup(pid int) (p Proc, ok bool)
}

// maxShells bounds the walk: a hook runs through at most a few shells (a
// git hook: its own shell, git, and the shell tool's one or two).
const maxShells = 5

// Client returns the process id of the client that started this process:
// the parent, or, when the parent is a shell, the first ancestor that is
// not one.
func Client() int64 {
	return int64(Walk(osTable(), os.Getppid()))
}

// Walk returns the client from pid (this process's parent): pid itself,
// or, while it is a shell, its parent, at most maxShells levels up. An
// unknown process, or one without a parent, ends the walk.
func Walk(t Table, pid int) int {
	path := WalkPath(t, pid)
	return path[len(path)-1]
}

// ClientPath returns the processes from this process's parent up to its
// client: the parent first, the client (Client's answer) last, the
// shells between them in order.
func ClientPath() []int64 {
	path := WalkPath(osTable(), os.Getppid())
	out := make([]int64, len(path))
	for i, p := range path {
		out[i] = int64(p)
	}
	return out
}

// WalkPath is Walk's way up from pid: pid first, then each shell's
// parent, the client last.
func WalkPath(t Table, pid int) []int {
	path := []int{pid}
	if t == nil {
		return path
	}
	for i := 0; i < maxShells && pid > 1; i++ {
		p, ok := t.Lookup(pid)
		if !ok || !isShell(p.Name) || p.Parent <= 0 {
			break
		}
		pid = p.Parent
		path = append(path, pid)
	}
	return path
}

// isShell reports whether a program name is a shell's.
func isShell(name string) bool {
	name = strings.ToLower(filepath.Base(strings.ReplaceAll(strings.TrimSpace(name), `\`, "/")))
	return shells[strings.TrimSuffix(name, ".exe")]
}

// Alive reports whether process pid still runs, as far as this platform's
// process table tells (true where it is not read): an idle session's
// waiter ends once its client is gone.
func Alive(pid int64) bool {
	t := osTable()
	if t == nil {
		return true
	}
	_, ok := t.Lookup(int(pid))
	return ok
}
