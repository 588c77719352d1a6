package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// FuzzSearchQuery runs whatever a person may type through the query
// translation into a real FTS5 MATCH: the answer is hits or INVALID_INPUT
// with a sentence of ours, never an FTS5 or SQL error.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{"cookie", `"session cookie"`, `"unbalanced`, `a OR b`, `NEAR(a b)`, `col:x`, `x*`, `^x`,
		`a AND NOT b`, `"`, `""`, `-x +y`, `{a b}`, `a:* & b`, `'x'`, "\x00", "é\u0301", strings.Repeat("z", 70), `\"a\"`} {
		f.Add(s)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, nil, f.TempDir())
	if _, err := svc.Post(ctx, hub.PostInput{From: "ana", Content: "session cookie expires; see internal/auth/cookie.go"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		res, err := svc.Search(ctx, hub.SearchQuery{Text: q})
		if err != nil {
			if hub.CodeOf(err) != hub.CodeInvalidInput {
				t.Fatalf("%q: %v (code %s)", q, err, hub.CodeOf(err))
			}
			msg := strings.ToLower(hub.MessageOf(err))
			if strings.Contains(msg, "fts5") || strings.Contains(msg, "sql") || strings.Contains(msg, "syntax") {
				t.Fatalf("%q: raw error %q", q, msg)
			}
			return
		}
		for _, h := range res.Hits {
			for _, m := range append(h.Marks, h.TitleMarks...) {
				if m[0] < 0 || m[1] > len(h.Snippet)+len(h.Title) || m[0] >= m[1] {
					t.Fatalf("%q: bad mark %v in %+v", q, m, h)
				}
			}
		}
	})
}
