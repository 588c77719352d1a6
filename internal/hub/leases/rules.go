package leases

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

var nameGrammar = regexp.MustCompile(`^[a-z0-9][a-z0-9._:-]*$`)

// ValidateName checks a lease name and returns its kind: 1 to 64 of a-z,
// 0-9, '.', '_', ':' and '-', starting with a letter or a digit; "port:"
// and "name:" followed by a label make a port or a name. No '/': a lease
// name never looks like a path.
func ValidateName(name string) (Kind, error) {
	switch {
	case name == "":
		return "", hub.FieldErr(hub.CodeInvalidArgs, "lease", "{field} cannot be empty")
	case len(name) > MaxNameLen:
		return "", hub.FieldErr(hub.CodeInvalidArgs, "lease", "{field} is %d bytes long: at most %d", len(name), MaxNameLen)
	case !nameGrammar.MatchString(name):
		return "", hub.FieldErr(hub.CodeInvalidArgs, "lease", "{field} %q may hold only a-z, 0-9, '.', '_', ':' and '-', starting with a letter or digit (a lease is not a path: reserve files with bb agent reserve)", name)
	}
	prefix, label, ok := strings.Cut(name, ":")
	if !ok || prefix != string(KindPort) && prefix != string(KindName) {
		return KindLock, nil
	}
	if _, err := hub.ParseSessionLeases(name); err != nil || label == "" {
		return "", hub.FieldErr(hub.CodeInvalidArgs, "lease", "{field} %q: after %s: comes a label of 1 to 32 of a-z, 0-9, _ and -", name, prefix)
	}
	return Kind(prefix), nil
}

// checkAcquire validates an acquire and returns the lease's kind and TTL.
func checkAcquire(in AcquireInput) (Kind, int, error) {
	if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return "", 0, err
	}
	kind, err := ValidateName(in.Name)
	if err != nil {
		return "", 0, err
	}
	if c := in.Capacity; c != nil && (*c < 1 || *c > MaxCapacity) {
		return "", 0, hub.FieldErr(hub.CodeInvalidArgs, "capacity", "{field} must be between 1 and %d, got %d", MaxCapacity, *c)
	}
	if in.Capacity != nil && *in.Capacity > 1 && kind != KindLock {
		return "", 0, hub.FieldErr(hub.CodeInvalidArgs, "capacity", "{field} is for locks and slots: every holder of %s gets its own %s", in.Name, kind)
	}
	ttl, err := checkTTL(in.TTLMinutes)
	if err != nil {
		return "", 0, err
	}
	if in.Wait < 0 || in.Wait > MaxWait {
		return "", 0, hub.FieldErr(hub.CodeInvalidArgs, "wait", "{field} must be between 0 and %s, got %s", MaxWait, in.Wait)
	}
	if in.Wait > 0 && kind != KindLock {
		return "", 0, hub.FieldErr(hub.CodeInvalidArgs, "wait", "{field} is for locks and slots: a %s is granted at once or not at all", kind)
	}
	for _, p := range in.Avoid {
		if p < 1 || p > 65535 {
			return "", 0, hub.FieldErr(hub.CodeInvalidArgs, "avoid", "{field} holds %d, not a TCP port (1..65535)", p)
		}
	}
	for f, v := range map[string]string{"worktree": in.Worktree, "host": in.Host, "session": in.Session} {
		if err := hub.CheckLen(f, v, 4096); err != nil {
			return "", 0, err
		}
		if hub.HasControl(v) {
			return "", 0, hub.FieldErr(hub.CodeInvalidArgs, f, "{field} cannot hold control characters")
		}
	}
	return kind, ttl, nil
}

// checkTTL returns the TTL in minutes (nil: DefaultTTL).
func checkTTL(given *int) (int, error) {
	if given == nil {
		return DefaultTTL, nil
	}
	if *given < MinTTL || *given > MaxTTL {
		return 0, hub.FieldErr(hub.CodeInvalidArgs, "ttl_minutes", "{field} must be between %d and %d minutes, got %d", MinTTL, MaxTTL, *given)
	}
	return *given, nil
}

// EnvName is the environment variable a session's lease is handed in:
// BB_PORT_<LABEL> for a port, BB_LEASE_<LABEL> for a name ("" for a
// lock). Letters are upper-cased; '-' and '.' become '_'.
func EnvName(name string) string {
	prefix, label, ok := strings.Cut(name, ":")
	if !ok {
		return ""
	}
	up := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, label)
	switch Kind(prefix) {
	case KindPort:
		return "BB_PORT_" + up
	case KindName:
		return "BB_LEASE_" + up
	}
	return ""
}

// nameValue is the name a "name:<label>" lease hands agent:
// "<label>-<agent>", lower case, with any character outside a-z, 0-9, _
// and - made a '-' (a database or bucket name a shell need not quote).
func nameValue(name, agent string) string {
	_, label, _ := strings.Cut(name, ":")
	a := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, agent)
	return label + "-" + a
}

// portStart is where the search for agent's port of name begins in
// [lo, hi]: a hash of both, so that agents asking at once spread over the
// range instead of all trying its first port.
func portStart(agent, name string, lo, hi int) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s", agent, name)
	return lo + int(h.Sum32()%uint32(hi-lo+1))
}

// portOf reads a port lease's value.
func portOf(v string) int {
	p, _ := strconv.Atoi(v)
	return p
}
