package flagerr

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestSuggest(t *testing.T) {
	fs := pflag.NewFlagSet("reserve", pflag.ContinueOnError)
	fs.Int("ttl", 120, "minutes until the reservation expires (5..1440)")
	fs.Bool("takeover-stale", false, "take over expired reservations")
	fs.String("scope", "", "path or glob")
	fs.String("secret", "", "hidden")
	_ = fs.MarkHidden("secret")
	for _, c := range []struct{ arg, want string }{
		{"--expires-in", "unknown flag: --expires-in; did you mean --ttl? (minutes until the reservation expires (5..1440))"},
		{"--tll", "unknown flag: --tll; did you mean --ttl? (minutes until the reservation expires (5..1440))"},
		{"--scop", "unknown flag: --scop; did you mean --scope? (path or glob)"},
		{"--takeover", "unknown flag: --takeover; did you mean --takeover-stale? (take over expired reservations)"},
		{"--secrt", "unknown flag: --secrt"},
		{"--zzzzzz", "unknown flag: --zzzzzz"},
	} {
		err := fs.Parse([]string{c.arg, "1"})
		if err == nil {
			t.Fatalf("%s parsed", c.arg)
		}
		if got, _ := Suggest(err, fs); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.arg, got, c.want)
		}
	}
}
