//go:build linux

package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchCommits calls wake whenever another process (or this one) writes
// the board's write-ahead log or its file, until ctx ends, using inotify on
// the board's folder (the log is created and removed as processes come and
// go, so the folder is watched, not the file). A commit appends to the log
// with write(2), which inotify reports; a read writes nothing. While
// nothing is written it costs nothing: no timer, no read of the database.
// live(true) is called once watching; an error (no inotify: a limit
// reached, an unusual file system) returns at once and the feed polls.
func watchCommits(ctx context.Context, path string, wake func(), live func(bool)) error {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return err
	}
	// A non-blocking descriptor wrapped by os.NewFile waits in the
	// runtime's poller, and Close from another goroutine ends the Read.
	f := os.NewFile(uintptr(fd), "inotify")
	defer f.Close()
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	const mask = unix.IN_MODIFY | unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_CLOSE_WRITE
	if _, err := unix.InotifyAddWatch(fd, dir, mask); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	names := [][]byte{[]byte(base), []byte(base + "-wal")}
	live(true)
	defer live(false)
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := f.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		hit := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			name = bytes.TrimRight(name, "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				hit = true // events were lost: look anyway
			}
			for _, want := range names {
				if bytes.Equal(name, want) {
					hit = true
				}
			}
		}
		if hit {
			wake()
		}
	}
}
