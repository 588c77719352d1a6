package mcp

import (
	"context"
	"strconv"

	"github.com/blackboard-hub/bb/internal/hub"
)

type eventsIn struct {
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor"`
	Types  []string `json:"types,omitempty" jsonschema:"e.g. message.posted"`
	Agent  string   `json:"agent,omitempty" jsonschema:"by or for"`
	Limit  *int     `json:"limit,omitempty" jsonschema:"default 100"`
}

type eventsOut struct {
	Events []EventOut `json:"events"`
	// NextCursor is the cursor to pass next time (always set: new events
	// arrive later).
	NextCursor string `json:"next_cursor"`
	// More is true when this page was cut: call again with next_cursor.
	More bool `json:"more"`
}

func (s *Server) addEventTools() {
	addTool(s, tool{name: "bb_events", readOnly: true,
		desc: "What changed since your cursor."},
		func(ctx context.Context, c *call, in eventsIn) (eventsOut, error) {
			after, err := seqOf(in.Cursor)
			if err != nil {
				return eventsOut{}, err
			}
			p, err := c.svc.Events(ctx, hub.EventQuery{AfterSeq: after, Types: in.Types, Agent: in.Agent, Limit: in.Limit})
			if err != nil {
				return eventsOut{}, err
			}
			evs := p.Events
			out := eventsOut{Events: eventOuts(evs), More: p.More}
			if n := fit(out.Events, pageBudget); n < len(out.Events) {
				out.Events, evs, out.More = out.Events[:n], evs[:n], true
			}
			last := after
			if len(evs) > 0 {
				last = evs[len(evs)-1].Seq
			}
			out.NextCursor = strconv.FormatInt(last, 10)
			return out, nil
		})
}
