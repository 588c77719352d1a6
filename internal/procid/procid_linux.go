package procid

import (
	"os"
	"strconv"
	"strings"
)

// procTable reads Linux's /proc.
type procTable struct{}

func osTable() Table { return procTable{} }

func (procTable) Lookup(pid int) (Proc, bool) {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return Proc{}, false
	}
	parent, ok := parentOf(pid)
	if !ok {
		return Proc{}, false
	}
	return Proc{Name: strings.TrimSpace(string(comm)), Parent: parent}, true
}

// parentOf reads the parent pid of a running process from
// /proc/<pid>/stat; false for a process that is gone, zombies included: a
// zombie (state Z, ended and not yet reaped) keeps its /proc entry, and in
// a container whose first process reaps no orphans a client killed with
// SIGKILL stays one for ever — a wake waiter that took it for alive never
// ended.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	parent, state, ok := parseStat(string(b))
	if !ok || state == "Z" || state == "X" || state == "x" {
		return 0, false
	}
	return parent, true
}

// parseStat reads the state and the parent pid from a /proc/<pid>/stat
// line ("pid (comm) state ppid …"; comm may hold spaces and parentheses,
// so the fields are read after the last ')').
func parseStat(s string) (parent int, state string, ok bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, f[0], true
}
