package vybe

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type argProp struct {
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Default     any      `json:"default,omitempty"`
	Enum        []string `json:"enum,omitempty"`
}

type argsSchema struct {
	Type       string             `json:"type"`
	Properties map[string]argProp `json:"properties"`
	Required   []string           `json:"required,omitempty"`
}

type commandSchema struct {
	Command           string     `json:"command"`
	Description       string     `json:"description"`
	ArgsSchema        argsSchema `json:"args_schema"`
	Mutates           bool       `json:"mutates"`
	RequiresRequestID bool       `json:"requires_request_id"`
}

func (a *app) schemaCmd() *cobra.Command {
	cmds := &cobra.Command{
		Use:   "commands",
		Short: "Argument schemas of every command, with mutation and request-id hints",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.ok(map[string]any{"commands": CommandSchemas(cmd.Root())})
		},
	}
	c := namespace("schema", "Machine-readable command schemas", cmds)
	a.namespaceRun(c)
	return c
}

// CommandSchemas walks the real command tree and describes every runnable
// leaf command: its flags (local and inherited) as a JSON-schema-like object.
func CommandSchemas(root *cobra.Command) []commandSchema {
	out := []commandSchema{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if s.Hidden || s.Name() == "help" {
				continue
			}
			if s.HasAvailableSubCommands() {
				// A namespace that is a command of its own (vybe loop)
				// carries the mutation hint and is listed too.
				if _, ok := s.Annotations[annMutates]; ok && s.Runnable() {
					out = append(out, describe(s))
				}
				walk(s)
				continue
			}
			if !s.Runnable() {
				continue
			}
			out = append(out, describe(s))
		}
	}
	walk(root)
	return out
}

func describe(c *cobra.Command) commandSchema {
	sc := commandSchema{Command: c.CommandPath(), Description: c.Short,
		ArgsSchema: argsSchema{Type: "object", Properties: map[string]argProp{}},
		Mutates:    c.Annotations[annMutates] == "true", RequiresRequestID: c.Annotations[annRequestID] == "true"}
	add := func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		p := argProp{Type: flagType(f), Description: f.Usage}
		if v := flagDefault(f, p.Type); v != nil {
			p.Default = v
		}
		if e := f.Annotations[annEnum]; len(e) > 0 {
			p.Enum = e
		}
		sc.ArgsSchema.Properties[f.Name] = p
		if len(f.Annotations[annRequired]) > 0 || len(f.Annotations[cobra.BashCompOneRequiredFlag]) > 0 {
			sc.ArgsSchema.Required = append(sc.ArgsSchema.Required, f.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return sc
}

func flagType(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int", "int64", "int32", "uint", "uint64":
		return "integer"
	case "bool":
		return "boolean"
	}
	return "string"
}

func flagDefault(f *pflag.Flag, typ string) any {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(f.DefValue, 10, 64)
		if err != nil {
			return nil
		}
		return n
	case "boolean":
		if f.DefValue == "true" {
			return true
		}
		return nil
	}
	if f.DefValue == "" {
		return nil
	}
	return f.DefValue
}
