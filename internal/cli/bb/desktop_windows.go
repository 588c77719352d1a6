package bb

import (
	"os/exec"
	"syscall"
)

// hideConsole keeps the notifier's PowerShell from opening a console
// window (CREATE_NO_WINDOW) while it raises a toast.
func hideConsole(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: 0x08000000}
}
