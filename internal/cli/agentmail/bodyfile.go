package agentmail

import (
	"errors"
	"io/fs"
	"os"
	"unicode/utf8"

	mailrules "github.com/blackboard-hub/bb/internal/hub/agentmail"
)

// readBodyFile reads --body-file here, in the process of the person who
// named it: the core never opens a file for a caller, so that a server
// (BB_SERVER) cannot be made to read its own files into a mail. What went
// wrong is passed as a problem, and the core refuses it in the order of
// agent-mail's other checks (TC6: an existing regular file of UTF-8 text,
// byte for byte).
func readBodyFile(path string) mailrules.MailBodyFile {
	f := mailrules.MailBodyFile{Path: path}
	p := path
	if p == "" {
		p = "." // Python's Path("") is the current directory
	}
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			f.Problem = mailrules.BodyFileNotFound
		} else {
			f.Problem, f.Reason = mailrules.BodyFileUnreadable, pathReason(err)
		}
		return f
	}
	if !fi.Mode().IsRegular() {
		f.Problem = mailrules.BodyFileNotRegular
		return f
	}
	b, err := os.ReadFile(p)
	if err != nil {
		f.Problem, f.Reason = mailrules.BodyFileUnreadable, pathReason(err)
		return f
	}
	if !utf8.Valid(b) {
		f.Problem = mailrules.BodyFileNotUTF8
		return f
	}
	f.Content = string(b)
	return f
}

// pathReason is the operating system's reason without the path and the
// operation ("permission denied", "is a directory").
func pathReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
