package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/voice"
)

// bb_wait: an agent that needs an answer waits for it instead of asking
// again and again (bb agent wait). A tool call is bounded by the client's
// own tool timeout (Claude Code's MCP_TOOL_TIMEOUT, Codex's
// tool_timeout_sec: 60 s by default for Codex), so a wait is given in
// seconds with a cap well inside those defaults: waitCapS. While it waits
// it sends a progress notification every few seconds when the call asked
// for them (_meta.progressToken), which also tells clients that reset
// their timeout on progress that the call is alive.

// waitDefaultS and waitCapS bound timeout_s.
const (
	waitDefaultS = 50
	waitCapS     = 600
)

type waitIn struct {
	For      string `json:"for,omitempty" jsonschema:"reply:MSG, scope:PATH, task:ID; none = any mail"`
	TimeoutS *int   `json:"timeout_s,omitempty" jsonschema:"1-600, default 50"`
}

// condition splits for into the wait's condition.
func (in waitIn) condition() (reply, scope, task string, err error) {
	if in.For == "" {
		return "", "", "", nil
	}
	kind, v, ok := strings.Cut(in.For, ":")
	if ok && v != "" {
		switch kind {
		case "reply":
			return v, "", "", nil
		case "scope":
			return "", v, "", nil
		case "task":
			return "", "", v, nil
		}
	}
	return "", "", "", hub.FieldErr(hub.CodeInvalidInput, "for", "for must be reply:<message id>, scope:<path> or task:<task id>, got %q", in.For)
}

type waitOut struct {
	Condition string     `json:"condition"`
	Met       bool       `json:"met"`
	TimedOut  bool       `json:"timed_out"`
	Delivered []string   `json:"delivered"`
	Text      string     `json:"text"`
	AckedAt   *time.Time `json:"acked_at,omitempty"`
	Scope     string     `json:"scope,omitempty"`
	TaskID    string     `json:"task_id,omitempty"`
	WaitedMS  int64      `json:"waited_ms"`
}

func (s *Server) addWaitTools() {
	addTool(s, tool{name: "bb_wait", needsID: true, core: true,
		desc: "Wait for mail, a reply, a free path or a ready task; don't poll."},
		func(ctx context.Context, c *call, in waitIn) (waitOut, error) {
			secs := waitDefaultS
			if in.TimeoutS != nil {
				secs = *in.TimeoutS
			}
			if secs < 1 || secs > waitCapS {
				return waitOut{}, hub.FieldErr(hub.CodeInvalidInput, "timeout_s", "timeout_s must be between 1 and %d seconds, got %d", waitCapS, secs)
			}
			// The wait ends when the client cancels the call; what it
			// delivered before that was written whole.
			wctx, stop := s.waiting(ctx, c)
			defer stop()
			live := c.liveCtx(ctx)
			var progress func(hooks.WaitProgress)
			if c.progressToken != nil && c.session != nil {
				progress = func(p hooks.WaitProgress) {
					_ = c.session.NotifyProgress(live, &sdk.ProgressNotificationParams{ProgressToken: c.progressToken,
						Progress: p.Elapsed.Seconds(), Total: p.Timeout.Seconds(), Message: "waiting for the board"})
				}
			}
			reply, scope, task, err := in.condition()
			if err != nil {
				return waitOut{}, err
			}
			res, err := c.svc.Wait(wctx, hooks.WaitInput{Agent: c.agent, ForReply: reply, ForScope: scope, ForTask: task,
				Timeout: time.Duration(secs) * time.Second, Via: hooks.ViaWait}, progress)
			if err != nil {
				return waitOut{}, err
			}
			out := waitOut{Condition: res.Condition, Met: res.Met, TimedOut: res.TimedOut, Delivered: res.Delivery.Delivered,
				Text: deliveryText(res.Delivery), AckedAt: res.AckedAt, Scope: res.Scope, WaitedMS: res.Waited.Milliseconds()}
			if out.Delivered == nil {
				out.Delivered = []string{}
			}
			if res.Task != nil {
				out.TaskID = res.Task.ID
			}
			return out, nil
		})
}

// deliveryText is what a wait delivered, in MCP's words: the mail as a
// hook words it, then the escalations of what the agent sent.
func deliveryText(d hooks.Delivery) string {
	var b strings.Builder
	b.WriteString(d.Text.Words(mcpAction))
	if len(d.Escalations) > 0 {
		fmt.Fprintf(&b, "[Blackboard] Escalated (%d): nobody accepted in time what you sent; the people watching the board now see it.\n", len(d.Escalations))
		for _, e := range d.Escalations {
			to := e.To
			if to == "" {
				to = "everyone"
			}
			fmt.Fprintf(&b, "- your %s to %s: %s — waiting %d minutes (escalates after %d)\n", e.Category, voice.Name(to), voice.Inline(e.Subject, 120), e.WaitingMinutes, e.EscalateAfter)
		}
	}
	return b.String()
}

// liveCtx is the context of the client's call (it ends when the client
// cancels it); ctx when the call has none.
func (c *call) liveCtx(ctx context.Context) context.Context {
	if c.live != nil {
		return c.live
	}
	return ctx
}

// waiting is the context of a tool call that waits: it ends when the
// client cancels the call or bb serve starts to stop, so the waiter
// leaves at once; stop releases it.
func (s *Server) waiting(ctx context.Context, c *call) (context.Context, func()) {
	wctx, cancel := context.WithCancel(ctx)
	unLive := context.AfterFunc(c.liveCtx(ctx), cancel)
	unStop := context.AfterFunc(s.stopping(), cancel)
	return wctx, func() {
		unStop()
		unLive()
		cancel()
	}
}
