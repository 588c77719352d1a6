// Package termtext makes text from the board safe to print on a terminal.
//
// Anything an agent stored (a message body, a status line, a display name, a
// path) may hold control characters: ESC starts ANSI/OSC sequences that can
// clear the screen, retitle the window or move the cursor, CR and BS can
// overwrite what was printed before, and bidirectional overrides reorder what
// the reader sees. Human renderers pass every stored string through Line (or
// Text for multi-line bodies) so the terminal only ever receives control
// characters the program produced itself. JSON output goes through JSON,
// which escapes what the encoder leaves raw (DEL, C1, bidi) as \u escapes
// without changing the decoded values.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line returns s ready to print inside one line of human output: every
// control character (C0 including newline and tab, DEL, C1), every
// bidirectional formatting character and every invalid UTF-8 byte is replaced
// by a visible escape such as \x1b, \r, \u202e or \xff. Other text, including
// any printable Unicode, is unchanged.
func Line(s string) string { return escape(s, false) }

// Text is Line for multi-line text such as a message body: newline and tab
// are kept, everything else Line escapes is escaped.
func Text(s string) string { return escape(s, true) }

// Clean reports whether s prints unchanged through Line.
func Clean(s string) bool { return firstUnsafe(s, false) < 0 }

func escape(s string, multiline bool) string {
	i := firstUnsafe(s, multiline)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r, multiline):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func firstUnsafe(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r, multiline) {
			return i
		}
		i += size
	}
	return -1
}

func unsafeRune(r rune, multiline bool) bool {
	switch {
	case multiline && (r == '\n' || r == '\t'):
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	}
	return bidi(r)
}

// bidi reports the Unicode bidirectional formatting characters (embeddings,
// overrides, isolates and the implicit marks), which can make a line read
// differently from the bytes it holds.
func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Writer is a safety net for whole blocks of human output: everything
// written through it is escaped as Text does (newline and tab pass). Use it
// around a renderer that prints stored strings; it cannot tell colour codes
// the program meant from injected ones, so a renderer that colours its
// output escapes its fields with Line/Text and writes to the terminal
// directly instead.
type Writer struct{ W io.Writer }

// Write escapes p and writes it to the underlying writer. It reports len(p)
// on success, as io.Writer requires, even though more bytes may be written.
func (w Writer) Write(p []byte) (int, error) {
	s := string(p)
	if firstUnsafe(s, true) < 0 {
		return w.W.Write(p)
	}
	if _, err := io.WriteString(w.W, escape(s, true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSON escapes, in an encoded JSON document, the characters a JSON encoder
// leaves raw that a terminal would act on or that reorder what a reader
// sees: DEL, C1 controls and bidirectional formatting characters become
// \u escapes. The document decodes to exactly the same values (it stays
// the raw data, e.g. `bb export`); only its bytes are safe to print. C0
// controls are escaped by the encoder already. Such characters can only
// occur inside JSON strings, so every occurrence is rewritten.
func JSON(doc []byte) []byte {
	i := firstUnsafe(string(doc), true)
	if i < 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	out = append(out, doc[:i]...)
	for i < len(doc) {
		r, size := utf8.DecodeRune(doc[i:])
		if size > 1 || r == 0x7f {
			if r == 0x7f || (r >= 0x80 && r <= 0x9f) || bidi(r) {
				out = fmt.Appendf(out, `\u%04x`, r)
				i += size
				continue
			}
		}
		out = append(out, doc[i:i+size]...)
		i += size
	}
	return out
}
