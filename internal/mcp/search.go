package mcp

import (
	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Full-text search over the board (as bb search).

type searchIn struct {
	Query string `json:"query" jsonschema:"all these words"`
	Kind  string `json:"kind,omitempty" jsonschema:"only this"`
	Agent string `json:"agent,omitempty" jsonschema:"by or for"`
	Since string `json:"since,omitempty" jsonschema:"e.g. 2d"`
	Limit int    `json:"limit,omitempty" jsonschema:"default 20"`
}

func (s *Server) addSearchTools() {
	addTool(s, tool{name: "bb_search", readOnly: true,
		desc: "Search the board, best first."},
		func(ctx context.Context, c *call, in searchIn) (search.Result, error) {
			q := search.Query{Text: in.Query, Agent: in.Agent, Limit: in.Limit}
			if in.Kind != "" {
				q.Kinds = []string{in.Kind}
			}
			if in.Since != "" {
				d, err := hub.ParseDuration(in.Since)
				if err != nil {
					return search.Result{}, err
				}
				q.Since = d
			}
			return c.svc.Search(ctx, q)
		})
}
