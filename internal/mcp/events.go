package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Event tool limits.
const (
	defaultEventsLimit = 100
	maxEventsLimit     = 500
)

type eventsIn struct {
	SinceSeq int64    `json:"since_seq,omitempty" jsonschema:"cursor: the next_seq of your last call (0 = from the start)"`
	Types    []string `json:"types,omitempty" jsonschema:"only these types, e.g. message.posted"`
	Agent    string   `json:"agent,omitempty" jsonschema:"only by or for this agent"`
	Limit    int      `json:"limit,omitempty" jsonschema:"default 100, max 500"`
}

type eventsOut struct {
	Events []EventOut `json:"events"`
	// NextSeq is the cursor to pass as since_seq next time.
	NextSeq int64 `json:"next_seq"`
	// More is true when the limit cut the list: call again with next_seq.
	More bool `json:"more"`
}

func (s *Server) addEventTools() {
	addTool(s, tool{name: "bb_events", readOnly: true,
		desc: "Catch up on everything that changed (status, messages, artifacts, reservations, tasks) since your last cursor."},
		func(ctx context.Context, c *call, in eventsIn) (eventsOut, error) {
			if in.SinceSeq < 0 {
				return eventsOut{}, hub.FieldErr(hub.CodeInvalidInput, "since_seq", "since_seq must not be negative, got %d", in.SinceSeq)
			}
			if in.Limit < 0 {
				return eventsOut{}, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be a positive integer (max %d), got %d", maxEventsLimit, in.Limit)
			}
			limit := hub.ClampLimit(in.Limit, defaultEventsLimit, maxEventsLimit)
			// One more than asked tells whether there is more.
			evs, err := c.svc.Events(ctx, hub.EventFilter{AfterSeq: in.SinceSeq, Types: in.Types, Agent: in.Agent, Limit: limit + 1})
			if err != nil {
				return eventsOut{}, err
			}
			out := eventsOut{NextSeq: in.SinceSeq}
			if len(evs) > limit {
				evs, out.More = evs[:limit], true
			}
			if len(evs) > 0 {
				out.NextSeq = evs[len(evs)-1].Seq
			}
			out.Events = eventOuts(evs)
			return out, nil
		})
}
