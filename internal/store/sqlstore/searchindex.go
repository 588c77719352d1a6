package sqlstore

import (
	"context"
	"slices"

	"github.com/blackboard-hub/bb/internal/hub"
)

// indexInsert writes the search index entries of the messages a WHERE
// condition on seq names.
const indexInsert = `INSERT INTO messages_fts (rowid, subject, body) SELECT seq, subject, body FROM messages WHERE seq `

// indexChunk bounds the seqs named in one statement when the messages to
// index are not one run of consecutive seqs.
const indexChunk = 500

// indexMessages writes the search index entries of the messages this
// transaction added and has not indexed yet (Dialect.IndexMessagesAtCommit),
// so they are searchable from the same commit. The posts of a group commit
// have consecutive seqs: one statement indexes them all, which SQLite's
// full-text index stores as one segment. It runs before COMMIT and before
// anything in the transaction that reads or removes index entries.
func (t *tx) indexMessages(ctx context.Context) error {
	seqs := t.unindexed
	if len(seqs) == 0 {
		return nil
	}
	t.unindexed = nil
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	if seqs[len(seqs)-1]-seqs[0] == int64(len(seqs)-1) {
		_, err := t.exec(ctx, indexInsert+`BETWEEN ? AND ?`, seqs[0], seqs[len(seqs)-1])
		return err
	}
	for chunk := range slices.Chunk(seqs, indexChunk) {
		args := make([]any, len(chunk))
		for i, s := range chunk {
			args[i] = s
		}
		if _, err := t.exec(ctx, indexInsert+`IN (`+placeholders(len(chunk))+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// RebuildMessageIndex rewrites the search index of every message from the
// messages table, in one write transaction, where the store indexes new
// messages itself (Dialect.IndexMessagesAtCommit; elsewhere the database
// keeps its index and this does nothing). For writers that insert message
// rows without going through a transaction of this store: copying a whole
// board into this one.
func (s *DB) RebuildMessageIndex(ctx context.Context) error {
	if !s.dialect.IndexMessagesAtCommit {
		return nil
	}
	return s.Write(ctx, func(htx hub.Tx) error {
		t := htx.(*tx)
		for _, q := range []string{
			`INSERT INTO messages_fts (messages_fts) VALUES ('delete-all')`,
			indexInsert + `IS NOT NULL`,
		} {
			if _, err := t.exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}
