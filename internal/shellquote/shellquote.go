// Package shellquote quotes words for a POSIX shell: the one quoter used
// wherever bb writes a command line another program runs (client hook
// entries, git hooks, the exports of `bb env`, hints that name a command).
package shellquote

import "strings"

// safe are the bytes a word may hold and still stand unquoted.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,"

// Quote returns s as one shell word: as is when every byte is safe,
// otherwise in single quotes (a quote inside written as '\”).
func Quote(s string) string {
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
