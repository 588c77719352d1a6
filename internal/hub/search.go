package hub

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kinds of things search finds.
const (
	SearchMessage  = "message"  // board posts and mail: subject, body
	SearchTask     = "task"     // title, description
	SearchMemory   = "memory"   // key, value
	SearchArtifact = "artifact" // path, description
)

// SearchKinds lists every kind, in the order filters name them.
var searchKinds = []string{SearchMessage, SearchTask, SearchMemory, SearchArtifact}

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
	// maxSearchToken is the longest word kept (longer words are cut).
	maxSearchToken = 64
	// snippetRunes is the length of a snippet around the first match.
	snippetRunes = 160
)

// SearchQuery is one full-text search.
type SearchQuery struct {
	// Text is what the person typed: words (each must appear, as a word or
	// the start of one) and "quoted phrases". Anything else (operators,
	// punctuation, unbalanced quotes) is read as plain words.
	Text string
	// Kinds limits the search (message, task, memory, artifact); empty
	// means every kind.
	Kinds []string
	// Agent keeps what the agent wrote or received (messages), owns
	// (tasks), produced (artifacts) or keeps in its own scope (memory).
	Agent string
	// Since keeps what was written or changed in this window (0 = all).
	Since time.Duration
	Limit int
}

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
	// id, a memory entry's key, an artifact's path.
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

// SearchTx is the full-text index.
type SearchTx interface {
	// Search returns the best matches of q, at most q.Limit, best first.
	// The index follows every write in the same transaction.
	Search(ctx context.Context, q SearchTerms) ([]SearchRow, error)
}

// SearchHit is one result shown to a person or a script.
type SearchHit struct {
	Kind string `json:"kind"`
	// ID is how the other commands name it: the message seq ("42"), the
	// task id, the memory key, the artifact path.
	ID    string `json:"id"`
	Seq   int64  `json:"seq,omitempty"`
	UUID  string `json:"uuid,omitempty"`
	Title string `json:"title"`
	// Scope is a memory entry's scope ("global", "agent:ana"…).
	Scope string    `json:"scope,omitempty"`
	Agent string    `json:"agent,omitempty"`
	To    string    `json:"to,omitempty"`
	At    time.Time `json:"at"`
	// Snippet is a short excerpt around the first match; Marks are the
	// byte ranges [start, end) of the matched words within it.
	Snippet string   `json:"snippet"`
	Marks   [][2]int `json:"marks"`
	// TitleMarks are the matched words within Title.
	TitleMarks [][2]int `json:"title_marks"`
	Score      float64  `json:"score"`
}

// SearchResult is the answer to one search.
type SearchResult struct {
	Query string      `json:"query"`
	Hits  []SearchHit `json:"hits"`
}

// ParseSearchQuery turns what a person typed into terms. Words are runs of
// letters, digits and marks; a double-quoted run of words is a phrase; an
// unquoted run is split into single words. Every other character only
// separates words, so no input reaches the index as syntax. A query with no
// word at all is an error.
func ParseSearchQuery(text string) ([]SearchTerm, error) {
	if len(text) > MaxSearchQueryLen {
		return nil, FieldErr(CodeInvalidInput, "query", "the search query is too long (%d bytes; at most %d)", len(text), MaxSearchQueryLen)
	}
	if !utf8.ValidString(text) {
		return nil, FieldErr(CodeInvalidInput, "query", "the search query is not valid UTF-8 text")
	}
	var terms []SearchTerm
	add := func(part string, phrase bool) {
		toks := searchTokens(part)
		if len(toks) == 0 {
			return
		}
		if phrase {
			terms = append(terms, SearchTerm{Tokens: toks})
			return
		}
		for _, t := range toks {
			terms = append(terms, SearchTerm{Tokens: []string{t}})
		}
	}
	parts := strings.Split(text, `"`)
	for i, p := range parts {
		// Odd parts are inside quotes; a last odd part has no closing
		// quote and is read as plain words.
		add(p, i%2 == 1 && i < len(parts)-1)
	}
	if len(terms) == 0 {
		return nil, FieldErr(CodeInvalidInput, "query", "the search query has no words: type what to look for")
	}
	terms = dedupTerms(terms)
	if len(terms) > MaxSearchTerms {
		return nil, FieldErr(CodeInvalidInput, "query", "the search query has too many words (%d; at most %d)", len(terms), MaxSearchTerms)
	}
	return terms, nil
}

func dedupTerms(in []SearchTerm) []SearchTerm {
	seen := map[string]bool{}
	out := in[:0]
	for _, t := range in {
		k := strings.Join(t.Tokens, " ")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// searchTokens splits s into lower-cased words, each cut to maxSearchToken
// bytes (on a rune boundary).
func searchTokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) }) {
		f = strings.ToLower(f)
		if len(f) > maxSearchToken {
			cut := maxSearchToken
			for cut > 0 && !utf8.RuneStart(f[cut]) {
				cut--
			}
			f = f[:cut]
		}
		out = append(out, f)
	}
	return out
}

