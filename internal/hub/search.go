package hub

import (
	"strings"
	"time"
	"unicode"
)

// Kinds of things search finds.
const (
	SearchMessage  = "message"  // board posts and mail: subject, body
	SearchTask     = "task"     // title, description
	SearchMemory   = "memory"   // key, value
	SearchArtifact = "artifact" // path, description
	SearchLease    = "lease"    // a grant: the lease's name; its holder and value
)

// SearchKinds lists every kind, in the order filters name them.
var searchKinds = []string{SearchMessage, SearchTask, SearchMemory, SearchArtifact, SearchLease}

// SearchKinds returns the kinds search can be limited to.
func SearchKinds() []string { return append([]string(nil), searchKinds...) }

// Limits of a search query.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 100
	// MaxSearchQueryLen is the longest query accepted, in bytes.
	MaxSearchQueryLen = 500
	// MaxSearchTerms is the most words and phrases one query may hold.
	MaxSearchTerms = 16
)

// SearchTerm is one word or phrase of a parsed query. Every token is made of
// letters, digits and marks only, lower-cased; the last token of each term
// matches as a prefix ("reserv" finds "reserved").
type SearchTerm struct {
	Tokens []string
}

// SearchTerms is a parsed query with its filters, as the store receives it.
type SearchTerms struct {
	Terms []SearchTerm
	Kinds []string
	Agent string
	Since time.Time // zero = all time
	Limit int
	// Now hides memory entries that have expired.
	Now time.Time
}

// SearchRow is one match as the store returns it, best first.
type SearchRow struct {
	Kind string
	// Key identifies the row within its kind: a message's UUID, a task's
	// id, a memory entry's key, an artifact's path, a lease's name.
	Key string
	// Scope and ScopeID place a memory entry.
	Scope, ScopeID string
	Seq            int64 // messages only
	Title          string
	Body           string
	// Agent is who wrote it (sender, owner, producer, memory scope id);
	// To is a message's recipient.
	Agent string
	To    string
	At    time.Time
	// Score orders matches: higher is better (comparable within one search).
	Score float64
}

func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// WordSpan is one word of a text: its byte range and lower-cased form.
type WordSpan struct {
	// Start and End are its byte range in the text.
	Start, End int
	// Lower is the word lower-cased.
	Lower string
}

func Words(s string) []WordSpan {
	var out []WordSpan
	start := -1
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, WordSpan{start, i, strings.ToLower(s[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, WordSpan{start, len(s), strings.ToLower(s[start:])})
	}
	return out
}
