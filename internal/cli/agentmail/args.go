package agentmail

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/blackboard-hub/bb/internal/pyjson"
)

// argparse compatibility: usage lines, "the following arguments are
// required", "unrecognized arguments", unique-prefix abbreviations of long
// options, and Python's int() for integer options.

// positional is one positional argument, declared in the command's Use
// line: <name> is required, [name] optional.
type positional struct {
	Name     string
	Required bool
}

func positionals(c *cobra.Command) []positional {
	var out []positional
	fields := strings.Fields(c.Use)
	for _, f := range fields[1:] {
		switch {
		case strings.HasPrefix(f, "<") && strings.HasSuffix(f, ">"):
			out = append(out, positional{Name: f[1 : len(f)-1], Required: true})
		case strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]"):
			out = append(out, positional{Name: f[1 : len(f)-1]})
		}
	}
	return out
}

func isRequired(f *pflag.Flag) bool {
	v, ok := f.Annotations[cobra.BashCompOneRequiredFlag]
	return ok && len(v) > 0 && v[0] == "true"
}

// visibleFlags are the command's own flags in definition order.
func visibleFlags(c *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	fs := c.LocalNonPersistentFlags()
	fs.SortFlags = false
	c.Flags().SortFlags = false
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Hidden {
			return
		}
		out = append(out, f)
	})
	return out
}

