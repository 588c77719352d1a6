package bb

import (
	"fmt"
	"io"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// Colour. Human output marks a few things in colour — presence and
// liveness markers, mail priority tags, event types, the "Error" of an
// error — and the matched words of bb search in bold, and nothing else. Whether to colour is decided once per stream
// (colorOn) from --color and the environment; the codes are written only by
// mark, around text it escapes itself, so text stored on the board can
// never carry an escape sequence to the terminal.

// The --color values.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// validColor refuses a --color value other than auto, always or never.
func validColor(v string) error {
	switch v {
	case colorAuto, colorAlways, colorNever:
		return nil
	}
	return fmt.Errorf("invalid --color %q: expected auto, always or never", v)
}

// colorOn decides whether output on a stream gets colour: always with
// --color always; never with --color never or --json; with auto (the
// default) only on a terminal, when NO_COLOR is unset or empty and TERM is
// not "dumb". An explicit --color always wins over NO_COLOR, as
// https://no-color.org/ asks of per-invocation options.
func (a *app) colorOn(terminal bool) bool {
	switch a.g.color {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	if a.g.json || !terminal {
		return false
	}
	return a.env.Getenv("NO_COLOR") == "" && a.env.Getenv("TERM") != "dumb"
}

// style is an SGR colour (the parameters between ESC[ and m).
type style string

// The few styles bb uses.
const (
	styleNone  style = ""
	styleGood  style = "32" // green: active
	styleWarn  style = "33" // yellow: quiet, stale, high priority
	styleBad   style = "31" // red: offline, evicted, critical, Error
	styleEvent style = "36" // cyan: event types
	styleBold  style = "1"  // bold: the matched words of bb search
)

// presenceStyle colours a presence or liveness word of the core's
// vocabulary.
func presenceStyle(word string) style {
	switch word {
	case string(hub.PresActive):
		return styleGood
	case string(hub.PresQuiet), string(hub.PresStale):
		return styleWarn
	case string(hub.PresOffline), "evicted":
		return styleBad
	}
	return styleNone
}

// priorityStyle colours a mail or message priority.
func priorityStyle(p hub.Priority) style {
	switch p {
	case hub.PriorityCritical:
		return styleBad
	case hub.PriorityHigh:
		return styleWarn
	}
	return styleNone
}

// humanOut is the writer human renderers print to. Everything written to
// it passes the termtext safety net (control characters escaped); only
// mark adds colour codes, around text it escapes the same way.
type humanOut struct {
	raw   io.Writer
	safe  termtext.Writer
	color bool
}

func newHumanOut(w io.Writer, color bool) *humanOut {
	return &humanOut{raw: w, safe: termtext.Writer{W: w}, color: color}
}

func (h *humanOut) Write(p []byte) (int, error) { return h.safe.Write(p) }

// mark prints s on w in style st when w is a colour humanOut, plainly
// otherwise; either way s is escaped like any other human output.
func mark(w io.Writer, st style, s string) {
	h, ok := w.(*humanOut)
	if !ok || !h.color || st == styleNone || s == "" {
		_, _ = io.WriteString(w, s)
		return
	}
	_, _ = io.WriteString(h.raw, "\x1b["+string(st)+"m")
	_, _ = io.WriteString(h.safe, s)
	_, _ = io.WriteString(h.raw, "\x1b[0m")
}

// markPad is mark followed by spaces up to width cells (s is one-cell
// text: event types, markers).
func markPad(w io.Writer, st style, s string, width int) {
	mark(w, st, s)
	if n := width - len([]rune(termtext.Line(s))); n > 0 {
		_, _ = io.WriteString(w, strings.Repeat(" ", n))
	}
}
