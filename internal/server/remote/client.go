// Package remote is the BB_SERVER client: an app.API whose methods run on a
// bb serve over HTTP (POST /api/v1/rpc/<Method>), so every bb command works
// unchanged against a remote hub.
package remote

//go:generate go run ./gen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server/wire"
)

// Client talks to one bb serve.
type Client struct {
	base  string
	token string
	hc    *http.Client
	clock hub.Clock
	// timeout bounds a call that does not wait on the server
	// (DefaultTimeout); a waiting call gets its wait on top (callTimeout).
	timeout time.Duration

	once sync.Once
	root string
	err  error
	// repo is this checkout's repository fingerprint, sent with every
	// call (RepositoryHeader) so the server refuses another repository.
	repo string
}

// RepositoryHeader carries the caller's repository fingerprint.
const RepositoryHeader = wire.RepositoryHeader

// SetRepository sets the fingerprint of the repository the caller works
// in ("" when it cannot tell): the server refuses calls from a checkout of
// another repository than the one its board serves.
func (c *Client) SetRepository(id string) { c.repo = id }

// DefaultTimeout bounds one call to the server, unless the call waits
// there (wire.Waiter), which gets its wait on top.
const DefaultTimeout = 60 * time.Second

// New returns a client of the server at baseURL (http://host:7777).
func New(baseURL, token string, clock hub.Clock) (*Client, error) {
	u := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "BB_SERVER", "BB_SERVER must be an http:// or https:// URL, got %q", baseURL)
	}
	if clock == nil {
		clock = hub.SystemClock{}
	}
	return &Client{base: u, token: token, clock: clock, timeout: DefaultTimeout, hc: &http.Client{Timeout: DefaultTimeout}}, nil
}

// Now is the local clock (BB_NOW in tests), like a local service's.
func (c *Client) Now() time.Time { return c.clock.Now().UTC().Truncate(time.Microsecond) }

// Root is the server's project directory.
func (c *Client) Root() string {
	c.once.Do(func() {
		var data struct {
			ProjectDir string `json:"project_dir"`
		}
		c.err = c.get(context.Background(), "/api/v1/info", &data)
		c.root = data.ProjectDir
	})
	return c.root
}

// DisplayScope renders a reservation's scope relative to the server's
// project directory, as the server's service would.
func (c *Client) DisplayScope(r hub.Reservation) string {
	return hub.Scope{Path: r.Scope, Wildcard: r.Wildcard}.Display(c.Root())
}

type envelope struct {
	OK    bool              `json:"ok"`
	Data  []json.RawMessage `json:"data"`
	Error *wireError        `json:"error"`
}

// wireError is a core error as the server's envelope carries it.
type wireError struct {
	Code     string       `json:"code"`
	Message  string       `json:"message"`
	Field    string       `json:"field"`
	Template string       `json:"template"`
	Actions  []hub.Action `json:"actions"`
}

// err is the core error again, with its template so that the caller
// words its fields in its own vocabulary, like a local call.
func (w *wireError) err() error {
	return &hub.Error{Code: hub.Code(w.Code), Message: w.Message, Field: w.Field, Template: w.Template, Actions: w.Actions}
}

