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

// parentOf reads the parent pid from /proc/<pid>/stat ("pid (comm) state
// ppid …"; comm may hold spaces and parentheses, so parse after the last ')').
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStat(string(b))
}

func parseStat(s string) (int, bool) {
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
