package server

import (
	"context"
	"sync"

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
//
// Every queued request gets exactly one answer, and it is the truth: the
// result of the commit it was part of, or an error for a request that was
// never stored (its client left before the batch formed, or the server
// stopped first). A request is never told "failed" while its batch commits.
type committer struct {
	svc app.API
	q   chan postReq
	// done is closed once run has returned and answered every request it
	// took from the queue.
	done chan struct{}
}

type postReq struct {
	ctx context.Context
	op  hub.PostOp
	res chan hub.PostResult
}

func newCommitter(svc app.API) *committer {
	return &committer{svc: svc, q: make(chan postReq, 4*maxBatch), done: make(chan struct{})}
}

// errStopped answers the posts that arrive after the committer stopped:
// nothing was stored, and another server (or this one restarted) may take
// the same request.
func errStopped() hub.PostResult {
	return hub.PostResult{Err: hub.Unavailable("the server is shutting down: nothing was stored, retry the request", nil)}
}

// post queues op and waits for its result. Once queued, it waits for the
// committer's answer whatever happens to ctx: the batch may be committing,
// and only the committer knows.
func (c *committer) post(ctx context.Context, op hub.PostOp) hub.PostResult {
	if p, ok := hub.PrincipalFrom(ctx); ok {
		op.Principal = &p
	}
	req := postReq{ctx: ctx, op: op, res: make(chan hub.PostResult, 1)}
	select {
	case c.q <- req:
	case <-c.done:
		return errStopped()
	case <-ctx.Done():
		return hub.PostResult{Err: hub.Errorf(hub.CodeInternal, "request cancelled")}
	}
	select {
	case r := <-req.res:
		return r
	case <-c.done:
		// run answers every request it took before closing done; one
		// queued after its last drain was never taken.
		select {
		case r := <-req.res:
			return r
		default:
			return errStopped()
		}
	}
}

// start runs n group commits over the one queue until ctx ends; done is
// closed once every one of them has returned (and answered every request
// it took).
func (c *committer) start(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(ctx)
		}()
	}
	go func() {
		wg.Wait()
		close(c.done)
	}()
}

// run commits batches until ctx ends, then answers what is still queued
// (not stored). Cancel ctx only once no handler can queue a post any more
// (after http.Server.Shutdown), so none is turned away.
func (c *committer) run(ctx context.Context) {
	batch := make([]postReq, 0, maxBatch)
	ops := make([]hub.PostOp, 0, maxBatch)
	for {
		batch, ops = batch[:0], ops[:0]
		select {
		case <-ctx.Done():
			for {
				select {
				case r := <-c.q:
					r.res <- errStopped()
				default:
					return
				}
			}
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
			if r.ctx.Err() != nil { // the client left: not stored
				r.res <- hub.PostResult{Err: hub.Errorf(hub.CodeInternal, "request cancelled")}
				continue
			}
			live = append(live, r)
			ops = append(ops, r.op)
		}
		if len(live) == 0 {
			continue
		}
		// The batch runs to its end even if ctx ends meanwhile: its
		// requests are answered with what was stored.
		res := c.svc.PostMany(context.WithoutCancel(ctx), ops)
		for i, r := range live {
			r.res <- res[i]
		}
	}
}