// Search finds messages, mail, tasks, memory and artifacts by their words,
// best matches first, each with a highlighted snippet.
func (s *Service) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	terms, err := ParseSearchQuery(q.Text)
	if err != nil {
		return SearchResult{}, err
	}
	st := SearchTerms{Terms: terms, Agent: strings.TrimSpace(q.Agent), Limit: ClampLimit(q.Limit, DefaultSearchLimit, MaxSearchLimit), Now: s.Now()}
	if q.Since < 0 {
		return SearchResult{}, FieldErr(CodeInvalidInput, "since", "since must not be negative")
	}
	if q.Since > 0 {
		st.Since = s.Now().Add(-q.Since)
	}
	for _, typed := range q.Kinds {
		k := strings.ToLower(strings.TrimSpace(typed))
		if k == "mail" {
			k = SearchMessage
		}
		if k != SearchMemory { // "tasks", "messages", "artifacts"
			k = strings.TrimSuffix(k, "s")
		}
		if !slices.Contains(searchKinds, k) {
			return SearchResult{}, FieldErr(CodeInvalidInput, "kind", "unknown kind %q: use one of %s", typed, strings.Join(searchKinds, ", "))
		}
		if !slices.Contains(st.Kinds, k) {
			st.Kinds = append(st.Kinds, k)
		}
	}
	rows, err := Read(ctx, s, func(tx Tx) ([]SearchRow, error) { return tx.Search(ctx, st) })
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Query: q.Text, Hits: make([]SearchHit, 0, len(rows))}
	for _, r := range rows {
		h := SearchHit{Kind: r.Kind, ID: r.Key, Title: r.Title, Agent: r.Agent, To: r.To, At: r.At, Score: r.Score}
		body := r.Body
		switch r.Kind {
		case SearchMessage:
			h.ID, h.Seq, h.UUID = strconv.FormatInt(r.Seq, 10), r.Seq, r.Key
			if h.Title == "" {
				h.Title = firstLine(r.Body, 80)
			}
		case SearchMemory:
			h.Title, h.Scope = r.Key, r.Scope
			if r.ScopeID != "" {
				h.Scope = r.Scope + ":" + r.ScopeID
			}
		}
		h.TitleMarks = markWords(h.Title, terms)
		h.Snippet, h.Marks = snippet(body, terms)
		res.Hits = append(res.Hits, h)
	}
	sort.SliceStable(res.Hits, func(i, j int) bool { return res.Hits[i].Score > res.Hits[j].Score })
	return res, nil
}

func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		return string(r[:max-1]) + "…"
	}
	return s
}

// wordSpan is one word of a text: its byte range and lower-cased form.
type wordSpan struct {
	start, end int
	lower      string
}

func words(s string) []wordSpan {
	var out []wordSpan
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, wordSpan{start, i, strings.ToLower(s[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, wordSpan{start, len(s), strings.ToLower(s[start:])})
	}
	return out
}

// matches reports which words of ws a term matches: every token in order,
// the last as a prefix.
func matchedWords(ws []wordSpan, terms []SearchTerm) []bool {
	hit := make([]bool, len(ws))
	for _, t := range terms {
		n := len(t.Tokens)
		for i := 0; i+n <= len(ws); i++ {
			if termAt(ws, i, t) {
				for k := 0; k < n; k++ {
					hit[i+k] = true
				}
			}
		}
	}
	return hit
}

// markWords returns the byte ranges of the matched words of s.
func markWords(s string, terms []SearchTerm) [][2]int {
	ws := words(s)
	marks := [][2]int{}
	for i, h := range matchedWords(ws, terms) {
		if h {
			marks = append(marks, [2]int{ws[i].start, ws[i].end})
		}
	}
	return marks
}

// snippet cuts about snippetRunes of s around its first match (the start of
// s when nothing matches there), with "…" where it was cut, and the ranges
// of the matched words within the snippet.
func snippet(s string, terms []SearchTerm) (string, [][2]int) {
	s = strings.Join(strings.Fields(s), " ")
	ws := words(s)
	hit := matchedWords(ws, terms)
	first := -1
	for i, h := range hit {
		if h {
			first = i
			break
		}
	}
	from := 0
	if first >= 0 {
		// Start a few words before the first match.
		w := first - 4
		if w < 0 {
			w = 0
		}
		from = ws[w].start
		if runesBetween(s, from, ws[first].start) > snippetRunes/2 {
			from = ws[first].start
		}
	}
	to := from
	for n := 0; to < len(s) && n < snippetRunes; n++ {
		_, size := utf8.DecodeRuneInString(s[to:])
		to += size
	}
	// Do not cut a word in half.
	for to < len(s) {
		r, size := utf8.DecodeRuneInString(s[to:])
		if !isWordRune(r) {
			break
		}
		to += size
	}
	prefix, suffix := "", ""
	if from > 0 {
		prefix = "…"
	}
	if to < len(s) {
		suffix = "…"
	}
	out := prefix + s[from:to] + suffix
	marks := [][2]int{}
	for i, h := range hit {
		if h && ws[i].start >= from && ws[i].end <= to {
			off := len(prefix) - from
			marks = append(marks, [2]int{ws[i].start + off, ws[i].end + off})
		}
	}
	return out, marks
}

func runesBetween(s string, from, to int) int { return utf8.RuneCountInString(s[from:to]) }
