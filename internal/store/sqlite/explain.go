package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

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
	case sqlite3lib.SQLITE_CORRUPT, sqlite3lib.SQLITE_NOTADB:
		// Advice to move the file aside, re-initialise or rebuild it is
		// given only once the file itself is shown to deserve it: a board
		// whose -wal file was deleted or replaced under a running process
		// fails the same way, and its file is intact.
		switch CheckFile(path) {
		case FileNotSQLite:
			return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
				"%s is not a Blackboard database (not an SQLite file): move it aside and run 'bb init' to start a new board", path)}
		case FileDamaged:
			return corrupt(path, err)
		case FileIntact:
			return logMismatch(path, err)
		default:
			return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
				"cannot read the board %s (SQLite: %s): check the file with 'sqlite3 %[1]s \"PRAGMA integrity_check\"' before changing anything", path, sqlite3.ErrorCodeString[se.Code()])}
		}
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
		if se.Code() == sqlite3lib.SQLITE_IOERR_SHORT_READ && CheckFile(path) == FileIntact {
			// A log shorter than the shared index says: it was deleted
			// or replaced under a process that has the board open.
			return logMismatch(path, err)
		}
		return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
			"disk I/O error on %s: check the disk (free space, the system log) and retry", path)}
	}
	return nil
}

// FileState is what CheckFile found.
type FileState int

// The states of a database file, checked by itself (without its -wal).
const (
	FileUnknown   FileState = iota // could not be checked (unreadable, too slow)
	FileNotSQLite                  // does not start with SQLite's header
	FileDamaged                    // an SQLite file that fails its quick check
	FileIntact                     // an SQLite file that passes it
)

// checkTimeout bounds CheckFile's quick check (it reads the whole file).
const checkTimeout = 10 * time.Second

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// CheckFile examines the database file at path by itself: its header, then
// SQLite's quick check on the file alone, read-only and ignoring its -wal
// and -shm files (immutable), so that it judges the file, not a log that
// may have been swapped under it.
func CheckFile(path string) FileState {
	f, err := os.Open(path)
	if err != nil {
		return FileUnknown
	}
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) != sqliteHeader {
		return FileNotSQLite
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		return FileUnknown
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&res); err != nil {
		var se *sqlite3.Error
		if errors.As(err, &se) {
			if c := se.Code() & 0xff; c == sqlite3lib.SQLITE_CORRUPT || c == sqlite3lib.SQLITE_NOTADB {
				return FileDamaged
			}
		}
		return FileUnknown
	}
	if res != "ok" {
		return FileDamaged
	}
	return FileIntact
}

// logMismatch explains a board whose file is intact but whose log is not the
// one the processes that have it open wrote.
func logMismatch(path string, err error) error {
	return &hub.Error{Code: hub.CodeIOReadFailed, Err: err, Message: fmt.Sprintf(
		"cannot read the board %s, although the database file itself is intact: its write-ahead log (%[1]s-wal) does not match it, most likely because the log was deleted or replaced while a bb process (bb serve, bb mcp) had the board open. Stop those processes and retry; do not delete or re-initialise the board", path)}
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