func metavar(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// usageLine is argparse's one-line usage.
func usageLine(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		var names []string
		if c != nil {
			for _, s := range c.Commands() {
				if !s.Hidden {
					names = append(names, s.Name())
				}
			}
		}
		return "usage: " + Prog + " [-h] {" + strings.Join(schemaOrder(names), ",") + "} ..."
	}
	parts := []string{"usage:", progOf(c), "[-h]"}
	for _, f := range visibleFlags(c) {
		p := "--" + f.Name
		if f.Value.Type() != "bool" {
			p += " " + metavar(f.Name)
		}
		if !isRequired(f) {
			p = "[" + p + "]"
		}
		parts = append(parts, p)
	}
	for _, p := range positionals(c) {
		if p.Required {
			parts = append(parts, p.Name)
		} else {
			parts = append(parts, "["+p.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// schemaOrder sorts command names in the order of the schema.
func schemaOrder(names []string) []string {
	order := []string{"describe", "send", "read", "ack", "status", "cleanup"}
	var out []string
	for _, o := range order {
		for _, n := range names {
			if n == o {
				out = append(out, n)
			}
		}
	}
	for _, n := range names {
		found := false
		for _, o := range order {
			found = found || n == o
		}
		if !found {
			out = append(out, n)
		}
	}
	return out
}

// checkArgs validates positionals and required flags together, as
// argparse reports them.
func checkArgs(c *cobra.Command, args []string) error {
	pos := positionals(c)
	var missing []string
	for i, p := range pos {
		if p.Required && i >= len(args) {
			missing = append(missing, p.Name)
		}
	}
	for _, f := range visibleFlags(c) {
		if isRequired(f) && !f.Changed {
			missing = append(missing, "--"+f.Name)
		}
	}
	if len(args) > len(pos) {
		return &usageErr{cmd: c.Root(), msg: "unrecognized arguments: " + strings.Join(args[len(pos):], " ")}
	}
	if len(missing) > 0 {
		return &usageErr{cmd: c, msg: "the following arguments are required: " + strings.Join(missing, ", ")}
	}
	return nil
}

// rootArgs rejects anything that is not a command.
func rootArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return &usageErr{cmd: c, msg: fmt.Sprintf("argument command: invalid choice: %s (choose from %s)",
		pyjson.Repr(args[0]), strings.Join(schemaOrderQuoted(c), ", "))}
}

func schemaOrderQuoted(c *cobra.Command) []string {
	var names []string
	for _, s := range c.Commands() {
		if !s.Hidden {
			names = append(names, s.Name())
		}
	}
	names = schemaOrder(names)
	for i, n := range names {
		names[i] = pyjson.Repr(n)
	}
	return names
}

// flagError turns pflag's messages into argparse's.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		return &usageErr{cmd: c.Root(), msg: "unrecognized arguments: " + strings.TrimPrefix(msg, "unknown flag: ")}
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		arg := msg
		if i := strings.LastIndex(msg, " in "); i >= 0 {
			arg = msg[i+4:]
		}
		return &usageErr{cmd: c.Root(), msg: "unrecognized arguments: " + arg}
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimPrefix(msg, "flag needs an argument: ")
		name = strings.Trim(name, "'")
		if !strings.HasPrefix(name, "-") {
			name = "-" + name
		}
		return &usageErr{cmd: c, msg: "argument " + name + ": expected one argument"}
	case strings.HasPrefix(msg, "invalid argument "):
		// invalid argument "x" for "--limit" flag: ...
		var val, name string
		rest := strings.TrimPrefix(msg, "invalid argument ")
		if v, r, ok := cutQuoted(rest); ok {
			val = v
			if n, _, ok := cutQuoted(strings.TrimPrefix(r, " for ")); ok {
				name = n
			}
		}
		if name != "" {
			if i := strings.Index(name, "--"); i >= 0 {
				name = name[i:]
			}
			if f := c.Flags().Lookup(strings.TrimPrefix(name, "--")); f != nil && f.Value.Type() == "bool" {
				return &usageErr{cmd: c, msg: fmt.Sprintf("argument %s: ignored explicit argument %s", name, pyjson.Repr(val))}
			}
			return &usageErr{cmd: c, msg: fmt.Sprintf("argument %s: invalid int value: %s", name, pyjson.Repr(val))}
		}
	}
	return &usageErr{cmd: c, msg: msg}
}

func cutQuoted(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	v, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	u, _ := strconv.Unquote(v)
	return u, s[len(v):], true
}

// expandAbbrev rewrites unique prefixes of long options to the full name,
// as argparse (allow_abbrev) accepts them.
func (a *app) expandAbbrev(root *cobra.Command, args []string) ([]string, *usageErr) {
	if len(args) == 0 {
		return args, nil
	}
	var sub *cobra.Command
	for _, c := range root.Commands() {
		if c.Name() == args[0] {
			sub = c
		}
	}
	if sub == nil {
		return args, nil
	}
	flags := visibleFlags(sub)
	out := append([]string(nil), args...)
	for i := 1; i < len(out); i++ {
		arg := out[i]
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "--") || len(arg) == 2 {
			continue
		}
		name, val, hasVal := strings.Cut(arg[2:], "=")
		if name == "help" {
			continue
		}
		f := sub.Flags().Lookup(name)
		if f == nil {
			var matches []string
			for _, cand := range flags {
				if strings.HasPrefix(cand.Name, name) {
					matches = append(matches, cand.Name)
				}
			}
			if strings.HasPrefix("help", name) {
				matches = append(matches, "help")
			}
			switch len(matches) {
			case 0:
				continue
			case 1:
				out[i] = "--" + matches[0]
				if matches[0] == "help" {
					continue
				}
				f = sub.Flags().Lookup(matches[0])
				if hasVal {
					out[i] += "=" + val
				}
			default:
				for j := range matches {
					matches[j] = "--" + matches[j]
				}
				return nil, &usageErr{cmd: sub, msg: fmt.Sprintf("ambiguous option: --%s could match %s", name, strings.Join(matches, ", "))}
			}
		}
		if f.Value.Type() != "bool" && !hasVal {
			i++ // the next word is this option's value
		}
	}
	return out, nil
}

// pyInt is an int option parsed as Python's int(): surrounding
// whitespace, an optional sign, decimal digits with single underscores.
type pyInt struct{ v *int }

func (p pyInt) String() string { return strconv.Itoa(*p.v) }
func (p pyInt) Type() string   { return "int" }
func (p pyInt) Set(s string) error {
	t := strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return fmt.Errorf("invalid int")
	}
	t = strings.ReplaceAll(t, "_", "")
	for _, c := range t {
		if c < '0' || c > '9' {
			return fmt.Errorf("invalid int")
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return fmt.Errorf("invalid int")
	}
	if neg {
		n = -n
	}
	*p.v = n
	return nil
}
