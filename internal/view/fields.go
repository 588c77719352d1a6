package view

import "strings"

// FlagName renders a domain field named by a core error as a command-line
// flag (request_id → --request-id). Each command-line surface names the
// few fields whose flag is spelled otherwise before falling back to it.
func FlagName(field string) string {
	return "--" + strings.ReplaceAll(field, "_", "-")
}
