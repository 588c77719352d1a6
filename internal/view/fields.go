package view

import (
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// FlagName renders a domain field named by a core error as a command-line
// flag (request_id → --request-id). Each command-line surface names the
// few fields whose flag is spelled otherwise before falling back to it.
func FlagName(field string) string {
	return "--" + strings.ReplaceAll(field, "_", "-")
}

// OptionalRef parses a ref that a surface takes as an optional text field
// (MCP's ref, the HTTP API's ?ref=): none when s is empty.
func OptionalRef(s string) (*hub.Ref, error) {
	if s == "" {
		return nil, nil
	}
	r, err := hub.ParseRef(s)
	if err != nil {
		return nil, err
	}
	return &r, nil
}
