package hub

import (
	"math"
	"strings"
)

// Ranking of search matches where the index does not rank them itself:
// BM25 as SQLite's FTS5 computes it (k1 1.2, b 0.75, the first field
// weighing 4 and the second 1), over the words this package reads.

const (
	bm25K1            = 1.2
	bm25B             = 0.75
	searchTitleWeight = 4.0
)

// SearchIDF is the inverse document frequency of a query matched by n of
// total rows (as FTS5 has it: never below a tiny positive value).
func SearchIDF(n, total int64) float64 {
	if total < n {
		total = n
	}
	idf := math.Log((float64(total-n) + 0.5) / (float64(n) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// SearchDoc is one match to rank: its two fields' words, read once.
type SearchDoc struct {
	title, body []WordSpan
}

// NewSearchDoc reads the words of a match's title and body.
func NewSearchDoc(title, body string) SearchDoc {
	return SearchDoc{title: Words(title), body: Words(body)}
}

// Len is the number of words of the document.
func (d SearchDoc) Len() int { return len(d.title) + len(d.body) }

// SearchScore ranks doc for terms (higher is better): for each term, its
// occurrences in the title count four times those in the body, scaled
// down for documents longer than avgLen words, times idf.
func SearchScore(terms []SearchTerm, doc SearchDoc, idf, avgLen float64) float64 {
	if avgLen <= 0 {
		avgLen = 1
	}
	norm := bm25K1 * (1 - bm25B + bm25B*float64(doc.Len())/avgLen)
	score := 0.0
	for _, t := range terms {
		w := searchTitleWeight*float64(termCount(doc.title, t)) + float64(termCount(doc.body, t))
		score += idf * w * (bm25K1 + 1) / (w + norm)
	}
	return score
}

// termCount is how often t occurs in ws: every token in order, the last
// as a prefix (as matchedWords reads them).
func termCount(ws []WordSpan, t SearchTerm) int {
	n, c := len(t.Tokens), 0
	for i := 0; i+n <= len(ws); i++ {
		if TermAt(ws, i, t) {
			c++
		}
	}
	return c
}

func TermAt(ws []WordSpan, i int, t SearchTerm) bool {
	n := len(t.Tokens)
	for k, tok := range t.Tokens {
		w := ws[i+k].Lower
		if (k < n-1 && w != tok) || (k == n-1 && !strings.HasPrefix(w, tok)) {
			return false
		}
	}
	return true
}
