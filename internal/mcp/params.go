package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Tool parameters. Every rule the core enforces on an argument and that a
// schema can say (allowed values, ranges, lengths) is declared here, from
// the core's own constants, so clients can check arguments before calling
// and models see the allowed values; the core still checks everything.
//
// One name per concept across tools: `agent` for an agent id (whose role
// the description gives), `message_id` for a mail id, `thread` for a mail
// thread id, `cursor`/`next_cursor` for paging, `limit` for page sizes.

// rule constrains one property schema.
type rule func(*jsonschema.Schema)

func maxLen(n int) rule { return func(s *jsonschema.Schema) { s.MaxLength = &n } }

func enum(vals ...string) rule {
	return func(s *jsonschema.Schema) {
		s.Enum = nil
		for _, v := range vals {
			s.Enum = append(s.Enum, v)
		}
	}
}

func between(lo, hi int) rule {
	return func(s *jsonschema.Schema) {
		l, h := float64(lo), float64(hi)
		s.Minimum, s.Maximum = &l, &h
	}
}

func atLeast(lo int) rule {
	return func(s *jsonschema.Schema) { l := float64(lo); s.Minimum = &l }
}

func items(maxItems int, each rule) rule {
	return func(s *jsonschema.Schema) {
		s.MaxItems = &maxItems
		if s.Items != nil && each != nil {
			each(s.Items)
		}
	}
}

// checkedByShape are the parameters whose rule the checking (loose)
// schema applies too: paging, and numbers the core reads 0 of as "not
// given" (reply_to: 0 would post a new message, not a reply), so only the
// schema can hold the minimum it advertises.
var checkedByShape = map[string]bool{"limit": true, "reply_to": true, "replies_to": true}

// paramRules are the rules of a parameter name in every tool; toolRules
// ("tool.param") win over them where one name means a different thing.
var paramRules = map[string]rule{
	"agent":        maxLen(hub.MaxStoredAgentIDLen),
	"progress":     between(0, 100),
	"current_task": maxLen(hub.MaxTaskLen),
	"blockers":     maxLen(hub.MaxBlockersLen),
	"content":      maxLen(hub.MaxMessageLen),
	"tags":         items(hub.MaxTagsPerMessage, maxLen(hub.MaxTagLen)),
	"refs":         items(hub.MaxRefsPerEntity, nil),
	"priority":     enum(string(hub.PriorityLow), string(hub.PriorityNormal), string(hub.PriorityHigh), string(hub.PriorityCritical)),
	"reply_to":     atLeast(1),
	"replies_to":   atLeast(1),
	"path":         maxLen(hub.MaxArtifactPathLen),
	"version":      maxLen(hub.MaxVersionLen),
	"bead":         maxLen(hub.MaxBeadIDLen),
	"thread":       maxLen(hub.MaxThreadIDLen),
	"subject":      maxLen(hub.MaxSubjectLen),
	"category":     enum(hub.CategoryHandoff, hub.CategoryBlocked, hub.CategoryDecision, hub.CategoryInfo),
	"state":        enum(hub.StateUnread, hub.StateRead, hub.StateAcked),
	"ttl_minutes":  between(hub.MinReserveTTL, hub.MaxReserveTTL),
	"scope":        maxLen(hub.MaxScopeLen),
	"title":        maxLen(hub.MaxTaskTitleLen),
	"summary":      maxLen(hub.MaxSummaryLen),
	"outcome":      enum("done", "blocked"),
	"key":          maxLen(hub.MaxMemoryKeyLen),
	"value":        maxLen(hub.MaxMemoryValueLen),
	"scope_id":     maxLen(hub.MaxScopeIDLen),
	"project":      maxLen(hub.MaxProjectIDLen),
	"limit":        atLeast(1),
}

