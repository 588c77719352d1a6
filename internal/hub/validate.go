package hub

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Size limits of seed 003 §8.1 (bytes).
const (
	MaxAgentIDLen       = 64
	MaxTaskLen          = 256
	MaxBlockersLen      = 1024
	MaxMessageLen       = 65536
	MaxArtifactPathLen  = 4096
	MaxArtifactDescLen  = 1024
	MaxVersionLen       = 64
	MaxTagLen           = 32
	MaxTagsPerMessage   = 10
	MaxRefsPerEntity    = 20
	MaxRefPartLen       = 256
	MaxStoredAgentIDLen = 128
)

// Log limits of seed 003 §6.2.
const (
	DefaultLogLimit       = 20
	MaxLogLimit           = 100
	DefaultArtifactsLimit = 50
	MaxArtifactsLimit     = 100
	MaxThreadMessages     = 50
)

// Ref is a typed link "where:what:ref" (seed 003 §4.4, §8.2): where names a
// system (gh, tt, bb…), what a kind of object, ref its identifier. Ref is a
// number when the identifier is all ASCII digits, a string otherwise.
type Ref struct {
	Where string `json:"where"`
	What  string `json:"what"`
	Ref   RefID  `json:"ref"`
}

// RefID is the third part of a Ref: numeric (JSON number) or text (JSON string).
type RefID struct {
	Text    string
	Numeric bool
}

// MarshalJSON renders the ref as a number when numeric.
func (r RefID) MarshalJSON() ([]byte, error) {
	if r.Numeric {
		return []byte(r.Text), nil
	}
	return []byte(strconv.Quote(r.Text)), nil
}

// UnmarshalJSON accepts a JSON number or string.
func (r *RefID) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return err
		}
		*r = NewRefID(u)
		return nil
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return Errorf(CodeInvalidRefFormat, "ref must be a positive integer or a string, got %s", s)
	}
	*r = RefID{Text: s, Numeric: true}
	return nil
}

// NewRefID classifies s: all ASCII digits (that fit in 64 bits, without
// leading zeros changing meaning) is numeric, anything else is text.
func NewRefID(s string) RefID {
	if isDigits(s) {
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return RefID{Text: strconv.FormatUint(n, 10), Numeric: true}
		}
	}
	return RefID{Text: s}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String renders the ref back in its "where:what:ref" form.
func (r Ref) String() string { return r.Where + ":" + r.What + ":" + r.Ref.Text }

// ParseRef parses "where:what:ref": exactly three parts, each trimmed and
// non-empty, none longer than MaxRefPartLen and free of control characters.
func ParseRef(s string) (Ref, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Ref{}, refFormatErr(s)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		if parts[i] == "" || len(parts[i]) > MaxRefPartLen || HasControl(parts[i]) || !utf8.ValidString(parts[i]) {
			return Ref{}, refFormatErr(s)
		}
	}
	return Ref{Where: parts[0], What: parts[1], Ref: NewRefID(parts[2])}, nil
}

func refFormatErr(s string) error {
	return FieldErr(CodeInvalidRefFormat, "ref", "invalid ref format %q: expected where:what:ref (three non-empty parts, e.g. gh:issue:42)", s)
}

