//go:build linux

package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Waits of the file watcher: a burst of writes (one commit writes several
// pages) is taken as one change once quiet for settle; a change made by
// another process is looked at once more after confirm, in case its
// commit became visible only after its last write (the log's index is
// updated in shared memory, which raises no notification).
const (
	watchSettle  = 2 * time.Millisecond
	watchConfirm = 50 * time.Millisecond
)

// watchCommits calls wake when another process commits to the board,
// until ctx ends, using inotify on the board's folder (the write-ahead log
// is created and removed as processes come and go, so the folder is
// watched, not the file). A commit appends to the log with write(2),
// which inotify reports; a read writes nothing. own returns the log's mark
// (walMark) right after this process's last commit: a change that leaves
// the log at that mark is this process's own, which the feed hears of
// directly. While nothing is written the watcher costs nothing: no timer,
// no read of the database. live(true) is called once watching; an error
// (no inotify: a limit reached, an unusual file system) returns at once
// and the feed polls.
func watchCommits(ctx context.Context, path string, wake func(), live func(bool), own func() any) error {
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	changed := make(chan struct{}, 1)
	readErr := make(chan error, 1)
	go func() { readErr <- readEvents(f, base+"-wal", changed) }()
	live(true)
	defer live(false)
	mark := walMark(path)
	var seen any // the mark last woken for
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	confirm := time.NewTimer(time.Hour)
	confirm.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		case <-changed:
			settle.Reset(watchSettle)
		case <-settle.C:
			m := mark()
			if m == nil || m == seen || m == own() {
				continue
			}
			seen = m
			wake()
			confirm.Reset(watchConfirm)
		case <-confirm.C:
			wake()
		}
	}
}

// readEvents sends on changed (without blocking) whenever the folder's
// notifications name the log file, or were lost, until the read fails.
func readEvents(f *os.File, wal string, changed chan<- struct{}) error {
	want := []byte(wal)
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := f.Read(buf)
		if err != nil {
			return err
		}
		hit := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			hit = hit || ev.Mask&unix.IN_Q_OVERFLOW != 0 || bytes.Equal(name, want)
		}
		if hit {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}
}
