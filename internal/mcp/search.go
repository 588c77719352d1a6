package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Full-text search over the board (as bb search).

type searchIn struct {
	Query string   `json:"query" jsonschema:"words to find (all required; a word also finds longer words it starts); \"quoted words\" must appear together"`
	Kind  []string `json:"kind,omitempty" jsonschema:"only these kinds: message, task, memory, artifact"`
	Agent string   `json:"agent,omitempty" jsonschema:"only what this agent sent or received, owns, produced or keeps"`
	Since string   `json:"since,omitempty" jsonschema:"only what was written or changed in this window: 10m, 1h, 2d"`
	Limit int      `json:"limit,omitempty" jsonschema:"how many results (default 20, max 100)"`
}

func (s *Server) addSearchTools() {
	addTool(s, tool{name: "bb_search", readOnly: true, core: true,
		desc: "Find messages, mail, tasks, memory and artifacts by their words, best first, with the matched words marked in each snippet."},
		func(ctx context.Context, c *call, in searchIn) (hub.SearchResult, error) {
			q := hub.SearchQuery{Text: in.Query, Kinds: in.Kind, Agent: in.Agent, Limit: in.Limit}
			if in.Since != "" {
				d, err := hub.ParseDuration(in.Since)
				if err != nil {
					return hub.SearchResult{}, err
				}
				q.Since = d
			}
			return c.svc.Search(ctx, q)
		})
}
