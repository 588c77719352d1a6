package hub

import (
	"regexp"
	"strconv"
	"strings"
)

// Board settings of the leases (internal/hub/leases): the ports it hands
// out, and the leases every session gets at its start.
const (
	ConfigLeasesPortRange = "leases.port_range"
	ConfigLeasesSession   = "leases.session"
	// DefaultPortRange is a thousand unprivileged ports away from the
	// common development ports (3000, 5173, 8080…). It lies inside
	// Linux's ephemeral range, where an outgoing connection may hold a
	// port for a while: a port is granted only once bound and released.
	DefaultPortRange = "41000-41999"
	// MinLeasePort is the first unprivileged port.
	MinLeasePort = 1024
	// MaxSessionLeases bounds the leases one session declaration names.
	MaxSessionLeases = 16
)

// checkConfig says, in one line naming the limit, what is wrong with value
// for the settings that have more to say than their help (nil: valid, or
// a setting without a check of its own).
func checkConfig(key, value string) error {
	switch key {
	case ConfigLeasesPortRange:
		_, _, err := ParsePortRange(value)
		return err
	case ConfigLeasesSession:
		_, err := ParseSessionLeases(value)
		return err
	}
	return nil
}

// ParsePortRange reads "lo-hi": 1024 <= lo <= hi <= 65535.
func ParsePortRange(v string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(v), "-")
	if !ok {
		return 0, 0, FieldErr(CodeInvalidInput, "port_range", "{field} must be lo-hi (for example %s), got %q", DefaultPortRange, v)
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, FieldErr(CodeInvalidInput, "port_range", "{field} must be two port numbers lo-hi (for example %s), got %q", DefaultPortRange, v)
	case lo > hi:
		return 0, 0, FieldErr(CodeInvalidInput, "port_range", "{field} %q is reversed: the first port must not be above the last", v)
	case lo < MinLeasePort:
		return 0, 0, FieldErr(CodeInvalidInput, "port_range", "{field} %q starts at a privileged port: ports start at %d", v, MinLeasePort)
	case hi > 65535:
		return 0, 0, FieldErr(CodeInvalidInput, "port_range", "{field} %q ends above 65535, the last TCP port", v)
	}
	return lo, hi, nil
}

// SessionLease is one lease a board declares for every session: a port
// ("port:web") or a name ("name:db").
type SessionLease struct {
	// Kind is "port" or "name".
	Kind string `json:"kind"`
	// Label is what follows the kind ("web", "db").
	Label string `json:"label"`
}

// Lease is the lease name it stands for ("port:web").
func (l SessionLease) Lease() string { return l.Kind + ":" + l.Label }

var sessionLabel = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// ParseSessionLeases reads a declaration of session leases: port:<label>
// and name:<label> separated by spaces or commas, at most
// MaxSessionLeases, each label at most 32 of a-z, 0-9, _ and -.
func ParseSessionLeases(v string) ([]SessionLease, error) {
	words := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	if len(words) > MaxSessionLeases {
		return nil, FieldErr(CodeInvalidInput, "session_leases", "{field} names %d leases: at most %d", len(words), MaxSessionLeases)
	}
	out := []SessionLease{}
	seen := map[string]bool{}
	for _, w := range words {
		kind, label, ok := strings.Cut(w, ":")
		if !ok || kind != "port" && kind != "name" {
			return nil, FieldErr(CodeInvalidInput, "session_leases", "{field}: %q must be port:<label> or name:<label>", w)
		}
		if !sessionLabel.MatchString(label) {
			return nil, FieldErr(CodeInvalidInput, "session_leases", "{field}: the label of %q must be 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit", w)
		}
		if seen[w] {
			return nil, FieldErr(CodeInvalidInput, "session_leases", "{field} names %s twice", w)
		}
		seen[w] = true
		out = append(out, SessionLease{Kind: kind, Label: label})
	}
	return out, nil
}
