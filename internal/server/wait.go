package server

import (
	"context"
	"net/http"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// waitBody is POST /api/v1/wait: bb agent wait over HTTP (and the remote
// client's Wait). The request is held until something arrives for the
// agent, the condition holds or the timeout passes; the reply is the
// wait's result, the items in it recorded delivered once.
type waitBody struct {
	// Session names an idle client session (its waiter); without it the
	// acting agent (X-BB-Agent, ?as=, or the credential's) waits.
	Session  *hooks.SessionInput `json:"session,omitempty"`
	ForReply string              `json:"for_reply,omitempty"`
	ForScope string              `json:"for_scope,omitempty"`
	Wd       string              `json:"wd,omitempty"`
	ForTask  string              `json:"for_task,omitempty"`
	// TimeoutS is the wait in seconds, at most hooks.MaxWait.
	TimeoutS float64 `json:"timeout_s"`
	Via      string  `json:"via,omitempty"`
}

// waitSlack is how much longer than its timeout a wait request may take
// to be answered.
const waitSlack = 30 * time.Second

func (s *Server) wait(c *call) (any, error) {
	var b waitBody
	if err := decodeBody(c.w, c.r, &b); err != nil {
		return nil, err
	}
	in := hooks.WaitInput{Session: b.Session, ForReply: b.ForReply, ForScope: b.ForScope, Wd: b.Wd, ForTask: b.ForTask,
		Timeout: time.Duration(b.TimeoutS * float64(time.Second)), Via: hooks.DeliveryVia(b.Via)}
	if b.Session == nil {
		if !c.explicit {
			return nil, hub.FieldErr(hub.CodeIdentityRequired, "agent", "who waits? send X-BB-Agent (or ?as=), or use an agent's credential")
		}
		in.Agent = c.agent
	}
	// The request outlives the server's write timeout: give it its own,
	// and end it when the server starts to stop (the client's waiter says
	// so and stops, or waits again elsewhere).
	rc := http.NewResponseController(c.w)
	if in.Timeout > 0 && in.Timeout <= hooks.MaxWait {
		_ = rc.SetWriteDeadline(time.Now().Add(in.Timeout + waitSlack))
		_ = rc.SetReadDeadline(time.Time{})
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	defer context.AfterFunc(s.streams, cancel)()
	// An open waiter is a long-lived request: bb_open_streams{kind="wait"}.
	defer s.OpenStream(StreamWait)()
	res, err := s.svc.Wait(ctx, in, nil)
	if err != nil && s.streams.Err() != nil {
		return nil, hub.Unavailable("the bb server is stopping: wait again once it is back", err)
	}
	return res, err
}
