// Package kit holds what the three command-line programs (bb, vybe,
// agent-mail) decide the same way, so that they cannot drift apart: their
// one environment (Env: the standard streams and which of them are
// terminals, decided once at start-up with package terminal, and the
// defaults of an in-process caller's environment), how a command line is
// run (interrupts, streams), and where a command's document comes from (a
// flag, else stdin when it may hold one).
package kit

import (
	"io"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Document returns the document a command takes from the flag named field
// (value, when given) or else from stdin, when it may hold one
// (Env.StdinDocument: a pipe, a file, /dev/null). It reads at most limit+1
// bytes, so that the parser can refuse a document over the limit; a
// terminal or a closed stdin gives the flag's value (empty), never a prompt.
func (e Env) Document(field string, given bool, value string, limit int64) ([]byte, error) {
	if given || !e.StdinDocument() {
		return []byte(value), nil
	}
	b, err := io.ReadAll(io.LimitReader(e.Stdin, limit+1))
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeIOReadFailed, Field: field, Message: "cannot read stdin", Err: err}
	}
	return b, nil
}
