package termtext

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where Clip and ClipBytes cut.
const Ellipsis = "…"

// Clip returns s when it has at most n characters (runes), else its first
// n-1 followed by Ellipsis: n characters in all. n < 1 returns s.
func Clip(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + Ellipsis
}

// ClipBytes returns s when it has at most n bytes, else its first n bytes
// less a character they would cut in two, followed by Ellipsis (a byte
// budget for a context a client caps in bytes). n < 1 returns s.
func ClipBytes(s string, n int) string {
	if n < 1 || len(s) <= n {
		return s
	}
	cut := s[:n]
	for len(cut) > 0 {
		r, size := utf8.DecodeLastRuneInString(cut)
		if r != utf8.RuneError || size != 1 {
			break
		}
		cut = cut[:len(cut)-1]
	}
	return cut + Ellipsis
}

// FirstLine is the first line of s that is not blank, trimmed ("" when
// there is none).
func FirstLine(s string) string {
	for {
		line, rest, more := strings.Cut(s, "\n")
		if line = strings.TrimSpace(line); line != "" || !more {
			return line
		}
		s = rest
	}
}
