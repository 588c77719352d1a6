package flagerr

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func parse(t *testing.T, args ...string) string {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("ttl", 0, "")
	SetRange(fs, "ttl", 5, 1440)
	fs.Int64("since", 0, "")
	fs.Bool("all", false, "")
	fs.Duration("every", 0, "")
	err := fs.Parse(args)
	if err == nil {
		t.Fatalf("%v parsed", args)
	}
	msg, ok := Message(err)
	if !ok {
		t.Fatalf("%v: %v not translated", args, err)
	}
	if strings.Contains(msg, "strconv") || strings.Contains(msg, "shorthand") {
		t.Fatalf("%v: parser text leaked: %s", args, msg)
	}
	return msg
}

func TestMessage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ttl", "abc"}, `--ttl must be a whole number between 5 and 1440, got "abc"`},
		{[]string{"--ttl", "99999999999999999999"}, `--ttl must be a whole number between 5 and 1440, got "99999999999999999999"`},
		{[]string{"--since", "99999999999999999999"}, `--since must be a whole number between -9223372036854775808 and 9223372036854775807, got "99999999999999999999"`},
		{[]string{"--since", "x"}, `--since must be a whole number, got "x"`},
		{[]string{"--all=maybe"}, `--all takes no value or true/false, got "maybe"`},
		{[]string{"--every", "soon"}, `--every must be a duration such as 90s, 15m or 2h, got "soon"`},
		{[]string{"-1"}, `negative numbers are not accepted here, got -1 (expected a positive number)`},
	} {
		if got := parse(t, c.args...); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
}

func TestJSONRequested(t *testing.T) {
	for args, want := range map[string]bool{
		"log --json": true, "--json=true log": true, "--json=false": false,
		"log -- --json": false, "log": false,
	} {
		if got := JSONRequested(strings.Fields(args)); got != want {
			t.Errorf("%q: %v", args, got)
		}
	}
}
