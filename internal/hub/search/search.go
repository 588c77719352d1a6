package search

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blackboard-hub/bb/internal/termtext"

	"github.com/blackboard-hub/bb/internal/hub"
)

const (
	// maxToken is the longest word kept (longer words are cut).
	maxToken = 64
	// snippetRunes is the length of a snippet around the first match.
	snippetRunes = 160
)

// Query is one full-text search.
type Query struct {
	// Text is what the person typed: words (each must appear, as a word or
	// the start of one) and "quoted phrases". Anything else (operators,
	// punctuation, unbalanced quotes) is read as plain words.
	Text string
	// Kinds limits the search (message, task, memory, artifact, lease); empty
	// means every kind.
	Kinds []string
	// Agent keeps what the agent wrote or received (messages), owns
	// (tasks), produced (artifacts), keeps in its own scope (memory) or
	// was granted (leases).
	Agent string
	// Since keeps what was written or changed in this window (0 = all).
	Since time.Duration
	Limit int
}

// Hit is one result shown to a person or a script.
type Hit struct {
	Kind string `json:"kind"`
	// ID is how the other commands name it: the message seq ("42"), the
	// task id, the memory key, the artifact path, the lease's name.
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

// Result is the answer to one search.
type Result struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
}

// ParseQuery turns what a person typed into terms. Words are runs of
// letters, digits and marks; a double-quoted run of words is a phrase; an
// unquoted run is split into single words. Every other character only
// separates words, so no input reaches the index as syntax. A query with no
// word at all is an error.
func ParseQuery(text string) ([]hub.SearchTerm, error) {
	if len(text) > hub.MaxSearchQueryLen {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "query", "the search query is too long (%d bytes; at most %d)", len(text), hub.MaxSearchQueryLen)
	}
	if !utf8.ValidString(text) {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "query", "the search query is not valid UTF-8 text")
	}
	var terms []hub.SearchTerm
	add := func(part string, phrase bool) {
		toks := tokens(part)
		if len(toks) == 0 {
			return
		}
		if phrase {
			terms = append(terms, hub.SearchTerm{Tokens: toks})
			return
		}
		for _, t := range toks {
			terms = append(terms, hub.SearchTerm{Tokens: []string{t}})
		}
	}
	parts := strings.Split(text, `"`)
	for i, p := range parts {
		// Odd parts are inside quotes; a last odd part has no closing
		// quote and is read as plain words.
		add(p, i%2 == 1 && i < len(parts)-1)
	}
	if len(terms) == 0 {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "query", "the search query has no words: type what to look for")
	}
	terms = dedupTerms(terms)
	if len(terms) > hub.MaxSearchTerms {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "query", "the search query has too many words (%d; at most %d)", len(terms), hub.MaxSearchTerms)
	}
	return terms, nil
}

func dedupTerms(in []hub.SearchTerm) []hub.SearchTerm {
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

// tokens splits s into lower-cased words, each cut to maxToken
// bytes (on a rune boundary).
func tokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !hub.IsWordRune(r) }) {
		f = strings.ToLower(f)
		if len(f) > maxToken {
			cut := maxToken
			for cut > 0 && !utf8.RuneStart(f[cut]) {
				cut--
			}
			f = f[:cut]
		}
		out = append(out, f)
	}
	return out
}

// Search finds messages, mail, tasks, memory, artifacts and leases by their words,
// best matches first, each with a highlighted snippet.
func (s *Service) Search(ctx context.Context, q Query) (Result, error) {
	terms, err := ParseQuery(q.Text)
	if err != nil {
		return Result{}, err
	}
	st := hub.SearchTerms{Terms: terms, Agent: strings.TrimSpace(q.Agent), Limit: hub.ClampLimit(q.Limit, hub.DefaultSearchLimit, hub.MaxSearchLimit), Now: s.kernel.Now()}
	if q.Since < 0 {
		return Result{}, hub.FieldErr(hub.CodeInvalidInput, "since", "since must not be negative")
	}
	if q.Since > 0 {
		st.Since = s.kernel.Now().Add(-q.Since)
	}
	for _, typed := range q.Kinds {
		k := strings.ToLower(strings.TrimSpace(typed))
		if k == "mail" {
			k = hub.SearchMessage
		}
		if k != hub.SearchMemory { // "tasks", "messages", "artifacts"
			k = strings.TrimSuffix(k, "s")
		}
		if !slices.Contains(hub.SearchKinds(), k) {
			return Result{}, hub.FieldErr(hub.CodeInvalidInput, "kind", "unknown kind %q: use one of %s", typed, strings.Join(hub.SearchKinds(), ", "))
		}
		if !slices.Contains(st.Kinds, k) {
			st.Kinds = append(st.Kinds, k)
		}
	}
	rows, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]hub.SearchRow, error) { return tx.Search(ctx, st) })
	if err != nil {
		return Result{}, err
	}
	res := Result{Query: q.Text, Hits: make([]Hit, 0, len(rows))}
	for _, r := range rows {
		if r.Kind == hub.SearchMemory && !hub.May(ctx, hub.MemoryTarget(hub.VerbRead, r.Scope, r.ScopeID)) {
			continue // another agent's memory: not this caller's to read
		}
		h := Hit{Kind: r.Kind, ID: r.Key, Title: r.Title, Agent: r.Agent, To: r.To, At: r.At, Score: r.Score}
		body := r.Body
		switch r.Kind {
		case hub.SearchMessage:
			h.ID, h.Seq, h.UUID = strconv.FormatInt(r.Seq, 10), r.Seq, r.Key
			if h.Title == "" {
				h.Title = termtext.Clip(termtext.FirstLine(r.Body), 80)
			}
		case hub.SearchMemory:
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

// matches reports which words of ws a term matches: every token in order,
// the last as a prefix.
func matchedWords(ws []hub.WordSpan, terms []hub.SearchTerm) []bool {
	hit := make([]bool, len(ws))
	for _, t := range terms {
		n := len(t.Tokens)
		for i := 0; i+n <= len(ws); i++ {
			if hub.TermAt(ws, i, t) {
				for k := 0; k < n; k++ {
					hit[i+k] = true
				}
			}
		}
	}
	return hit
}

// markWords returns the byte ranges of the matched words of s.
func markWords(s string, terms []hub.SearchTerm) [][2]int {
	ws := hub.Words(s)
	marks := [][2]int{}
	for i, h := range matchedWords(ws, terms) {
		if h {
			marks = append(marks, [2]int{ws[i].Start, ws[i].End})
		}
	}
	return marks
}

// snippet cuts about snippetRunes of s around its first match (the start of
// s when nothing matches there), with "…" where it was cut, and the ranges
// of the matched words within the snippet.
func snippet(s string, terms []hub.SearchTerm) (string, [][2]int) {
	s = strings.Join(strings.Fields(s), " ")
	ws := hub.Words(s)
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
		from = ws[w].Start
		if runesBetween(s, from, ws[first].Start) > snippetRunes/2 {
			from = ws[first].Start
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
		if !hub.IsWordRune(r) {
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
		if h && ws[i].Start >= from && ws[i].End <= to {
			off := len(prefix) - from
			marks = append(marks, [2]int{ws[i].Start + off, ws[i].End + off})
		}
	}
	return out, marks
}

func runesBetween(s string, from, to int) int { return utf8.RuneCountInString(s[from:to]) }
