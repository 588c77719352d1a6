package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Explain turns an SQLite failure caused by the environment (a read-only
// file or directory, a full disk, a damaged or foreign file, a directory in
// the file's place) into a one-line error that names the cause and the fix.
// It returns nil for any other error, which stays an internal error.
func Explain(err error, path string) error {
	var se *sqlite3.Error
	if !errors.As(err, &se) {
		return nil
	}
	dir := filepath.Dir(path)
	switch se.Code() & 0xff {
	case sqlite3lib.SQLITE_READONLY, sqlite3lib.SQLITE_PERM:
		return readOnly(path, err)
	case sqlite3lib.SQLITE_FULL:
		return &hub.Error{Code: hub.CodeIOWriteFailed, Err: err, Message: fmt.Sprintf(
			"the disk holding %s is full: free some space and retry (nothing was written)", dir)}
	case sqlite3lib.SQLITE_CORRUPT:
		return corrupt(path, err)
	case sqlite3lib.SQLITE_NOTADB:
		return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
			"%s is not a Blackboard database (not an SQLite file): move it aside and run 'bb init' to start a new board", path)}
	case sqlite3lib.SQLITE_CANTOPEN:
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return isDir(path, err)
		}
		if !writable(dir) {
			return readOnly(path, err)
		}
		return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
			"cannot open %s: check that the file and its directory exist and that you may read them", path)}
	case sqlite3lib.SQLITE_IOERR:
		if !writable(dir) {
			return readOnly(path, err)
		}
		return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
			"disk I/O error on %s: check the disk (free space, the system log) and retry", path)}
	}
	return nil
}

func readOnly(path string, err error) error {
	return &hub.Error{Code: hub.CodeIOWriteFailed, Err: fmt.Errorf("%w: %w", hub.ErrReadOnlyBoard, err), Message: fmt.Sprintf(
		"the board %s is read-only (the file or its directory %s cannot be written): make both writable to record changes (commands that only read, such as bb log, bb events and bb artifacts, still work)", path, filepath.Dir(path))}
}

func corrupt(path string, err error) error {
	return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
		"the database %s is damaged: stop every bb process, keep a copy (cp %[1]s %[1]s.bak), then rebuild it with 'sqlite3 %[1]s .recover | sqlite3 recovered.db' and move recovered.db into its place, or restore a backup", path)}
}

func isDir(path string, err error) error {
	return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
		"%s is a directory, not the database file: move it aside and run 'bb init'", path)}
}
