//go:build unix

package leases

import (
	"errors"
	"syscall"
)

// processAlive sends signal 0: no error, or EPERM (another user's
// process), means it runs.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
