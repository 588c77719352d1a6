// Package procid finds the coding-agent client process a hook or an MCP
// server was started by. A client (Claude Code, Codex, Gemini CLI, Cursor)
// starts its MCP servers and its hook commands as child processes, hooks
// usually through a shell; the client's process id is therefore the key
// both can compute, and the board maps it to the session's agent.
package procid

import (
	"os"
	"strconv"
	"strings"
)

// shells are the programs a client may run a hook command through; they are
// skipped to reach the client itself.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "env": true, "cmd.exe": true, "powershell.exe": true, "pwsh": true}

// Client returns the process id of the client that started this process:
// the parent, or, when the parent is a shell, the first ancestor that is
// not one (at most three levels up; Linux /proc only, the parent elsewhere).
func Client() int64 {
	pid := os.Getppid()
	for i := 0; i < 3 && pid > 1; i++ {
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err != nil || !shells[strings.TrimSpace(string(comm))] {
			break
		}
		pp, ok := parentOf(pid)
		if !ok {
			break
		}
		pid = pp
	}
	return int64(pid)
}

// parentOf reads the parent pid from /proc/<pid>/stat ("pid (comm) state
// ppid …"; comm may hold spaces and parentheses, so parse after the last ')').
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil
}
