//go:build !windows

package bb

import "os/exec"

// hideConsole is for Windows only: elsewhere a notifier opens no window.
func hideConsole(*exec.Cmd) {}
