package procid

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// sysctlTable reads macOS's process table with sysctl kern.proc.pid.<pid>
// (struct kinfo_proc: kp_proc.p_comm, kp_eproc.e_ppid).
type sysctlTable struct{}

func osTable() Table { return sysctlTable{} }

func (sysctlTable) Lookup(pid int) (Proc, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || int(kp.Proc.P_pid) != pid {
		return Proc{}, false
	}
	comm := kp.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	return Proc{Name: string(comm), Parent: int(kp.Eproc.Ppid)}, true
}
