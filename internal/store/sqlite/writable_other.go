//go:build !unix

package sqlite

import "os"

// writable reports whether this process may create files in dir (SQLite's
// -wal and -shm), by creating and removing one.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".bb-write-check-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}
