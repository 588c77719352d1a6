package procid

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// toolhelpTable is a Toolhelp snapshot of Windows' processes
// (CreateToolhelp32Snapshot, Process32First/Next: th32ProcessID,
// th32ParentProcessID, szExeFile), taken once per walk.
type toolhelpTable map[int]Proc

func osTable() Table {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	t := toolhelpTable{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		t[int(e.ProcessID)] = Proc{Name: windows.UTF16ToString(e.ExeFile[:]), Parent: int(e.ParentProcessID)}
	}
	return t
}

func (t toolhelpTable) Lookup(pid int) (Proc, bool) {
	p, ok := t[pid]
	return p, ok
}
