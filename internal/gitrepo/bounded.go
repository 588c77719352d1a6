package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// What a checkout may hold is not trusted: a .git that is a symbolic link
// to /dev/zero, a FIFO, or a file of 100 MB would make a plain read run
// without end, block in open, or read it all, in every bb command that
// finds its board from the working directory and in every hook. Each file
// of the layout is therefore read bounded: regular files only (a FIFO is
// opened without blocking, then refused), at most a few KiB, within a
// time limit (a hung network file system answers nothing).
const (
	// MaxLineFile bounds the files of one line: a .git file ("gitdir:
	// <path>"), commondir, HEAD, the fingerprint cache. A path is at most
	// 4 KiB on Linux.
	MaxLineFile = 8 << 10
	// MaxConfig bounds how much of a git config file is read for
	// core.bare and core.worktree (the [core] section comes first in
	// every file git writes); the rest is ignored.
	MaxConfig = 256 << 10
	// ReadTimeout bounds one read of a layout file.
	ReadTimeout = 2 * time.Second
)

// errTooLarge and errSlow (and notRegular) are the causes readBounded
// reports, worded by layoutErr.
var (
	errTooLarge = errors.New("too large")
	errSlow     = errors.New("no answer in time")
)

type notRegular struct{ mode fs.FileMode }

func (e notRegular) Error() string { return "not a regular file (" + modeWord(e.mode) + ")" }

// modeWord names a file's type for people.
func modeWord(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// readBounded reads the regular file p, at most limit bytes. With cut,
// a larger file yields its first limit bytes; without, errTooLarge. A
// file that is not regular (after following symbolic links) is
// notRegular; a read that takes longer than ReadTimeout is errSlow (the
// read goes on in the background and its result is dropped).
func readBounded(p string, limit int64, cut bool) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readRegular(p, limit, cut)
		done <- result{b, err}
	}()
	t := time.NewTimer(ReadTimeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.b, r.err
	case <-t.C:
		return nil, &fs.PathError{Op: "read", Path: p, Err: errSlow}
	}
}

func readRegular(p string, limit int64, cut bool) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: notRegular{fi.Mode()}}
	}
	if fi.Size() > limit && !cut {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errTooLarge}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		if !cut {
			return nil, &fs.PathError{Op: "read", Path: p, Err: errTooLarge}
		}
		b = b[:limit]
	}
	return b, nil
}

// layoutErr words a failed read of the layout file p of the work tree at
// top.
func layoutErr(top, p string, limit int64, err error) *Error {
	why := unwrapPath(err)
	var nr notRegular
	switch {
	case errors.As(why, &nr):
		return &Error{Dir: top, Msg: fmt.Sprintf("%s is %s, not a regular file: git's layout holds a directory or a one-line file there; repair it, or pass --dir/BB_DIR naming the board's project", p, modeWord(nr.mode))}
	case errors.Is(why, errTooLarge):
		return &Error{Dir: top, Msg: fmt.Sprintf("%s is larger than %d KiB, too large for a one-line git file (\"gitdir: <path>\"); repair it, or pass --dir/BB_DIR naming the board's project", p, limit>>10)}
	case errors.Is(why, errSlow):
		return &Error{Dir: top, Msg: fmt.Sprintf("reading %s did not finish within %s (a hung file system?); pass --dir/BB_DIR naming the board's project", p, ReadTimeout)}
	}
	return &Error{Dir: top, Msg: fmt.Sprintf("cannot read %s: %v", p, why)}
}
