package flagerr

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
)

// Suggest is Message for a command whose flags are fs: an unknown long
// flag close to one of fs's (--tl, --expire for --ttl's "expires") names
// that flag and what it takes.
func Suggest(err error, fs *pflag.FlagSet) (string, bool) {
	msg, ok := Message(err)
	var ne *pflag.NotExistError
	if fs == nil || !errors.As(err, &ne) || ne.GetSpecifiedName() == "" {
		return msg, ok
	}
	name := ne.GetSpecifiedName()
	if f := closestFlag(fs, name); f != nil {
		return fmt.Sprintf("unknown flag: --%s; did you mean --%s? (%s)", name, f.Name, f.Usage), true
	}
	return msg, ok
}

// closestFlag is the visible flag of fs that name most likely meant: one
// spelled within two edits of it (or of which it is a prefix), else the
// only one whose description holds a word of name ("expires-in" and
// "minutes until the reservation expires"); nil when there is none.
func closestFlag(fs *pflag.FlagSet, name string) *pflag.Flag {
	var best *pflag.Flag
	bestDist := 3
	var byWord []*pflag.Flag
	words := nameWords(name)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		d := distance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d < bestDist && d <= max(1, len(f.Name)/2) {
			best, bestDist = f, d
		}
		for _, w := range usageWords(f.Usage) {
			if words[w] {
				byWord = append(byWord, f)
				return
			}
		}
	})
	if best != nil {
		return best
	}
	if len(byWord) == 1 {
		return byWord[0]
	}
	return nil
}

// nameWords are the words of a flag name of four letters or more.
func nameWords(name string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 4 {
			out[w] = true
		}
	}
	return out
}

func usageWords(usage string) []string {
	return strings.FieldsFunc(strings.ToLower(usage), func(r rune) bool { return !unicode.IsLetter(r) })
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
