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
	res := make([]PostResult, len(ops))
	valid := make([]postFields, len(ops))
	pending := 0
	for i, op := range ops {
		p, err := s.checkPost(opContext(ctx, op), op.In)
		if err != nil {
			res[i].Err = err
			continue
		}
		valid[i] = p
		pending++
	}
	if pending == 0 {
		return res
	}
	out := make([]PostResult, len(ops))
	// The batch only appends, and what it reads is right as of any moment
	// before it commits: its reads run beside other writers, and only its
	// writes wait for the write lock (OrderAtCommit). So the check-ins'
	// counts come first, then every write.
	err := s.Store.Write(OrderAtCommit(ctx), func(tx Tx) error {
		copy(out, res) // the store may retry fn: start from the validation results
		// One check-in per agent per batch.
		type checkIn struct {
			n    Notices
			mark string
			c    NoticeCounts
		}
		var who []string
		counted := map[string]*checkIn{}
		for i, op := range ops {
			if !op.CheckIn || out[i].Err != nil || counted[op.In.From] != nil {
				continue
			}
			counted[op.In.From] = &checkIn{}
			who = append(who, op.In.From)
		}
		if len(who) > 0 {
			cs, err := tx.NoticeCountsMany(ctx, who, NoticeCap)
			if err != nil {
				return err
			}
			for i, agent := range who {
				ci := counted[agent]
				ci.c = cs[i]
				ci.n, ci.mark = noticesOf(cs[i])
			}
		}
		for i := range ops {
			if out[i].Err != nil {
				continue
			}
			m, err := s.postTx(opContext(ctx, ops[i]), tx, valid[i])
			if err != nil {
				var he *Error
				if errors.As(err, &he) && he.Code != CodeInternal {
					out[i].Err = err // nothing was written for this op
					continue
				}
				return err
			}
			out[i].Message = m
		}
		// The newest post of each agent checking in: its read cursor may
		// move past its own posts of this batch too.
		own := map[string]int64{}
		for i, op := range ops {
			if op.CheckIn && out[i].Err == nil {
				own[op.In.From] = max(own[op.In.From], out[i].Message.Seq)
			}
		}
		notices := map[string]*Notices{}
		for _, agent := range who {
			ci := counted[agent]
			newest, ok := own[agent]
			if !ok {
				continue // every post of the agent was refused
			}
			// The heartbeat, as CheckIn records it: liveness is judged in
			// minutes, so an agent seen within MailTouchInterval is not
			// written again (a post would otherwise rewrite its agent row
			// and the last_seen index every time).
			if now := s.Now(); ci.c.LastSeen.IsZero() || now.Sub(ci.c.LastSeen) >= MailTouchInterval {
				if err := tx.TouchAgent(ctx, agent, now); err != nil {
					return err
				}
			}
			n, err := recordNotices(ctx, tx, agent, ci.n, ci.mark, ci.c)
			if err != nil {
				return err
			}
			if from := max(ci.c.NewestBroadcast, ci.c.ReadCursor); ci.c.Unread.Board == 0 && newest > from {
				if err := tx.SetReadCursorPastOwn(ctx, agent, from, newest); err != nil {
					return err
				}
			}
			notices[agent] = &n
		}
		for i, op := range ops {
			if op.CheckIn && out[i].Err == nil {
				out[i].Notices = notices[op.In.From]
			}
		}
		return nil
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