func (c *Client) auth(r *http.Request) {
	if c.token != "" {
		r.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.repo != "" {
		r.Header.Set(RepositoryHeader, c.repo)
	}
}

// call runs method on the server with args and decodes its results into
// outs (pointers, in order).
func (c *Client) call(ctx context.Context, method string, args []any, outs []any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return hub.Internal("encode "+method, err)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/v1/rpc/"+method, bytes.NewReader(body))
	if err != nil {
		return c.unreachable(err)
	}
	r.Header.Set("Content-Type", "application/json")
	if k, ok := hub.IdemFrom(ctx); ok {
		r.Header.Set("Idempotency-Key", k.RequestID)
		r.Header.Set(wire.IdempotencyAgentHeader, k.Agent)
		r.Header.Set(wire.IdempotencyCommandHeader, k.Command)
	}
	c.auth(r)
	hc := c.hc
	if d := callTimeout(c.timeout, args); d != hc.Timeout {
		hc = &http.Client{Transport: c.hc.Transport, Timeout: d}
	}
	resp, err := hc.Do(r)
	if err != nil {
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return c.unreachable(err)
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return &hub.Error{Code: hub.CodeInternal, Message: fmt.Sprintf("unexpected reply from %s (HTTP %d)", c.base, resp.StatusCode), Err: err}
	}
	if !env.OK {
		if env.Error == nil {
			return hub.Errorf(hub.CodeInternal, "server error (HTTP %d)", resp.StatusCode)
		}
		return env.Error.err()
	}
	if len(env.Data) != len(outs) {
		return hub.Errorf(hub.CodeInternal, "%s: server returned %d results, want %d (version mismatch?)", method, len(env.Data), len(outs))
	}
	for i, raw := range env.Data {
		if err := json.Unmarshal(raw, outs[i]); err != nil {
			return hub.Internal("decode "+method, err)
		}
	}
	return nil
}

// callTimeout is the client's timeout for a call with args: base, plus
// the longest wait an argument asks the server for (wire.Waiter). One
// request stays open for the whole wait rather than asking again in
// slices: the server takes a waiter out of the queue when its request
// ends, so a re-ask would join at the back and lose its arrival order.
func callTimeout(base time.Duration, args []any) time.Duration {
	var wait time.Duration
	for _, a := range args {
		if w, ok := a.(wire.Waiter); ok {
			wait = max(wait, w.CallWait())
		}
	}
	if wait <= 0 {
		return base
	}
	return base + wait
}

func (c *Client) get(ctx context.Context, path string, into any) error {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return c.unreachable(err)
	}
	c.auth(r)
	resp, err := c.hc.Do(r)
	if err != nil {
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	var env struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return hub.Errorf(hub.CodeInternal, "unexpected reply from %s (HTTP %d)", c.base, resp.StatusCode)
	}
	if !env.OK {
		if env.Error != nil {
			return &hub.Error{Code: hub.Code(env.Error.Code), Message: env.Error.Message}
		}
		return hub.Errorf(hub.CodeInternal, "server error (HTTP %d)", resp.StatusCode)
	}
	return json.Unmarshal(env.Data, into)
}

func (c *Client) unreachable(err error) error {
	return &hub.Error{Code: hub.CodeIOReadFailed, Message: fmt.Sprintf("cannot reach the bb server at %s (BB_SERVER): %v", c.base, rootCause(err)), Err: err}
}

func rootCause(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

// PostMany posts each op with its own call (the server batches concurrent
// posts itself); each op succeeds or fails on its own, as on a local board.
func (c *Client) PostMany(ctx context.Context, ops []hub.PostOp) []hub.PostResult {
	out := make([]hub.PostResult, len(ops))
	for i, op := range ops {
		m, err := c.Post(ctx, op.In)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Message = m
		if op.CheckIn {
			if n, err := c.CheckIn(ctx, op.In.From); err == nil {
				out[i].Notices = &n
			}
		}
	}
	return out
}

// followPoll is how often Follow asks the server for its newest event.
const followPoll = 150 * time.Millisecond

// Follow streams the server's timeline like a local board's Follow, by
// polling: the backlog when asked, then every new matching event, until
// ctx ends.
func (c *Client) Follow(ctx context.Context, in hub.FollowInput, emit func(hub.Event) error) error {
	f := in.Filter
	page := hub.MaxEventsLimit
	q := hub.EventQuery{AfterSeq: f.AfterSeq, Types: f.Types, Agent: f.Agent, BeadID: f.BeadID, Limit: &page}
	started := func(after int64) error {
		if in.Started == nil {
			return nil
		}
		return in.Started(after)
	}
	// drain emits the pages after q.AfterSeq up to upTo (0: until the last
	// page), at most limit events (0: all), and returns the new cursor.
	drain := func(upTo int64, limit int) (int64, error) {
		n := 0
		for {
			p, err := c.Events(ctx, q)
			if err != nil {
				return q.AfterSeq, err
			}
			for _, e := range p.Events {
				if upTo > 0 && e.Seq > upTo || limit > 0 && n == limit {
					return q.AfterSeq, nil
				}
				if err := emit(e); err != nil {
					return q.AfterSeq, err
				}
				q.AfterSeq = e.Seq
				n++
			}
			if !p.More {
				return q.AfterSeq, nil
			}
			q.AfterSeq = p.NextSeq
		}
	}
	head, err := c.LatestEventSeq(ctx)
	if err != nil {
		return ignoreDone(ctx, err)
	}
	if in.Backlog {
		if err := started(q.AfterSeq); err != nil {
			return err
		}
		if _, err := drain(head, f.Limit); err != nil {
			return ignoreDone(ctx, err)
		}
	} else if err := started(head); err != nil {
		return err
	}
	q.AfterSeq = max(q.AfterSeq, head) // from here on, only what is new
	t := time.NewTicker(followPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		head, err := c.LatestEventSeq(ctx)
		if err != nil {
			return ignoreDone(ctx, err)
		}
		if head > q.AfterSeq {
			if _, err := drain(head, 0); err != nil {
				return ignoreDone(ctx, err)
			}
			q.AfterSeq = max(q.AfterSeq, head)
		}
	}
}

// ignoreDone turns an error caused by ctx ending into the normal end.
func ignoreDone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
