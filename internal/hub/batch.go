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
	err := s.Store.Write(ctx, func(tx Tx) error {
		copy(out, res) // the store may retry fn: start from the validation results
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
		// One check-in per agent per batch, after every post of the batch.
		notices := map[string]*Notices{}
		for i, op := range ops {
			if !op.CheckIn || out[i].Err != nil {
				continue
			}
			n, ok := notices[op.In.From]
			if !ok {
				if err := tx.TouchAgent(ctx, op.In.From, s.Now()); err != nil {
					return err
				}
				c, err := s.giveNotices(ctx, tx, op.In.From)
				if err != nil {
					return err
				}
				n = &c
				notices[op.In.From] = n
			}
			out[i].Notices = n
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
