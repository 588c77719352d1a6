package hub

import "context"

// Write transactions are serialized so that check-then-write rules are
// atomic (Store.Write). A write whose rules check nothing another writer
// could change between its reads and its commit — a group of board posts
// only appends, and what it reads (a reply-to parent, the poster's notice
// counts) is fine as of any moment before it commits — needs only its
// place in the timeline serialized: OrderAtCommit says so to the store,
// which may then run the write's reads concurrently with other writers and
// take the write lock only at its first statement that changes anything
// (PostgreSQL: the transaction-scoped advisory lock, held to COMMIT). Every
// sequence number (message numbers, event seqs) is still assigned under
// that lock, so the timeline stays one total order in commit order.
//
// In such a write AppendEvent may leave e.Seq at 0: the event's seq is
// assigned when the store sends it, at the latest at commit.

type orderAtCommitKey struct{}

// OrderAtCommit marks the write made with the returned context as one that
// needs only its order serialized (see above).
func OrderAtCommit(ctx context.Context) context.Context {
	return context.WithValue(ctx, orderAtCommitKey{}, true)
}

// OrdersAtCommit reports whether ctx carries OrderAtCommit.
func OrdersAtCommit(ctx context.Context) bool {
	v, _ := ctx.Value(orderAtCommitKey{}).(bool)
	return v
}