var toolRules = map[string]rule{
	"bb_set_status.status":             enum(hub.AgentStatuses...),
	"bb_task_list.status":              enum(hub.TaskStatuses...),
	"bb_task_create.priority":          func(s *jsonschema.Schema) {}, // an integer, higher first
	"bb_task_create.description":       maxLen(hub.MaxTaskDescLen),
	"bb_register_artifact.description": maxLen(hub.MaxArtifactDescLen),
	"bb_memory_set.scope":              enum(hub.ScopeGlobal, hub.ScopeProject, hub.ScopeTask, hub.ScopeAgent),
	"bb_memory_get.scope":              enum(hub.ScopeGlobal, hub.ScopeProject, hub.ScopeTask, hub.ScopeAgent),
	"bb_read_messages.limit":           between(1, hub.MaxLogLimit),
	"bb_list_artifacts.limit":          between(1, hub.MaxArtifactsLimit),
	"bb_inbox.limit":                   between(1, hub.MaxInboxLimit),
	"bb_events.limit":                  between(1, hub.MaxEventsLimit),
	"bb_task_list.limit":               between(1, maxListLimit),
	"bb_get_status.limit":              between(1, maxListLimit),
	"bb_memory_get.limit":              between(1, maxListLimit),
	"bb_search.kind":                   enum(hub.SearchKinds()...),
}

// aliases are argument names of earlier versions (and of the original
// Blackboard), accepted and renamed before validation; tools/list shows
// only the current names.
var aliases = map[string]map[string]string{
	"bb_identify":       {"agent_id": "agent"},
	"bb_get_status":     {"agent_id": "agent"},
	"bb_read_messages":  {"from_agent": "agent", "thread": "replies_to"},
	"bb_list_artifacts": {"by": "agent"},
	"bb_send_mail":      {"to": "agent"},
	"bb_events":         {"since_seq": "cursor"},
}

// coreFields maps a field name of a core error to the parameter of a tool
// where they differ (the core speaks domain field names).
var coreFields = map[string]map[string]string{
	"":                     {"agent_id": "agent", "from": "agent", "to": "agent", "bead_id": "bead", "thread_id": "thread", "task": "current_task", "message": "message_id", "tag": "tags", "ttl": "ttl_minutes"},
	"bb_post_message":      {"message": "content", "ref": "refs"},
	"bb_register_artifact": {"ref": "refs"},
	"bb_read_messages":     {"before": "cursor", "seq": "replies_to", "duration": "since"},
	"bb_memory_set":        {"duration": "expires_in"},
	"bb_resume":            {"id": "focus"},
}

// paramOf names, for a tool, the parameter behind a core error's field.
func paramOf(tool, field string) string {
	if field == "" {
		return ""
	}
	if p, ok := coreFields[tool][field]; ok {
		return p
	}
	if p, ok := coreFields[""][field]; ok {
		return p
	}
	return field
}

// shapeInput turns a generated input schema into what every client
// accepts: one JSON type per property (an optional parameter is simply
// absent), the core's rules, no titles. It panics when a parameter has no
// description (a programming error caught by any test).
//
// With loose set, the core's rules are left out (but checkedByShape's):
// that schema checks the arguments' shape before the
// call, and the core then applies its rules with its own error codes, the
// ones the CLI gives for the same value.
func shapeInput(tool string, s *jsonschema.Schema, loose bool) {
	s.Title, s.PropertyOrder = "", nil
	if !loose {
		// Unknown arguments are refused by the loose (checking) schema;
		// saying so in every advertised schema costs context for nothing.
		s.AdditionalProperties = nil
	}
	for name, p := range s.Properties {
		p.Title, p.PropertyOrder = "", nil
		p.Type = singleType(p)
		p.Types = nil
		if p.Items != nil {
			p.Items.Type, p.Items.Types = singleType(p.Items), nil
		}
		if loose && !checkedByShape[name] {
			continue
		}
		if r, ok := toolRules[tool+"."+name]; ok {
			r(p)
		} else if r, ok := paramRules[name]; ok {
			r(p)
		}
		if strings.TrimSpace(p.Description) == "" {
			panic(fmt.Sprintf("mcp: %s.%s has no description", tool, name))
		}
	}
}

// singleType is the one non-null type of a property.
func singleType(p *jsonschema.Schema) string {
	if p.Type != "" {
		return p.Type
	}
	ts := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
	if len(ts) == 1 {
		return ts[0]
	}
	return ""
}

// renameAliases renames old argument names of a tool in m (a name given
// twice keeps the current one).
func renameAliases(tool string, m map[string]any) {
	for old, cur := range aliases[tool] {
		v, ok := m[old]
		if !ok {
			continue
		}
		delete(m, old)
		if _, dup := m[cur]; dup {
			continue
		}
		if f, isNum := v.(float64); isNum && cur == "cursor" {
			v = fmt.Sprint(int64(f))
		}
		m[cur] = v
	}
}
