//go:build unix

package sqlite

import "syscall"

// writable reports whether this process may create files in dir (SQLite's
// -wal and -shm). access(2) answers from the permissions and a read-only
// mount alike, without creating anything: every call opens the board, so
// this stays one system call.
func writable(dir string) bool {
	const wOK = 2 // W_OK
	return syscall.Access(dir, wOK) == nil
}
