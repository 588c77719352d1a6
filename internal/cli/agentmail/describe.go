package agentmail

import (
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/blackboard-hub/bb/internal/hub"
	mailrules "github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/pyjson"
)

// describe prints the schema (FR1): the fixed documentation below plus
// the commands part generated from the cobra definitions. It never opens
// the database.
func (a *app) describe(name string) error {
	cmds := pyjson.Object{}
	var names []string
	for _, c := range a.cmds {
		cmds = append(cmds, pyjson.KV{Key: c.Name(), Value: commandSchema(c)})
		names = append(names, c.Name())
	}
	if name != "" {
		v, ok := cmds.Get(name)
		if !ok {
			return hub.Errorf(hub.CodeInvalidInput, "Unknown command: %s. Available: %s", pyjson.Repr(name), strings.Join(names, ", "))
		}
		return a.reply(pyjson.Object{{Key: name, Value: v}})
	}
	return a.reply(pyjson.Object{
		{Key: "name", Value: Prog},
		{Key: "description", Value: "Agent-to-agent mailbox for local coding agents. SQLite-backed, zero external deps."},
		{Key: "usage", Value: Prog + " <command> [args]"},
		{Key: "storage", Value: a.defaultDBPath() + " (override with AGENT_MAIL_DB env var)"},
		{Key: "agent_identity", Value: pyjson.Object{
			{Key: "format", Value: "project:name"},
			{Key: "examples", Value: []string{"second-brain:main", "claudefana:deploy", "tranzact:worker-1"}},
			{Key: "rule", Value: "project is the repo/project name, name is the session/agent name. Both lowercase alphanumeric + hyphens."},
		}},
		{Key: "content_routing", Value: pyjson.Object{
			{Key: "messages", Value: "Ephemeral coordination — status updates, prompts, acks, handoffs. Auto-expires via TTL. This is what agent-mail handles."},
			{Key: "vault_files", Value: "Personal persistent knowledge — strategy, cross-project context, learnings. Agents write files directly to the Obsidian vault. Survives beyond any single task."},
			{Key: "repo_files", Value: "Shared persistent implementation — specs, docs, architecture decisions. Agents write files directly to project repos. Readable by other maintainers/users."},
			{Key: "rule", Value: "If it should outlive the current task, it's a file, not a message. Messages reference files via --refs but don't manage them."},
		}},
		{Key: "invariants", Value: []string{
			"All output is JSON on stdout, pretty-printed with two-space indentation",
			"All errors are JSON on stderr with 'error' key and non-zero exit code",
			"Messages are ephemeral — fixed " + strconv.Itoa(mailrules.MailTTLHours) + "h TTL, auto-cleanup on send/read/status",
			"Agent identity: project:name (e.g. claudefana:deploy, second-brain:main)",
			"Broadcast: use --to '*' — all agents see it",
			"File references in --refs are paths relative to sender's project root",
			"No registration needed — recipients don't need to exist before sending",
			"DB auto-creates on first use — no setup step required",
			"Long bodies with code/markdown: use --body-file to avoid shell escaping",
		}},
		{Key: "commands", Value: cmds},
	})
}

// commandSchema walks one command: description, mutating, args
// (positionals from Use, then flags in definition order), output_fields,
// examples.
func commandSchema(c *cobra.Command) pyjson.Object {
	out := pyjson.Object{{Key: "description", Value: c.Long}}
	if m, ok := c.Annotations[annMutating]; ok {
		out = append(out, pyjson.KV{Key: "mutating", Value: m == "true"})
	}
	args := pyjson.Object{}
	for _, p := range positionals(c) {
		args = append(args, pyjson.KV{Key: p.Name, Value: pyjson.Object{
			{Key: "type", Value: "str"},
			{Key: "positional", Value: true},
			{Key: "required", Value: p.Required},
			{Key: "description", Value: c.Annotations[annArgPrefix+p.Name]},
		}})
	}
	for _, f := range visibleFlags(c) {
		args = append(args, pyjson.KV{Key: "--" + f.Name, Value: flagSchema(f)})
	}
	out = append(out, pyjson.KV{Key: "args", Value: args})
	if of := outputFields(c); of != nil {
		out = append(out, pyjson.KV{Key: "output_fields", Value: of})
	}
	var ex []string
	for _, l := range strings.Split(c.Example, "\n") {
		l = strings.TrimSpace(l)
		if l != "" {
			ex = append(ex, strings.TrimPrefix(l, Prog+" "))
		}
	}
	out = append(out, pyjson.KV{Key: "examples", Value: ex})
	return out
}

// flagSchema: options with a meaningful default (switches, numbers) show
// it; text options say whether they are required.
func flagSchema(f *pflag.Flag) pyjson.Object {
	o := pyjson.Object{}
	switch f.Value.Type() {
	case "bool":
		o = append(o, pyjson.KV{Key: "type", Value: "bool"}, pyjson.KV{Key: "default", Value: f.DefValue == "true"})
	case "int":
		n, _ := strconv.Atoi(f.DefValue)
		o = append(o, pyjson.KV{Key: "type", Value: "int"}, pyjson.KV{Key: "default", Value: n})
	default:
		o = append(o, pyjson.KV{Key: "type", Value: "str"}, pyjson.KV{Key: "required", Value: isRequired(f)})
	}
	return append(o, pyjson.KV{Key: "description", Value: f.Usage})
}

func sortStrings(s []string) { sort.Strings(s) }
