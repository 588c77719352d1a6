// Package terminal decides, once for the three command-line programs,
// whether a stream is an interactive terminal: the only place a program may
// prompt, colour its output or draw progress in place. A file, a pipe and
// /dev/null are not terminals (/dev/null is a character device, so a test
// on the file mode alone would count it).
package terminal

import (
	"os"

	"github.com/mattn/go-isatty"
)

// Is reports whether s is an *os.File open on a terminal (a tty, or a
// Cygwin/MSYS pty on Windows).
func Is(s any) bool {
	f, ok := s.(*os.File)
	if !ok || f == nil {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}
