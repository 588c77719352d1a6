// Package flagerr turns the command-line parser's errors into messages for
// people: the flag, what it accepts and the value given, never the text of
// strconv or of the flag library ("strconv.ParseInt: … value out of range",
// "unknown shorthand flag: '1' in -1").
package flagerr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// rangeKey is the flag annotation that records an integer flag's accepted
// range, so an out-of-range value can be answered with it.
const rangeKey = "bb-range"

// SetRange records on an integer flag the range the core accepts, for
// messages only (the core still decides).
func SetRange(fs *pflag.FlagSet, name string, lo, hi int64) {
	_ = fs.SetAnnotation(name, rangeKey, []string{strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)})
}

// Message rewrites err when it is a parser error, and reports whether it
// did. Other errors are left to the caller.
func Message(err error) (string, bool) {
	var inv *pflag.InvalidValueError
	if errors.As(err, &inv) {
		return invalidValue(inv.GetFlag(), inv.GetValue(), inv.Unwrap()), true
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		if sh := ne.GetSpecifiedShortnames(); looksNegative(sh) {
			return fmt.Sprintf("negative numbers are not accepted here, got -%s (expected a positive number)", sh), true
		}
		return ne.Error(), true
	}
	return err.Error(), false
}

func looksNegative(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func invalidValue(f *pflag.Flag, value string, cause error) string {
	if f == nil {
		return fmt.Sprintf("invalid value %q", value)
	}
	name, typ := f.Name, f.Value.Type()
	var num *strconv.NumError
	isNum := errors.As(cause, &num)
	switch {
	case typ == "bool":
		return fmt.Sprintf("--%s takes no value or true/false, got %q", name, value)
	case typ == "duration":
		return fmt.Sprintf("--%s must be a duration such as 90s, 15m or 2h, got %q", name, value)
	case strings.HasPrefix(typ, "int") || strings.HasPrefix(typ, "uint") || isNum:
		// The type's own range is only worth naming when the value
		// overflowed it; a range the core set is always worth naming.
		overflow := num != nil && errors.Is(num.Err, strconv.ErrRange)
		if lo, hi, ok := flagRange(f, typ, overflow); ok {
			return fmt.Sprintf("--%s must be a whole number between %d and %d, got %s", name, lo, hi, strconv.Quote(value))
		}
		return fmt.Sprintf("--%s must be a whole number, got %s", name, strconv.Quote(value))
	}
	return fmt.Sprintf("invalid value %q for --%s", value, name)
}

// flagRange is the range recorded with SetRange, else the range of the
// flag's Go type.
func flagRange(f *pflag.Flag, typ string, typeRange bool) (int64, int64, bool) {
	if f != nil {
		if r := f.Annotations[rangeKey]; len(r) == 2 {
			lo, err1 := strconv.ParseInt(r[0], 10, 64)
			hi, err2 := strconv.ParseInt(r[1], 10, 64)
			if err1 == nil && err2 == nil {
				return lo, hi, true
			}
		}
	}
	if !typeRange {
		return 0, 0, false
	}
	switch typ {
	case "int", "int64":
		return math.MinInt64, math.MaxInt64, true
	case "int32":
		return math.MinInt32, math.MaxInt32, true
	}
	return 0, 0, false
}

// JSONRequested reports whether args ask for JSON output (--json before any
// "--"), for replying in JSON even when parsing failed before the flag was
// read.
func JSONRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			b, err := strconv.ParseBool(v)
			return err == nil && b
		}
	}
	return false
}
