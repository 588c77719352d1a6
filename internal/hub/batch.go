package hub

import (
	"context"
	"errors"
)

// PostOp is one post of a group commit.
type PostOp struct {
	In PostInput
	// CheckIn also refreshes the poster's last_seen and returns its notices
	// (what CheckIn does after a command made by an identified agent).
	CheckIn bool
	// Principal is who the post speaks for when the batch gathers posts
	// of several requests (bb serve's group commit); a principal of the
	// batch's own context wins over it. Never read from input.
	Principal *Principal `json:"-"`
}

// opContext is the context op is checked and written under.
func opContext(ctx context.Context, op PostOp) context.Context {
	if _, ok := PrincipalFrom(ctx); ok || op.Principal == nil {
		return ctx
	}
	return WithPrincipal(ctx, *op.Principal)
}

// PostResult is the outcome of one PostOp: either Message (and Notices
// when asked) or Err.
type PostResult struct {
	Message Message
	Notices *Notices
	Err     error
}

// PostMany stores many posts in ONE write transaction (group commit): a
// long-lived server batches concurrent requests so that N posts cost one
// commit instead of N. Each op succeeds or fails on its own: invalid input
// and domain errors (an unknown reply-to) fail only that op and write
// nothing for it; a storage failure fails every op of the batch. Ops are
// applied in order, so message numbers follow the slice order.
func (s *Service) PostMany(ctx context.Context, ops []PostOp) []PostResult {
	res, valid, pending := s.checkPosts(ctx, ops)
	if pending == 0 {
		return res
	}
	out := make([]PostResult, len(ops))
	// The batch only appends, and what it reads is right as of any moment
	// before it commits: its reads run beside other writers, and only its
	// writes wait for the write lock (OrderAtCommit). So the check-ins'
	// counts come first, then every write.
	err := s.store.Write(OrderAtCommit(ctx), func(tx Tx) error {
		copy(out, res) // the store may retry fn: start from the validation results
		cs, err := batchCheckIns(ctx, tx, ops, out)
		if err != nil {
			return err
		}
		if err := s.postBatch(ctx, tx, ops, valid, out); err != nil {
			return err
		}
		return s.recordCheckIns(ctx, tx, ops, out, cs)
	})
	if err != nil {
		for i := range out {
			if res[i].Err == nil {
				out[i] = PostResult{Err: err}
			} else {
				out[i] = res[i]
			}
		}
	}
	return out
}

// checkPosts validates each op on its own: the results hold the refusals,
// valid the checked fields of the others, pending how many those are.
func (s *Service) checkPosts(ctx context.Context, ops []PostOp) (res []PostResult, valid []postFields, pending int) {
	res = make([]PostResult, len(ops))
	valid = make([]postFields, len(ops))
	for i, op := range ops {
		p, err := s.checkPost(opContext(ctx, op), op.In)
		if err != nil {
			res[i].Err = err
			continue
		}
		valid[i] = p
		pending++
	}
	return res, valid, pending
}

// batchCheckIn is one agent's check-in in a batch, counted before the
// batch's posts.
type batchCheckIn struct {
	agent string
	n     Notices
	mark  string
	c     NoticeCounts
}

// batchCheckIns counts, in one read, the notices of every agent checking
// in with a valid post: one check-in per agent per batch, in order.
func batchCheckIns(ctx context.Context, tx Tx, ops []PostOp, out []PostResult) ([]batchCheckIn, error) {
	var who []string
	seen := map[string]bool{}
	for i, op := range ops {
		if !op.CheckIn || out[i].Err != nil || seen[op.In.From] {
			continue
		}
		seen[op.In.From] = true
		who = append(who, op.In.From)
	}
	if len(who) == 0 {
		return nil, nil
	}
	counts, err := tx.NoticeCountsMany(ctx, who, NoticeCap)
	if err != nil {
		return nil, err
	}
	cs := make([]batchCheckIn, len(who))
	for i, agent := range who {
		cs[i] = batchCheckIn{agent: agent, c: counts[i]}
		cs[i].n, cs[i].mark = noticesOf(counts[i])
	}
	return cs, nil
}

// postBatch stores the valid posts in order. A domain error fails only its
// op (nothing was written for it); any other error fails the batch.
func (s *Service) postBatch(ctx context.Context, tx Tx, ops []PostOp, valid []postFields, out []PostResult) error {
	for i := range ops {
		if out[i].Err != nil {
			continue
		}
		m, err := s.postTx(opContext(ctx, ops[i]), tx, valid[i])
		if err != nil {
			var he *Error
			if errors.As(err, &he) && he.Code != CodeInternal {
				out[i].Err = err
				continue
			}
			return err
		}
		out[i].Message = m
	}
	return nil
}

// recordCheckIns writes each check-in of the batch (heartbeat, notices
// given, read cursor past the agent's own posts) and hands its notices to
// the agent's posts.
func (s *Service) recordCheckIns(ctx context.Context, tx Tx, ops []PostOp, out []PostResult, cs []batchCheckIn) error {
	// The newest post of each agent checking in: its read cursor may
	// move past its own posts of this batch too.
	own := map[string]int64{}
	for i, op := range ops {
		if op.CheckIn && out[i].Err == nil {
			own[op.In.From] = max(own[op.In.From], out[i].Message.Seq)
		}
	}
	notices := map[string]*Notices{}
	for _, ci := range cs {
		newest, ok := own[ci.agent]
		if !ok {
			continue // every post of the agent was refused
		}
		n, err := s.recordCheckIn(ctx, tx, ci, newest)
		if err != nil {
			return err
		}
		notices[ci.agent] = &n
	}
	for i, op := range ops {
		if op.CheckIn && out[i].Err == nil {
			out[i].Notices = notices[op.In.From]
		}
	}
	return nil
}

// recordCheckIn writes one agent's check-in after its posts (the newest
// numbered newest).
func (s *Service) recordCheckIn(ctx context.Context, tx Tx, ci batchCheckIn, newest int64) (Notices, error) {
	// The heartbeat, as CheckIn records it: liveness is judged in
	// minutes, so an agent seen within MailTouchInterval is not
	// written again (a post would otherwise rewrite its agent row
	// and the last_seen index every time).
	if now := s.Now(); ci.c.LastSeen.IsZero() || now.Sub(ci.c.LastSeen) >= MailTouchInterval {
		if err := tx.TouchAgent(ctx, ci.agent, now); err != nil {
			return Notices{}, err
		}
	}
	n, err := recordNotices(ctx, tx, ci.agent, ci.n, ci.mark, ci.c)
	if err != nil {
		return Notices{}, err
	}
	if from := max(ci.c.NewestBroadcast, ci.c.ReadCursor); ci.c.Unread.Board == 0 && newest > from {
		if err := tx.SetReadCursorPastOwn(ctx, ci.agent, from, newest); err != nil {
			return Notices{}, err
		}
	}
	return n, nil
}
