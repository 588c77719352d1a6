// Package pyjson writes JSON byte-for-byte as Python's json module does, and
// Python's repr() of strings. Agent Mail (seed 004) was a Python tool whose
// output scripts depend on: json.dumps(obj, indent=2, ensure_ascii=False)
// for replies, json.dumps(obj) (", " and ": " separators, non-ASCII as
// \uXXXX) for errors and the stored refs string.
package pyjson

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// KV is one member of an Object.
type KV struct {
	Key   string
	Value any
}

// Object is a JSON object whose members keep their order (a Python dict).
type Object []KV

// Get returns the value of key and whether it is present.
func (o Object) Get(key string) (any, bool) {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Options select the json.dumps flavour.
type Options struct {
	// Indent > 0 is json.dumps(indent=N): one member per line, separators
	// "," and ": ". Indent 0 is the default one-line form with ", " and ": ".
	Indent int
	// EnsureASCII escapes every non-ASCII character (and DEL) as \uXXXX,
	// astral characters as surrogate pairs.
	EnsureASCII bool
}

// Pretty is what Agent Mail prints on success.
var Pretty = Options{Indent: 2}

// Compact is Python's json.dumps defaults.
var Compact = Options{EnsureASCII: true}

// Marshal encodes v. Supported values: nil, bool, string, every Go integer
// type, float64/float32, json.Number-like fmt.Stringer is not supported;
// []any, []string, []Object, Object, map[string]any (keys sorted, as a dict
// built from sorted input would be). Other types are an error.
func Marshal(v any, o Options) ([]byte, error) {
	var b strings.Builder
	if err := encode(&b, v, o, 0); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// MustMarshal is Marshal for values built by the caller from supported types.
func MustMarshal(v any, o Options) []byte {
	out, err := Marshal(v, o)
	if err != nil {
		panic(err)
	}
	return out
}

func newline(b *strings.Builder, o Options, depth int) {
	b.WriteByte('\n')
	for i := 0; i < o.Indent*depth; i++ {
		b.WriteByte(' ')
	}
}

func itemSep(b *strings.Builder, o Options, depth int, first bool) {
	if o.Indent > 0 {
		if !first {
			b.WriteByte(',')
		}
		newline(b, o, depth)
		return
	}
	if !first {
		b.WriteString(", ")
	}
}

func encode(b *strings.Builder, v any, o Options, depth int) error {
	if writeScalar(b, v, o) {
		return nil
	}
	switch x := v.(type) {
	case []string:
		return encodeList(b, len(x), func(i int) any { return x[i] }, o, depth)
	case []any:
		return encodeList(b, len(x), func(i int) any { return x[i] }, o, depth)
	case []Object:
		return encodeList(b, len(x), func(i int) any { return x[i] }, o, depth)
	case Object:
		return encodeObject(b, x, o, depth)
	case map[string]any:
		return encodeObject(b, sortedObject(x), o, depth)
	}
	return fmt.Errorf("pyjson: unsupported type %T", v)
}

// writeScalar writes v when it is null, a boolean, a string, an integer
// or a float (or a pointer to a string or an int), and reports whether it
// was one.
func writeScalar(b *strings.Builder, v any, o Options) bool {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		WriteString(b, x, o.EnsureASCII)
	case *string:
		if x == nil {
			b.WriteString("null")
		} else {
			WriteString(b, *x, o.EnsureASCII)
		}
	case *int:
		if x == nil {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.Itoa(*x))
		}
	default:
		return writeNumber(b, v)
	}
	return true
}

// writeNumber writes v when it is an integer or a float, and reports
// whether it was one.
func writeNumber(b *strings.Builder, v any) bool {
	switch x := v.(type) {
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case float64:
		b.WriteString(FloatRepr(x))
	case float32:
		b.WriteString(FloatRepr(float64(x)))
	default:
		return false
	}
	return true
}

