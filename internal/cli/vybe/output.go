package vybe

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// envelope is the v1 reply: one JSON document on stdout.
type envelope struct {
	SchemaVersion   string            `json:"schema_version"`
	Success         bool              `json:"success"`
	Data            any               `json:"data,omitempty"`
	Error           string            `json:"error,omitempty"`
	ErrorCode       string            `json:"error_code,omitempty"`
	ErrorContext    map[string]string `json:"error_context,omitempty"`
	SuggestedAction string            `json:"suggested_action,omitempty"`
}

// print writes v as compact JSON (Go's default HTML escaping of <, >, &)
// and a newline, or 2-space indented when VYBE_PRETTY_JSON is 1 or true.
func (a *app) print(v any) {
	var b []byte
	var err error
	switch a.env.Getenv("VYBE_PRETTY_JSON") {
	case "1", "true":
		b, err = json.MarshalIndent(v, "", "  ")
	default:
		b, err = json.Marshal(v)
	}
	if err != nil {
		b = []byte(`{"schema_version":"v1","success":false,"error":"failed to encode response"}`)
	}
	var buf bytes.Buffer
	buf.Write(b)
	buf.WriteByte('\n')
	_, _ = a.env.Stdout.Write(buf.Bytes())
}

// ok prints a success envelope.
func (a *app) ok(data any) error {
	if data == nil {
		data = json.RawMessage("null")
	}
	a.print(envelope{SchemaVersion: "v1", Success: true, Data: data})
	return nil
}

// fail prints the error envelope.
func (a *app) fail(err error) {
	msg := err.Error()
	var he *hub.Error
	if errors.As(err, &he) {
		msg = he.Words(hub.Vocabulary{Field: view.FlagName, Action: func(a hub.Action) string {
			if a.Do == hub.ActIdentify {
				return "set --agent or VYBE_AGENT"
			}
			return ""
		}})
		if he.Code == hub.CodeInternal && he.Err != nil {
			msg = he.Message + ": " + he.Err.Error()
		}
	}
	a.print(envelope{SchemaVersion: "v1", Success: false, Error: msg})
}

// prefixed rewrites a not-found error's message with the command's prefix
// (e.g. "failed to get task: task not found: X").
func prefixed(prefix string, err error) error {
	var he *hub.Error
	if errors.As(err, &he) && he.Code == hub.CodeNotFound {
		c := *he
		c.Message = prefix + he.Message
		return &c
	}
	return err
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func sortStrings(ss []string) { sort.Strings(ss) }
