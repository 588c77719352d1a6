package sqlite_test

import (
	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
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
		res, err := search.New(svc).Search(ctx, search.Query{Text: q})
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
	first := func(q search.Query) search.Hit {
		t.Helper()
		res, err := search.New(svc).Search(ctx, q)
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("%+v: %v, %v", q, res.Hits, err)
		}
		return res.Hits[0]
	}
	for _, q := range []search.Query{
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
	res, err := search.New(svc).Search(ctx, search.Query{Text: bigboard.RareWord, Limit: hub.MaxSearchLimit})
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

// When a word is in many messages, an agent filter walks the agent's own
// messages (sent and received) beside the word's matches, in stretches
// going back; two common words are walked together. Either way the hits
// must be the best of exactly the newest matches that pass: checked here
// against every message read back, with an agent whose matches are sparse
// among its own messages (several stretches) and partly mail addressed to
// it.
func TestSearchCommonWordsWalkFindsNewestMatches(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "bb.db")
	if err := bigboard.Build(ctx, p, bigboard.Spec{Messages: 3000, Broadcasts: 300, Now: benchNow}, openForSeed); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, p, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const agent = "zed"
	t0 := benchNow.Add(-time.Hour)
	err = st.Write(ctx, func(tx hub.Tx) error {
		for i := 1; i <= 2000; i++ {
			m := hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", 900000+i), From: agent, To: hub.Broadcast,
				CreatedAt: t0.Add(time.Duration(i) * time.Second), Body: fmt.Sprintf("routine line %d", i)}
			switch {
			case i%3 == 0: // other agents' traffic between zed's
				m.From, m.Body = "amy", bigboard.CommonWord+" rollout of the night build"
			case i%37 == 0:
				m.Body = fmt.Sprintf("we %s the rollout %d", bigboard.CommonWord, i)
			case i%41 == 0: // addressed to zed
				m.From, m.To, m.Body = "amy", agent, fmt.Sprintf("please %s branch %d", bigboard.CommonWord, i)
			}
			if err := tx.InsertMessage(ctx, &m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	svc := hub.NewService(st, hub.FixedClock{T: benchNow}, t.TempDir())
	// want is the seqs of the newest window matches, read back row by row.
	want := func(pass func(from, to, body string) bool) map[int64]bool {
		rows, err := st.SQL().QueryContext(ctx, "SELECT seq, sender, recipient, body FROM messages ORDER BY seq DESC")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[int64]bool{}
		for rows.Next() && len(out) < 50 {
			var seq int64
			var from, to, body string
			if err := rows.Scan(&seq, &from, &to, &body); err != nil {
				t.Fatal(err)
			}
			if pass(from, to, body) {
				out[seq] = true
			}
		}
		return out
	}
	has := func(body string, ws ...string) bool {
		for _, w := range ws {
			if !slices.Contains(strings.Fields(body), w) {
				return false
			}
		}
		return true
	}
	for _, c := range []struct {
		q    search.Query
		pass func(from, to, body string) bool
	}{
		{search.Query{Text: bigboard.CommonWord, Agent: agent, Limit: 50},
			func(from, to, body string) bool {
				return (from == agent || to == agent) && has(body, bigboard.CommonWord)
			}},
		{search.Query{Text: "rollout " + bigboard.CommonWord, Limit: 50},
			func(from, to, body string) bool { return has(body, "rollout", bigboard.CommonWord) }},
		{search.Query{Text: "rollout " + bigboard.CommonWord, Agent: agent, Limit: 50},
			func(from, to, body string) bool {
				return (from == agent || to == agent) && has(body, "rollout", bigboard.CommonWord)
			}},
	} {
		w := want(c.pass)
		res, err := search.New(svc).Search(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]bool{}
		for _, h := range res.Hits {
			got[h.Seq] = true
		}
		if len(w) < 30 || !maps.Equal(got, w) {
			t.Errorf("%q agent %q: %d hits, want the newest %d matches; extra %v, missing %v", c.q.Text, c.q.Agent, len(got), len(w), diff(got, w), diff(w, got))
		}
	}
}

func diff(a, b map[int64]bool) []int64 {
	var out []int64
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
