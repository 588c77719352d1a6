package leases

import (
	"net"
	"os"
	"strconv"
)

// Machine is what the leases need of the host they run on.
type Machine interface {
	// Host names this host (as callers name theirs in AcquireInput.Host).
	Host() string
	// PortFree reports whether a TCP port can be bound on this host now
	// (bound and released at once).
	PortFree(port int) bool
	// Alive reports whether process pid of this host is running.
	Alive(pid int) bool
	// PID is this process's id.
	PID() int
}

// OSMachine is the host this process runs on.
type OSMachine struct{}

// Host is the host name the operating system reports.
func (OSMachine) Host() string {
	h, _ := os.Hostname()
	return h
}

// PortFree binds port on every address and releases it. A listener on
// the loopback address alone (a dev server's default) also makes the
// wildcard bind fail, so one probe covers both.
func (OSMachine) PortFree(port int) bool {
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	_ = l.Close()
	l, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// Alive asks the operating system whether pid runs (alive.go).
func (OSMachine) Alive(pid int) bool { return processAlive(pid) }

// PID is os.Getpid.
func (OSMachine) PID() int { return os.Getpid() }
