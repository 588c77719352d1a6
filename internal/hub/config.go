package hub

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Board settings of the hooks.
const (
	ConfigHooksMode        = "hooks.mode"
	ConfigHooksAutoReserve = "hooks.auto_reserve"
	ConfigHooksReserveTTL  = "hooks.reserve_ttl"
	ConfigHooksDelivery    = "hooks.delivery"
	ConfigHooksStop        = "hooks.stop_reminder"
	// ConfigHooksMergeCheck: before an edit, a file another active agent
	// changed on an unmerged branch warns (warn), denies (block) or is not
	// looked at (off).
	ConfigHooksMergeCheck = "hooks.merge_check"
	// ConfigEscalateAfter is how many minutes a HANDOFF or BLOCKED may
	// wait unaccepted before it is escalated (overview.Attention).
	ConfigEscalateAfter = "attention.escalate_after"
)

// Edit-check modes.
const (
	ModeBlock = "block"
	ModeWarn  = "warn"
	ModeOff   = "off"
)

// configKeys are the settings `bb config` accepts, with their environment
// override, default and check.
var configKeys = []struct {
	Key, Env, Default, Help string
	Valid                   func(string) bool
}{
	{ConfigHooksMode, "BB_HOOKS_MODE", ModeBlock, "edit check before edit tools: block, warn or off",
		func(v string) bool { return v == ModeBlock || v == ModeWarn || v == ModeOff }},
	{ConfigHooksAutoReserve, "BB_HOOKS_AUTO_RESERVE", "on", "reserve a free file for the agent that edits it: on or off", isOnOff},
	{ConfigHooksReserveTTL, "BB_HOOKS_RESERVE_TTL", "15", fmt.Sprintf("minutes an automatic reservation lasts (%d..%d)", MinReserveTTL, MaxReserveTTL),
		func(v string) bool {
			n, err := strconv.Atoi(v)
			return err == nil && n >= MinReserveTTL && n <= MaxReserveTTL
		}},
	{ConfigHooksDelivery, "BB_HOOKS_DELIVERY", "on", "inject the session brief and new mail into the agent's context: on or off", isOnOff},
	{ConfigHooksStop, "BB_HOOKS_STOP_REMINDER", "on", "remind at the end of a turn about idle reservations and acks owed: on or off", isOnOff},
	{ConfigHooksMergeCheck, "BB_HOOKS_MERGE_CHECK", ModeWarn, "before an edit, a file another active agent changed on an unmerged branch: warn, block or off",
		func(v string) bool { return v == ModeBlock || v == ModeWarn || v == ModeOff }},
	{ConfigRetentionEvents, "BB_RETENTION_EVENTS", RetainForever, "how long the timeline (bb events) is kept: a duration such as 90d, more than zero, or forever; bb serve removes older events in small batches", validRetention},
	{ConfigRetentionReceipts, "BB_RETENTION_RECEIPTS", RetainForever, "how long a delivery record of mail its recipient has read or acked is kept: a duration such as 30d, or forever", validRetention},
	{ConfigRetentionNotifications, "BB_RETENTION_NOTIFICATIONS", "30d", "how long a notifier remembers what it told each channel (bb notify, --webhook): a duration such as 30d, or forever", validRetention},
	{ConfigEscalateAfter, "BB_ESCALATE_AFTER", "15", "minutes a HANDOFF or BLOCKED may wait unaccepted before it is escalated (1..1440)",
		func(v string) bool { n, err := strconv.Atoi(v); return err == nil && n >= 1 && n <= 1440 }},
	{ConfigLeasesPortRange, "BB_LEASES_PORT_RANGE", DefaultPortRange, "TCP ports bb lease hands out, lo-hi (1024..65535)",
		func(v string) bool { return checkConfig(ConfigLeasesPortRange, v) == nil }},
	{ConfigLeasesSession, "BB_LEASES_SESSION", "", "leases every session gets at its start: port:<name> and name:<name>, space-separated",
		func(v string) bool { return checkConfig(ConfigLeasesSession, v) == nil }},
}

func isOnOff(v string) bool { return v == "on" || v == "off" }

// ConfigEntry is one board setting as `bb config` shows it.
type ConfigEntry struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Default string `json:"default"`
	// Source is "board" (bb config set), "env" (its environment variable
	// wins) or "default".
	Source string `json:"source"`
	Env    string `json:"env"`
	Help   string `json:"help"`
}

// Config lists every board setting with its effective value.
func (s *Service) Config(ctx context.Context) ([]ConfigEntry, error) {
	stored, err := Read(ctx, s, func(tx Tx) (map[string]string, error) { return tx.ListConfig(ctx) })
	if err != nil {
		return nil, err
	}
	return s.ConfigEntries(stored), nil
}

// ConfigEntries applies the environment and defaults to the stored settings.
func (s *Service) ConfigEntries(stored map[string]string) []ConfigEntry {
	out := make([]ConfigEntry, 0, len(configKeys))
	for _, k := range configKeys {
		e := ConfigEntry{Key: k.Key, Value: k.Default, Default: k.Default, Source: "default", Env: k.Env, Help: k.Help}
		if v, ok := stored[k.Key]; ok && k.Valid(v) {
			e.Value, e.Source = v, "board"
		}
		if v := strings.TrimSpace(strings.ToLower(s.Getenv(k.Env))); v != "" && k.Valid(v) {
			e.Value, e.Source = v, "env"
		}
		out = append(out, e)
	}
	return out
}

// SetConfig sets a board setting (value "" restores the default).
func (s *Service) SetConfig(ctx context.Context, agent, key, value string) (ConfigEntry, error) {
	if err := Allow(ctx, Act(agent), Needs(AccessOperator, "changing the configuration")); err != nil {
		return ConfigEntry{}, err
	}
	value = strings.TrimSpace(strings.ToLower(value))
	var known []string
	for _, k := range configKeys {
		known = append(known, k.Key)
		if k.Key != key {
			continue
		}
		if value != "" {
			if err := checkConfig(key, value); err != nil {
				return ConfigEntry{}, err
			}
		}
		if value != "" && !k.Valid(value) {
			return ConfigEntry{}, FieldErr(CodeInvalidInput, "value", "invalid value %q for %s: %s", value, key, k.Help)
		}
		stored, err := Write(ctx, s, []string{agent, key, value}, func(tx Tx) (map[string]string, error) {
			if err := tx.SetConfig(ctx, key, value, s.Now()); err != nil {
				return nil, err
			}
			e := s.Event("config.set", agent, map[string]any{"key": key, "value": value})
			e.Message = fmt.Sprintf("%s set %s to %q", agent, key, value)
			if value == "" {
				e.Message = fmt.Sprintf("%s reset %s to its default", agent, key)
			}
			if err := tx.AppendEvent(ctx, e); err != nil {
				return nil, err
			}
			return tx.ListConfig(ctx)
		})
		if err != nil {
			return ConfigEntry{}, err
		}
		for _, e := range s.ConfigEntries(stored) {
			if e.Key == key {
				return e, nil
			}
		}
	}
	return ConfigEntry{}, FieldErr(CodeInvalidInput, "key", "unknown setting %q: expected one of %s", key, strings.Join(known, ", "))
}
