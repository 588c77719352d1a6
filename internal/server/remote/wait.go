package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/server/wire"
)

// Wait waits on the server (POST /api/v1/wait): the server blocks on its
// own board's signal, so a remote waiter holds one idle request and reads
// nothing. progress is called while the request is held, from a local
// timer (a remote wait sends none of its own).
func (c *Client) Wait(ctx context.Context, in hooks.WaitInput, progress func(hooks.WaitProgress)) (hooks.WaitResult, error) {
	body := map[string]any{"timeout_s": in.Timeout.Seconds(), "via": string(in.Via)}
	for k, v := range map[string]string{"for_reply": in.ForReply, "for_scope": in.ForScope, "wd": in.Wd, "for_task": in.ForTask} {
		if v != "" {
			body[k] = v
		}
	}
	if in.Session != nil {
		body["session"] = in.Session
	}
	b, err := json.Marshal(body)
	if err != nil {
		return hooks.WaitResult{}, hub.Internal("encode wait", err)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/v1/wait", bytes.NewReader(b))
	if err != nil {
		return hooks.WaitResult{}, c.unreachable(err)
	}
	r.Header.Set("Content-Type", "application/json")
	if in.Agent != "" {
		r.Header.Set(wire.AgentHeader, in.Agent)
	}
	c.auth(r)
	if progress != nil && in.Timeout > 0 {
		started := time.Now()
		pctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() {
			t := time.NewTicker(hooks.ProgressEvery(in.Timeout))
			defer t.Stop()
			for {
				select {
				case <-pctx.Done():
					return
				case <-t.C:
					progress(hooks.WaitProgress{Elapsed: time.Since(started), Timeout: in.Timeout})
				}
			}
		}()
	}
	// No client timeout: the wait's own bounds it (the server answers by
	// then), and ctx ends it.
	hc := &http.Client{Transport: c.hc.Transport}
	resp, err := hc.Do(r)
	if err != nil {
		if ctx.Err() != nil {
			return hooks.WaitResult{}, ctx.Err()
		}
		return hooks.WaitResult{}, c.unreachable(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return hooks.WaitResult{}, c.unreachable(err)
	}
	var env struct {
		OK    bool             `json:"ok"`
		Data  hooks.WaitResult `json:"data"`
		Error *wireError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return hooks.WaitResult{}, &hub.Error{Code: hub.CodeInternal, Message: fmt.Sprintf("unexpected reply from %s (HTTP %d)", c.base, resp.StatusCode), Err: err}
	}
	if !env.OK {
		if env.Error == nil {
			return hooks.WaitResult{}, hub.Errorf(hub.CodeInternal, "server error (HTTP %d)", resp.StatusCode)
		}
		return hooks.WaitResult{}, env.Error.err()
	}
	return env.Data, nil
}
