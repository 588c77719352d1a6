package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/hub/search"
)

// testSearchIndex checks that the search index of messages follows the
// transaction that writes them, however the store keeps it (SQLite writes
// a transaction's new messages into the index in one statement before the
// commit; PostgreSQL's index is kept by the database).
func testSearchIndex(t *testing.T, open Opener) {
	f := New(t, open)
	words := func(tx hub.Tx, word string) []string {
		t.Helper()
		rows, err := tx.(search.Tx).Search(f.Ctx, hub.SearchTerms{Terms: []hub.SearchTerm{{Tokens: []string{word}}},
			Kinds: []string{hub.SearchMessage}, Limit: 100, Now: f.Clock.T})
		check(t, err)
		var keys []string
		for _, r := range rows {
			keys = append(keys, r.Key)
		}
		slices.Sort(keys)
		return keys
	}
	found := func(word string) (keys []string) {
		f.Read(func(tx hub.Tx) error { keys = words(tx, word); return nil })
		return keys
	}
	msg := func(id, body string) *hub.Message {
		return &hub.Message{UUID: id, From: "ana", To: hub.Broadcast, Body: body, CreatedAt: f.Clock.T}
	}

	t.Run("AGroupCommitIsSearchableAtOnce", func(t *testing.T) {
		ops := make([]hub.PostOp, 40)
		for i := range ops {
			ops[i] = hub.PostOp{In: hub.PostInput{From: "ana", Content: fmt.Sprintf("walrus report %d", i)}}
		}
		ops[7].In.Content = "" // fails alone, writes nothing
		var want []string
		for i, r := range f.Svc.PostMany(f.Ctx, ops) {
			if i == 7 {
				if r.Err == nil {
					t.Fatal("empty post accepted")
				}
				continue
			}
			check(t, r.Err)
			want = append(want, r.Message.UUID)
		}
		slices.Sort(want)
		if got := found("walrus"); !slices.Equal(got, want) {
			t.Errorf("found %d of the %d posts: %v", len(got), len(want), got)
		}
		if got := found("39"); len(got) != 1 {
			t.Errorf("last post of the batch: %v", got)
		}
	})
	t.Run("SearchInTheWritingTransactionSeesItsMessages", func(t *testing.T) {
		f.Write(func(tx hub.Tx) error {
			for i, id := range []string{"narwhal-1", "narwhal-2", "narwhal-3"} {
				if err := tx.InsertMessage(f.Ctx, msg(id, fmt.Sprintf("narwhal sighting %d", i))); err != nil {
					return err
				}
			}
			if got := words(tx, "narwhal"); len(got) != 3 {
				t.Errorf("before commit: %v", got)
			}
			// Another after the search is indexed too.
			return tx.InsertMessage(f.Ctx, msg("narwhal-4", "one more narwhal"))
		})
		if got := found("narwhal"); !slices.Equal(got, []string{"narwhal-1", "narwhal-2", "narwhal-3", "narwhal-4"}) {
			t.Errorf("after commit: %v", got)
		}
	})
	t.Run("MessagesRemovedInTheirTransactionAreNotFound", func(t *testing.T) {
		f.Write(func(tx hub.Tx) error {
			for _, id := range []string{"okapi-1", "okapi-2"} {
				if err := tx.InsertMessage(f.Ctx, msg(id, "okapi spotted")); err != nil {
					return err
				}
			}
			return tx.(agentmail.Tx).DeleteMail(f.Ctx, []string{"okapi-1"})
		})
		if got := found("okapi"); !slices.Equal(got, []string{"okapi-2"}) {
			t.Errorf("after deleting one in the same transaction: %v", got)
		}
		f.Clock.Advance(time.Hour)
		f.Write(func(tx hub.Tx) error {
			if err := tx.InsertMessage(f.Ctx, msg("okapi-3", "okapi again")); err != nil {
				return err
			}
			_, err := tx.DeleteMessagesBefore(f.Ctx, f.Clock.T)
			return err
		})
		if got := found("okapi"); !slices.Equal(got, []string{"okapi-3"}) {
			t.Errorf("after expiring the older ones: %v", got)
		}
	})
}