// encodeObject writes x's members in order.
func encodeObject(b *strings.Builder, x Object, o Options, depth int) error {
	if len(x) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteByte('{')
	for i, kv := range x {
		itemSep(b, o, depth+1, i == 0)
		WriteString(b, kv.Key, o.EnsureASCII)
		b.WriteString(": ")
		if err := encode(b, kv.Value, o, depth+1); err != nil {
			return err
		}
	}
	if o.Indent > 0 {
		newline(b, o, depth)
	}
	b.WriteByte('}')
	return nil
}

// sortedObject is m as an Object, its keys in sorted order.
func sortedObject(m map[string]any) Object {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	obj := make(Object, 0, len(keys))
	for _, k := range keys {
		obj = append(obj, KV{k, m[k]})
	}
	return obj
}

func encodeList(b *strings.Builder, n int, at func(int) any, o Options, depth int) error {
	if n == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		itemSep(b, o, depth+1, i == 0)
		if err := encode(b, at(i), o, depth+1); err != nil {
			return err
		}
	}
	if o.Indent > 0 {
		newline(b, o, depth)
	}
	b.WriteByte(']')
	return nil
}

const hexDigits = "0123456789abcdef"

func writeU(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(hexDigits[r>>12&0xf])
	b.WriteByte(hexDigits[r>>8&0xf])
	b.WriteByte(hexDigits[r>>4&0xf])
	b.WriteByte(hexDigits[r&0xf])
}

// WriteString writes s as a JSON string literal the way Python does.
// Invalid UTF-8 bytes are written as U+FFFD.
func WriteString(b *strings.Builder, s string, ensureASCII bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 || (ensureASCII && c == 0x7f) {
					writeU(b, rune(c))
				} else {
					b.WriteByte(c)
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !ensureASCII {
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteString(s[i-size : i])
			}
			continue
		}
		if r >= 0x10000 {
			r -= 0x10000
			writeU(b, 0xd800|(r>>10)&0x3ff)
			writeU(b, 0xdc00|r&0x3ff)
			continue
		}
		writeU(b, r)
	}
	b.WriteByte('"')
}

// Quote returns s as Python's json.dumps(s) (ensure_ascii=True) writes it.
func Quote(s string) string {
	var b strings.Builder
	WriteString(&b, s, true)
	return b.String()
}

// DumpStrings is Python's json.dumps(list_of_str): `["a", "b"]`.
func DumpStrings(list []string) string {
	return string(MustMarshal(list, Compact))
}

// FloatRepr is Python's repr(float) as json.dumps writes it: the shortest
// round-tripping digits, fixed notation for exponents in [-4, 16),
// scientific ("1e+16", "1e-05") otherwise, and ".0" on integral values.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp >= -4 && exp < 16 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
			} else {
				out = digits[:exp+1] + "." + digits[exp+1:]
			}
		} else {
			out = "0." + strings.Repeat("0", -exp-1) + digits
		}
	} else {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		out = fmt.Sprintf("%se%s%02d", m, sign, exp)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// Repr is Python's repr(str): single quotes unless the text contains a
// single quote and no double quote; backslash, the quote, \n, \r, \t
// escaped; other non-printable characters as \xNN, \uNNNN or \UNNNNNNNN.
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Python keeps undecodable argv bytes as surrogate escapes.
			fmt.Fprintf(&b, `\udc%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || (r < utf8.RuneSelf && r > 0x20 && r < 0x7f):
			b.WriteRune(r)
		case r < 0x100 && !isPrintable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !isPrintable(r):
			if r < 0x10000 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// isPrintable approximates Python's str.isprintable for one character:
// everything except controls, format characters, surrogates, private use,
// unassigned code points and separators other than the ASCII space.
func isPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zs, unicode.Zl, unicode.Zp) {
		return false
	}
	return unicode.IsGraphic(r) || unicode.IsMark(r)
}

// ReprList is Python's repr(list_of_str): "['a', 'b']".
func ReprList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = Repr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
