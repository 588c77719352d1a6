package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
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

// On a board where a word is in thousands of messages (only the newest
// ones are ranked), the newest strong match (the word in a mail's subject)
// still comes first, ahead of newer messages that only mention it, with
// filters; and a rare word is still found however old.
func TestSearchBigBoardFindsNewestStrongMatch(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "bb.db")
	if err := bigboard.Build(ctx, p, bigboard.Spec{Messages: 5000, Broadcasts: 500, Now: benchNow}, openForSeed); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, p, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, hub.FixedClock{T: benchNow}, t.TempDir())
	strong, err := svc.SendMail(ctx, hub.SendInput{From: bigboard.Agent(3), To: bigboard.Agent(4), BeadID: "bd-9", Category: hub.CategoryInfo,
		Subject: bigboard.CommonWord + " plan for friday", Body: "see the runbook"})
	if err != nil {
		t.Fatal(err)
	}
	// Newer messages that only mention the word, once among many others.
	for i := range 10 {
		if _, err := svc.Post(ctx, hub.PostInput{From: bigboard.Agent(5), Content: fmt.Sprintf("note %d: a long status line that mentions %s once among many other words of no interest", i, bigboard.CommonWord)}); err != nil {
			t.Fatal(err)
		}
	}
	first := func(q hub.SearchQuery) hub.SearchHit {
		t.Helper()
		res, err := svc.Search(ctx, q)
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("%+v: %v, %v", q, res.Hits, err)
		}
		return res.Hits[0]
	}
	for _, q := range []hub.SearchQuery{
		{Text: bigboard.CommonWord},
		{Text: bigboard.CommonWord, Agent: bigboard.Agent(4)},
		{Text: bigboard.CommonWord, Since: time.Hour},
		{Text: bigboard.CommonWord + " friday"},
	} {
		if h := first(q); h.UUID != strong.UUID {
			t.Errorf("%+v: first hit %s %q, want the mail %q", q, h.ID, h.Title, strong.Subject)
		}
	}
	// The rare word of the seeded board: every match, the oldest too.
	res, err := svc.Search(ctx, hub.SearchQuery{Text: bigboard.RareWord, Limit: hub.MaxSearchLimit})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("rare word: %v %v", res.Hits, err)
	}
	var seqs []int64
	if err := func() error {
		rows, err := st.SQL().QueryContext(ctx, "SELECT seq FROM messages WHERE body LIKE '%"+bigboard.RareWord+"%'")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s int64
			if err := rows.Scan(&s); err != nil {
				return err
			}
			seqs = append(seqs, s)
		}
		return rows.Err()
	}(); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != len(seqs) {
		t.Errorf("rare word: %d hits, %d messages have it", len(res.Hits), len(seqs))
	}
}
