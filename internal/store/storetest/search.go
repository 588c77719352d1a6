package storetest

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"github.com/blackboard-hub/bb/internal/hub/memory"

	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// searchIDs returns "kind:id" of each hit, best first.
func searchIDs(t *testing.T, f *Fixture, q search.Query) []string {
	t.Helper()
	res, err := search.New(f.Svc).Search(f.Ctx, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Kind+":"+h.ID)
	}
	return out
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testSearch(t *testing.T, open Opener) {
	f := New(t, open)
	ctx := context.Background()
	svc := f.Svc
	for _, a := range []string{"ana", "bob"} {
		_, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: a, Role: "dev"})
		check(t, err)
	}
	post := f.Post(hub.PostInput{From: "ana", Content: "The login page crashes when the session cookie expires"})
	f.Post(hub.PostInput{From: "bob", Content: "unrelated chatter about lunch"})
	mail, err := svc.SendMail(ctx, hub.SendInput{From: "bob", To: "ana", BeadID: "bd-7", Category: "INFO", Subject: "Cookie rotation",
		Body: "please rotate the signing key before Friday"})
	check(t, err)
	task, err := svc.CreateTask(ctx, "ana", hub.TaskInput{Title: "Fix cookie expiry", Description: "the session ends too early"})
	check(t, err)
	_, err = memory.New(svc).SetMemory(ctx, "ana", memory.Input{Key: "deploy-window", Value: "Fridays after 16:00, never during a cookie rotation"})
	check(t, err)
	_, err = memory.New(svc).SetMemory(ctx, "ana", memory.Input{Key: "temp-note", Value: "cookie scratch", ExpiresIn: time.Minute})
	check(t, err)
	_, _, err = artifacts.New(svc).AddArtifact(ctx, artifacts.Input{Agent: "bob", Path: "internal/auth/cookie.go", Description: "signing and rotation"})
	check(t, err)
	f.Clock.Advance(2 * time.Minute) // temp-note has expired

	t.Run("EveryKindRankedWithSnippets", func(t *testing.T) {
		got := searchIDs(t, f, search.Query{Text: "cookie"})
		want := map[string]bool{"message:" + itoa(post.Seq): true, "message:" + itoa(mail.Seq): true, "task:" + task.Task.ID: true,
			"memory:deploy-window": true, "artifact:internal/auth/cookie.go": true}
		if len(got) != len(want) {
			t.Fatalf("hits %v; want %v (expired memory hidden)", got, want)
		}
		for _, g := range got {
			if !want[g] {
				t.Errorf("unexpected hit %s in %v", g, got)
			}
		}
		res, err := search.New(svc).Search(ctx, search.Query{Text: "cookie", Kinds: []string{"task"}})
		check(t, err)
		h := res.Hits[0]
		if h.Title != "Fix cookie expiry" || len(h.TitleMarks) != 1 || h.Title[h.TitleMarks[0][0]:h.TitleMarks[0][1]] != "cookie" {
			t.Errorf("task hit %+v", h)
		}
	})
	t.Run("TitleWeighsMoreThanBody", func(t *testing.T) {
		// "rotation" is the mail's subject, the artifact's description and
		// part of a memory value.
		got := searchIDs(t, f, search.Query{Text: "rotation", Kinds: []string{"message"}})
		if len(got) != 1 || got[0] != "message:"+itoa(mail.Seq) {
			t.Fatalf("got %v", got)
		}
		f.Post(hub.PostInput{From: "bob", Content: "a long note that mentions rotation once among many other words of no interest at all here"})
		got = searchIDs(t, f, search.Query{Text: "rotation", Kinds: []string{"message"}})
		if len(got) != 2 || got[0] != "message:"+itoa(mail.Seq) {
			t.Fatalf("subject match should rank first: %v", got)
		}
	})
	t.Run("PrefixPhraseAndAllWords", func(t *testing.T) {
		if got := searchIDs(t, f, search.Query{Text: "crash"}); len(got) != 1 || got[0] != "message:"+itoa(post.Seq) {
			t.Errorf("prefix: %v", got)
		}
		if got := searchIDs(t, f, search.Query{Text: `"session cookie"`}); len(got) != 1 || got[0] != "message:"+itoa(post.Seq) {
			t.Errorf("phrase: %v", got)
		}
		if got := searchIDs(t, f, search.Query{Text: `"cookie session"`}); len(got) != 0 {
			t.Errorf("reversed phrase matched: %v", got)
		}
		if got := searchIDs(t, f, search.Query{Text: "cookie lunch"}); len(got) != 0 {
			t.Errorf("all words required: %v", got)
		}
		// Path punctuation separates words on both backends.
		if got := searchIDs(t, f, search.Query{Text: "auth"}); len(got) != 1 || got[0] != "artifact:internal/auth/cookie.go" {
			t.Errorf("path word: %v", got)
		}
		if got := searchIDs(t, f, search.Query{Text: "COOKIE.GO"}); len(got) != 1 {
			t.Errorf("case and dots: %v", got)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		got := searchIDs(t, f, search.Query{Text: "cookie", Agent: "bob"})
		if len(got) != 2 { // the mail bob sent and bob's artifact
			t.Errorf("agent bob: %v", got)
		}
		got = searchIDs(t, f, search.Query{Text: "cookie", Kinds: []string{"memory", "artifact"}})
		if len(got) != 2 {
			t.Errorf("kinds: %v", got)
		}
		f.Clock.Advance(time.Hour)
		f.Post(hub.PostInput{From: "bob", Content: "cookie banner copy is ready"})
		got = searchIDs(t, f, search.Query{Text: "cookie", Since: 30 * time.Minute})
		if len(got) != 1 || !strings.HasPrefix(got[0], "message:") {
			t.Errorf("since: %v", got)
		}
		got = searchIDs(t, f, search.Query{Text: "cookie", Limit: 2})
		if len(got) != 2 {
			t.Errorf("limit: %v", got)
		}
	})
	t.Run("IndexFollowsUpdatesAndDeletes", func(t *testing.T) {
		_, err = memory.New(svc).SetMemory(ctx, "ana", memory.Input{Key: "deploy-window", Value: "Mondays only"})
		check(t, err)
		if got := searchIDs(t, f, search.Query{Text: "fridays"}); len(got) != 0 {
			t.Errorf("old memory value still found: %v", got)
		}
		if got := searchIDs(t, f, search.Query{Text: "mondays"}); len(got) != 1 {
			t.Errorf("new memory value: %v", got)
		}
		_, err := svc.DeleteTask(ctx, "ana", task.Task.ID)
		check(t, err)
		if got := searchIDs(t, f, search.Query{Text: "expiry"}); len(got) != 0 {
			t.Errorf("deleted task found: %v", got)
		}
		// A failed write leaves the index as it was (same transaction).
		f.Write(func(tx hub.Tx) error {
			m := &hub.Message{UUID: "rolled-back", From: "ana", To: hub.Broadcast, Body: "zebra", CreatedAt: f.Clock.T}
			return tx.InsertMessage(ctx, m)
		})
		err = f.Store.Write(ctx, func(tx hub.Tx) error {
			m := &hub.Message{UUID: "never", From: "ana", To: hub.Broadcast, Body: "giraffe", CreatedAt: f.Clock.T}
			if err := tx.InsertMessage(ctx, m); err != nil {
				return err
			}
			return hub.Errorf(hub.CodeConflict, "roll back")
		})
		if err == nil {
			t.Fatal("write should fail")
		}
		if got := searchIDs(t, f, search.Query{Text: "giraffe"}); len(got) != 0 {
			t.Errorf("rolled-back message found: %v", got)
		}
		if got := searchIDs(t, f, search.Query{Text: "zebra"}); len(got) != 1 {
			t.Errorf("message written through the store: %v", got)
		}
	})
	t.Run("OddQueriesAreWordsOrClearErrors", func(t *testing.T) {
		// Syntax characters of FTS5 and tsquery are separators: what is
		// left are plain words, all required.
		for _, q := range []string{`"cookie`, `cookie)`, `cookie*`, `(cookie`, `-cookie`, `cookie:`, `'cookie'`, `cookie & | !`,
			`^cookie`, `"" cookie`, `cookie\`, `{cookie}`, `cookie <->`, `+cookie`} {
			res, err := search.New(svc).Search(ctx, search.Query{Text: q})
			if err != nil {
				t.Errorf("%q: %v", q, err)
				continue
			}
			if len(res.Hits) == 0 {
				t.Errorf("%q found nothing", q)
			}
		}
		// Operator words are words: nothing has "near" and "or" here.
		for _, q := range []string{`NEAR(cookie`, `cookie OR x`, `col:cookie`, `cookie NOT`} {
			if res, err := search.New(svc).Search(ctx, search.Query{Text: q}); err != nil || len(res.Hits) != 0 {
				t.Errorf("%q: %v, %v", q, res.Hits, err)
			}
		}
		for _, q := range []string{"", "   ", `"`, `()*:^"`, strings.Repeat("a ", 300), strings.Repeat("w", 600)} {
			_, err := search.New(svc).Search(ctx, search.Query{Text: q})
			if hub.CodeOf(err) != hub.CodeInvalidInput {
				t.Errorf("%q: error %v; want INVALID_INPUT", q, err)
			}
		}
		if _, err := search.New(svc).Search(ctx, search.Query{Text: "x", Kinds: []string{"bogus"}}); hub.CodeOf(err) != hub.CodeInvalidInput {
			t.Errorf("bad kind: %v", err)
		}
	})
	t.Run("ACommonWordRanksItsNewestMatches", func(t *testing.T) {
		// A word in more messages than the window (50): only its newest
		// 50 are ranked, so a strong old match (the word as a subject)
		// gives way to newer mentions, on every database alike.
		old, err := svc.SendMail(ctx, hub.SendInput{From: "bob", To: "ana", BeadID: "bd-8", Category: "INFO", Subject: "quartz", Body: "quartz"})
		check(t, err)
		var newest []int64
		for i := range 60 {
			newest = append(newest, f.Post(hub.PostInput{From: "ana", Content: "a status line that mentions quartz once, number " + strconv.Itoa(i)}).Seq)
		}
		res, err := search.New(svc).Search(ctx, search.Query{Text: "quartz"})
		check(t, err)
		if len(res.Hits) != hub.DefaultSearchLimit {
			t.Fatalf("%d hits, want %d", len(res.Hits), hub.DefaultSearchLimit)
		}
		for _, h := range res.Hits {
			if h.Seq < newest[10] {
				t.Errorf("hit %d (%q) is older than the newest 50 matches (from %d; the old mail is %d)", h.Seq, h.Title, newest[10], old.Seq)
			}
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
