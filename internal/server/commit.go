package server

import (
	"context"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
)

// maxBatch bounds how many posts share one transaction.
const maxBatch = 256

// committer is the group commit of posts: one goroutine drains the queue
// of concurrent post requests and stores each batch with one
// Service.PostMany (one transaction, one fsync), then hands every request
// its own result. Under load N posts cost one commit; alone, a post waits
// for nobody.
type committer struct {
	svc app.API
	q   chan postReq
}

type postReq struct {
	ctx context.Context
	op  hub.PostOp
	res chan hub.PostResult
}

func newCommitter(svc app.API) *committer {
	return &committer{svc: svc, q: make(chan postReq, 4*maxBatch)}
}

// post queues op and waits for its result.
func (c *committer) post(ctx context.Context, op hub.PostOp) hub.PostResult {
	req := postReq{ctx: ctx, op: op, res: make(chan hub.PostResult, 1)}
	select {
	case c.q <- req:
	case <-ctx.Done():
		return hub.PostResult{Err: hub.Errorf(hub.CodeInternal, "request cancelled")}
	}
	select {
	case r := <-req.res:
		return r
	case <-ctx.Done():
		// The post may still be committed; the client has gone anyway.
		return hub.PostResult{Err: hub.Errorf(hub.CodeInternal, "request cancelled")}
	}
}

func (c *committer) run(ctx context.Context) {
	batch := make([]postReq, 0, maxBatch)
	ops := make([]hub.PostOp, 0, maxBatch)
	for {
		batch, ops = batch[:0], ops[:0]
		select {
		case <-ctx.Done():
			return
		case r := <-c.q:
			batch = append(batch, r)
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-c.q:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		live := batch[:0]
		for _, r := range batch {
			if r.ctx.Err() == nil { // skip requests whose client left
				live = append(live, r)
				ops = append(ops, r.op)
			}
		}
		if len(live) == 0 {
			continue
		}
		res := c.svc.PostMany(context.WithoutCancel(ctx), ops)
		for i, r := range live {
			r.res <- res[i]
		}
	}
}