// ParseRefs parses a list of refs and enforces the per-entity limit.
func ParseRefs(in []string) ([]Ref, error) {
	if len(in) > MaxRefsPerEntity {
		return nil, FieldErr(CodeInvalidInput, "ref", "too many refs: %d (max %d)", len(in), MaxRefsPerEntity)
	}
	out := make([]Ref, 0, len(in))
	for _, s := range in {
		r, err := ParseRef(s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// ValidateRefs checks refs given as structured values (MCP, HTTP).
func ValidateRefs(refs []Ref) ([]Ref, error) {
	if len(refs) > MaxRefsPerEntity {
		return nil, FieldErr(CodeInvalidInput, "refs", "too many refs: %d (max %d)", len(refs), MaxRefsPerEntity)
	}
	out := make([]Ref, 0, len(refs))
	for _, r := range refs {
		p, err := ParseRef(r.Where + ":" + r.What + ":" + r.Ref.Text)
		if err != nil || strings.Contains(r.Where+r.What+r.Ref.Text, ":") {
			return nil, refFormatErr(r.String())
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseDuration parses the compact durations of seed 003 §8.3: an unsigned
// integer followed by one unit of s, m, h, d or w ("10s", "10m", "1h", "2d",
// "1w"). Anything else is INVALID_INPUT.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, FieldErr(CodeInvalidInput, "duration", "empty duration: use a number and a unit s, m, h, d or w (e.g. 10m, 1h, 2d)")
	}
	unit := t[len(t)-1]
	num := t[:len(t)-1]
	var mult time.Duration
	switch unit {
	case 's':
		mult = time.Second
	case 'm':
		mult = time.Minute
	case 'h':
		mult = time.Hour
	case 'd':
		mult = 24 * time.Hour
	case 'w':
		mult = 7 * 24 * time.Hour
	default:
		return 0, FieldErr(CodeInvalidInput, "duration", "invalid duration %q: unit must be one of s, m, h, d, w (e.g. 10m, 1h, 2d)", s)
	}
	if !isDigits(num) {
		return 0, FieldErr(CodeInvalidInput, "duration", "invalid duration %q: expected a whole number before the unit (e.g. 10m)", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	// Cap at 100 years so multiplication never overflows.
	if err != nil || n > 100*366*24*3600*int64(time.Second)/int64(mult) {
		return 0, FieldErr(CodeInvalidInput, "duration", "invalid duration %q: too large", s)
	}
	return time.Duration(n) * mult, nil
}

// ValidateTags checks the tags of a message: at most MaxTagsPerMessage, each
// non-empty, at most MaxTagLen bytes, no whitespace or control characters.
// Duplicates are removed, order kept.
func ValidateTags(tags []string) ([]string, error) {
	if len(tags) > MaxTagsPerMessage {
		return nil, FieldErr(CodeInvalidInput, "tag", "too many tags: %d (max %d)", len(tags), MaxTagsPerMessage)
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if t == "" {
			return nil, FieldErr(CodeInvalidInput, "tag", "tag cannot be empty")
		}
		if len(t) > MaxTagLen {
			return nil, FieldErr(CodeInvalidInput, "tag", "tag too long: %q is %d bytes (max %d)", t, len(t), MaxTagLen)
		}
		if !utf8.ValidString(t) || strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return nil, FieldErr(CodeInvalidInput, "tag", "tag %q contains whitespace or control characters", t)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// ClampLimit applies a list limit: 0 or negative means the default, above
// max is clamped to max (seed 003 §5.2).
func ClampLimit(n, def, max int) int {
	if n <= 0 {
		return def
	}
	if n > max {
		return max
	}
	return n
}

// ParseLimit parses a --limit value for Blackboard lists: a positive
// integer; values above max are clamped to max (seed 003 §5.2). An empty
// value is an error: callers apply their default when the flag is absent.
func ParseLimit(s string, max int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	var ne *strconv.NumError
	if errors.As(err, &ne) && ne.Err == strconv.ErrRange && !strings.HasPrefix(strings.TrimSpace(s), "-") {
		// Any positive number above max is capped, however large.
		return max, nil
	}
	if err != nil || n < 1 {
		return 0, FieldErr(CodeInvalidInput, "limit", "limit must be a whole number from 1 to %d (larger values are capped at %d), got %q", max, max, s)
	}
	return min(n, max), nil
}

// CheckUTF8 refuses text that is not valid UTF-8 (every store keeps text
// as UTF-8; PostgreSQL refuses anything else, so such a board could not be
// migrated). field names the input in the error.
func CheckUTF8(field, s string) error {
	if !utf8.ValidString(s) {
		return FieldErr(CodeInvalidInput, field, "%s is not valid UTF-8 text: %q", field, s)
	}
	return nil
}

func HasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// ValidateStoredAgentID is the core's rule for any agent id, whatever the
// surface: non-empty, at most 128 bytes, valid UTF-8, no whitespace or
// control characters, and not a name of the broadcast address ("*",
// "broadcast" in any case: an agent so named would be told every broadcast
// is addressed to it). Surfaces add their own grammar on top.
func ValidateStoredAgentID(id string) error {
	if id == "" {
		return FieldErr(CodeInvalidIdentity, "agent", "agent id cannot be empty")
	}
	if id == Broadcast || strings.EqualFold(id, BroadcastName) {
		return FieldErr(CodeInvalidIdentity, "agent", "agent id %q is reserved: it names the broadcast address", id)
	}
	if len(id) > MaxStoredAgentIDLen {
		return FieldErr(CodeInvalidIdentity, "agent", "agent id too long: %d bytes (max %d)", len(id), MaxStoredAgentIDLen)
	}
	if !utf8.ValidString(id) || strings.IndexFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return FieldErr(CodeInvalidIdentity, "agent", "agent id %q contains whitespace or control characters", id)
	}
	return nil
}

// ValidateBoardAgentID is Blackboard's identity rule (seed 003 §8.1): the
// core rule, at most 64 bytes.
func ValidateBoardAgentID(id string) error {
	if len(id) > MaxAgentIDLen {
		return FieldErr(CodeInvalidIdentity, "agent", "agent id too long: %d bytes (max %d)", len(id), MaxAgentIDLen)
	}
	return ValidateStoredAgentID(id)
}

// CheckLen returns INVALID_INPUT when s is longer than max bytes.
func CheckLen(field string, s string, max int) error {
	if len(s) > max {
		return FieldErr(CodeInvalidInput, field, "%s too long: %d bytes (max %d)", field, len(s), max)
	}
	if !utf8.ValidString(s) {
		return FieldErr(CodeInvalidInput, field, "%s is not valid UTF-8", field)
	}
	return nil
}

// MaxRequestIDLen bounds a request id (--request-id, the Idempotency-Key
// header), on every surface.
const MaxRequestIDLen = 128

// ValidateRequestID is the one rule for request ids, whatever the surface:
// 1 to MaxRequestIDLen bytes of printable ASCII without spaces (letters,
// digits and punctuation such as "oc_task_set_1739373000456_b72a9d" or a
// UUID).
func ValidateRequestID(id string) error {
	if id == "" {
		return FieldErr(CodeInvalidInput, "request_id", "{field} cannot be empty")
	}
	if len(id) > MaxRequestIDLen {
		return FieldErr(CodeInvalidInput, "request_id", "{field} too long: %d bytes (max %d)", len(id), MaxRequestIDLen)
	}
	if !utf8.ValidString(id) {
		return FieldErr(CodeInvalidInput, "request_id", "{field} is not valid UTF-8 text: %q", id)
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return FieldErr(CodeInvalidInput, "request_id", "{field} %q must be printable ASCII without spaces (letters, digits, punctuation)", id)
		}
	}
	return nil
}

// Event list limits: one rule for every surface that lists the timeline
// (bb events, GET /api/v1/events, MCP bb_events, vybe events list).
const (
	DefaultEventsLimit = 100
	MaxEventsLimit     = 1000
)

// EventLimit applies the event list rule to a limit as given: nil (not
// given) is DefaultEventsLimit; a given limit must be 1..MaxEventsLimit,
// anything else is INVALID_INPUT. A surface whose contract fixes another
// default passes it explicitly.
func EventLimit(given *int) (int, error) {
	if given == nil {
		return DefaultEventsLimit, nil
	}
	if n := *given; n < 1 || n > MaxEventsLimit {
		return 0, FieldErr(CodeInvalidInput, "limit", "{field} must be between 1 and %d, got %d", MaxEventsLimit, n)
	}
	return *given, nil
}

// GivenPriority checks a priority a caller gave explicitly (a flag on the
// command line): unlike an absent one, which defaults to normal, an empty
// one is a mistake (an unset shell variable) and is refused.
func GivenPriority(s string) error {
	if s == "" {
		return FieldErr(CodeInvalidInput, "priority", "{field} cannot be empty: expected one of low, normal, high, critical")
	}
	_, err := ParsePriority(s)
	return err
}

// GivenMessageNumber checks a message number a caller gave explicitly
// (--reply-to 0 names no message: the first is 1).
func GivenMessageNumber(field string, n int64) error {
	if n < 1 {
		return FieldErr(CodeInvalidInput, field, "{field} must be a message number (1 or more), got %d", n)
	}
	return nil
}

// NameList reads a comma-separated list a caller gave (event types):
// blanks around names and empty entries are dropped; a list that names
// nothing (",,", "") is refused.
func NameList(field, s string) ([]string, error) {
	var out []string
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, FieldErr(CodeInvalidInput, field, "{field} %q names nothing: give one or more names separated by commas", s)
	}
	return out, nil
}
