package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// ValidateScope checks a scope and its scope id: global has none, the
// others need one.
func ValidateScope(scope, scopeID string) error {
	if !slices.Contains(hub.MemoryScopes, scope) {
		return hub.FieldErr(hub.CodeInvalidInput, "scope", "invalid scope: %s (must be one of: global, project, task, agent)", scope)
	}
	if scope == hub.ScopeGlobal && scopeID != "" {
		return hub.FieldErr(hub.CodeInvalidInput, "scope_id", "global scope cannot have a scope_id")
	}
	if scope != hub.ScopeGlobal && scopeID == "" {
		return hub.FieldErr(hub.CodeInvalidInput, "scope_id", "%s scope requires a scope_id", scope)
	}
	return hub.CheckLen("scope_id", scopeID, hub.MaxScopeIDLen)
}

// InferValueType guesses the type of a value: true/false → boolean, a
// number → number, a JSON object → json, a JSON array → array, else string.
func InferValueType(v string) string {
	t := strings.TrimSpace(v)
	switch {
	case t == "true" || t == "false":
		return "boolean"
	case t == "":
		return "string"
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return "number"
	}
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return "json"
	}
	if strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
		return "array"
	}
	return "string"
}

// ValidateValueType checks an explicit value type ("" = infer) and returns
// the type to store. An explicit type is stored as given, whatever the
// value looks like, as the original vybe does (`-v 1 -t boolean`).
func ValidateValueType(typ, value string) (string, error) {
	if typ == "" {
		return InferValueType(value), nil
	}
	if !slices.Contains(hub.MemoryValueTypes, typ) {
		return "", hub.FieldErr(hub.CodeInvalidInput, "value_type", "invalid value_type: %q (must be one of: string, number, boolean, json, array)", typ)
	}
	return typ, nil
}

// ParseExpiresIn parses a memory time-to-live: a Go duration ("90m",
// "1h30m") or a whole number of days or weeks ("7d", "2w"). It must be
// positive and at most 100 years. Its errors are in vybe's words (its
// contract fixes them); CheckExpiresIn is the same rule for a person.
func ParseExpiresIn(s string) (time.Duration, error) {
	d, why := parseTTL(s)
	switch why {
	case ttlOK:
		return d, nil
	case ttlTooLong:
		return 0, hub.FieldErr(hub.CodeInvalidInput, "expires_in", "invalid expires-in duration: %q is longer than 100 years", s)
	case ttlNotPositive:
		return 0, hub.FieldErr(hub.CodeInvalidInput, "expires_in", "invalid expires-in duration: %q must be positive", s)
	}
	return 0, hub.FieldErr(hub.CodeInvalidInput, "expires_in", "invalid expires-in duration: invalid duration format: unsupported duration: %q", s)
}

// CheckExpiresIn is ParseExpiresIn for the input field (expires_in,
// expires…), in one sentence that names the field, the accepted form and
// the limit.
func CheckExpiresIn(field, s string) (time.Duration, error) {
	d, why := parseTTL(s)
	switch why {
	case ttlOK:
		return d, nil
	case ttlTooLong:
		return 0, hub.FieldErr(hub.CodeInvalidInput, field, "{field} can be at most 100 years (36500d), got %q", s)
	case ttlNotPositive:
		return 0, hub.FieldErr(hub.CodeInvalidInput, field, "{field} must be longer than 0, got %q", s)
	}
	return 0, hub.FieldErr(hub.CodeInvalidInput, field, "{field} must be a duration such as 90m, 2h, 7d or 2w (units s, m, h, d, w; at most 100 years), got %q", s)
}

type ttlFault int

const (
	ttlOK ttlFault = iota
	ttlBadForm
	ttlTooLong
	ttlNotPositive
)

func parseTTL(s string) (time.Duration, ttlFault) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, ttlBadForm
	}
	const maxTTL = 100 * 365 * 24 * time.Hour
	var d time.Duration
	if u := t[len(t)-1]; u == 'd' || u == 'w' {
		num := t[:len(t)-1]
		if num == "" || strings.Trim(num, "0123456789") != "" {
			return 0, ttlBadForm
		}
		n, err := strconv.ParseInt(num, 10, 64)
		unit := 24 * time.Hour
		if u == 'w' {
			unit *= 7
		}
		if err != nil || n > int64(maxTTL/unit) {
			return 0, ttlTooLong
		}
		d = time.Duration(n) * unit
	} else {
		var err error
		d, err = time.ParseDuration(t)
		if err != nil {
			return 0, ttlBadForm
		}
	}
	if d <= 0 {
		return 0, ttlNotPositive
	}
	if d > maxTTL {
		return 0, ttlTooLong
	}
	return d, ttlOK
}

// Input is one entry to write.
type Input struct {
	Key       string
	Value     string
	ValueType string
	Scope     string
	ScopeID   string
	// ExpiresIn (> 0) or ExpiresAt sets the expiry; neither means never.
	ExpiresIn time.Duration
	ExpiresAt *time.Time
}

// WriteResult is the reply of SetMemory and DeleteMemory.
type WriteResult struct {
	EventID   int64      `json:"event_id"`
	Key       string     `json:"key"`
	Scope     string     `json:"scope"`
	ScopeID   string     `json:"scope_id,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

func normalizeScope(scope string) string {
	if scope == "" {
		return hub.ScopeGlobal
	}
	return scope
}

func ValidateInput(in *Input) error {
	in.Scope = normalizeScope(in.Scope)
	if in.Key == "" {
		return hub.FieldErr(hub.CodeInvalidInput, "key", "memory key is required")
	}
	if err := hub.CheckLen("key", in.Key, hub.MaxMemoryKeyLen); err != nil {
		return err
	}
	if err := hub.CheckLen("value", in.Value, hub.MaxMemoryValueLen); err != nil {
		return err
	}
	if err := ValidateScope(in.Scope, in.ScopeID); err != nil {
		return err
	}
	typ, err := ValidateValueType(in.ValueType, in.Value)
	if err != nil {
		return err
	}
	in.ValueType = typ
	return nil
}

// memoryScopeID names a task scope by the task's full id when scopeID is
// a handle of one (any other scope id is kept as given).
func memoryScopeID(ctx context.Context, tx Tx, scope, scopeID string) (string, error) {
	if scope != hub.ScopeTask {
		return scopeID, nil
	}
	return hub.ResolveID(ctx, tx, "tasks", "scope_id", scopeID)
}

// memoryEventIDs gives the task and project an event about a memory entry
// belongs to.
func memoryEventIDs(scope, scopeID string) (taskID, projectID string) {
	switch scope {
	case hub.ScopeTask:
		return scopeID, ""
	case hub.ScopeProject:
		return "", scopeID
	}
	return "", ""
}

// UpsertTx writes one entry and its memory_upserted event.
func (s *Service) UpsertTx(ctx context.Context, tx Tx, a *hub.Agent, in Input, now time.Time) (WriteResult, error) {
	// Every write of memory (bb memory set, vybe push) goes through the
	// authority table here.
	if err := s.kernel.AuthorizeTx(ctx, tx, hub.MemoryTarget(hub.VerbWrite, in.Scope, in.ScopeID), a.ID); err != nil {
		return WriteResult{}, err
	}
	var err error
	if in.ScopeID, err = memoryScopeID(ctx, tx, in.Scope, in.ScopeID); err != nil {
		return WriteResult{}, err
	}
	m := &hub.Memory{Key: in.Key, Value: in.Value, ValueType: in.ValueType, Scope: in.Scope, ScopeID: in.ScopeID,
		CreatedAt: now, UpdatedAt: now}
	if in.ExpiresIn > 0 {
		e := now.Add(in.ExpiresIn)
		m.ExpiresAt = &e
	} else if in.ExpiresAt != nil {
		e := in.ExpiresAt.UTC().Truncate(time.Microsecond)
		m.ExpiresAt = &e
	}
	if err := tx.UpsertMemory(ctx, m); err != nil {
		return WriteResult{}, err
	}
	taskID, projectID := memoryEventIDs(m.Scope, m.ScopeID)
	ev, err := s.kernel.TaskEventTx(ctx, tx, a, hub.KindMemoryUpserted, taskID, projectID, "Memory upserted: "+m.Key,
		map[string]string{"key": m.Key, "scope": m.Scope, "scope_id": m.ScopeID})
	if err != nil {
		return WriteResult{}, err
	}
	return WriteResult{EventID: ev, Key: m.Key, Scope: m.Scope, ScopeID: m.ScopeID, ExpiresAt: m.ExpiresAt}, nil
}

// SetMemory inserts or updates the entry (scope, scope_id, key).
func (s *Service) SetMemory(ctx context.Context, agent string, in Input) (WriteResult, error) {
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return WriteResult{}, err
	}
	if err := ValidateInput(&in); err != nil {
		return WriteResult{}, err
	}
	if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
		return WriteResult{}, err
	}
	if _, err := hub.Authorize(ctx, hub.MemoryTarget(hub.VerbWrite, in.Scope, in.ScopeID)); err != nil {
		return WriteResult{}, err // refused before the transaction; UpsertTx records an override
	}
	return hub.WriteAs(ctx, s.kernel, []any{agent, in}, func(tx Tx) (WriteResult, error) {
		now := s.kernel.Now()
		a, err := s.kernel.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return WriteResult{}, err
		}
		return s.UpsertTx(ctx, tx, a, in, now)
	})
}

func memoryNotFound() error {
	return &hub.Error{Code: hub.CodeNotFound, Field: "key", Message: "memory entry not found"}
}

// GetMemory returns one unexpired entry.
func (s *Service) GetMemory(ctx context.Context, scope, scopeID, key string) (hub.Memory, error) {
	scope = normalizeScope(scope)
	if key == "" {
		return hub.Memory{}, hub.FieldErr(hub.CodeInvalidInput, "key", "memory key is required")
	}
	if err := ValidateScope(scope, scopeID); err != nil {
		return hub.Memory{}, err
	}
	if _, err := hub.Authorize(ctx, hub.MemoryTarget(hub.VerbRead, scope, scopeID)); err != nil {
		return hub.Memory{}, err
	}
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) (hub.Memory, error) {
		scopeID, err := memoryScopeID(ctx, tx, scope, scopeID)
		if err != nil {
			return hub.Memory{}, err
		}
		m, err := tx.GetMemory(ctx, scope, scopeID, key, s.kernel.Now())
		if err != nil {
			return hub.Memory{}, err
		}
		if m == nil {
			return hub.Memory{}, memoryNotFound()
		}
		return *m, nil
	})
}

// MaxMemoryList bounds one memory listing.
const MaxMemoryList = 1000

// ListMemory lists the unexpired entries of a scope, newest first.
func (s *Service) ListMemory(ctx context.Context, scope, scopeID string) ([]hub.Memory, error) {
	scope = normalizeScope(scope)
	if err := ValidateScope(scope, scopeID); err != nil {
		return nil, err
	}
	if _, err := hub.Authorize(ctx, hub.MemoryTarget(hub.VerbRead, scope, scopeID)); err != nil {
		return nil, err
	}
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]hub.Memory, error) {
		scopeID, err := memoryScopeID(ctx, tx, scope, scopeID)
		if err != nil {
			return nil, err
		}
		return tx.ListMemory(ctx, scope, scopeID, false, s.kernel.Now(), MaxMemoryList)
	})
}

// DeleteMemory removes an unexpired entry.
func (s *Service) DeleteMemory(ctx context.Context, agent, scope, scopeID, key string) (WriteResult, error) {
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return WriteResult{}, err
	}
	scope = normalizeScope(scope)
	if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
		return WriteResult{}, err
	}
	o, err := hub.Authorize(ctx, hub.MemoryTarget(hub.VerbWrite, scope, scopeID))
	if err != nil {
		return WriteResult{}, err
	}
	if key == "" {
		return WriteResult{}, hub.FieldErr(hub.CodeInvalidInput, "key", "memory key is required")
	}
	if err := ValidateScope(scope, scopeID); err != nil {
		return WriteResult{}, err
	}
	return hub.WriteAs(ctx, s.kernel, []string{agent, scope, scopeID, key}, func(tx Tx) (WriteResult, error) {
		now := s.kernel.Now()
		a, err := s.kernel.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return WriteResult{}, err
		}
		if err := s.kernel.OverrideEventTx(ctx, tx, o, agent); err != nil {
			return WriteResult{}, err
		}
		scopeID, err := memoryScopeID(ctx, tx, scope, scopeID)
		if err != nil {
			return WriteResult{}, err
		}
		ok, err := tx.DeleteMemory(ctx, scope, scopeID, key, now)
		if err != nil {
			return WriteResult{}, err
		}
		if !ok {
			return WriteResult{}, memoryNotFound()
		}
		taskID, projectID := memoryEventIDs(scope, scopeID)
		ev, err := s.kernel.TaskEventTx(ctx, tx, a, hub.KindMemoryDelete, taskID, projectID, "Memory deleted: "+key,
			map[string]string{"key": key, "scope": scope, "scope_id": scopeID})
		return WriteResult{EventID: ev, Key: key, Scope: scope, ScopeID: scopeID}, err
	})
}

// GCResult is the reply of GCMemory.
type GCResult struct {
	EventID int64 `json:"event_id"`
	Deleted int64 `json:"deleted"`
	Limit   int   `json:"limit"`
}

// GCMemory deletes up to limit expired entries.
func (s *Service) GCMemory(ctx context.Context, agent string, limit int) (GCResult, error) {
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return GCResult{}, err
	}
	if err := hub.Allow(ctx, hub.Act(agent), hub.Needs(hub.AccessOperator, "collecting expired memory")); err != nil {
		return GCResult{}, err
	}
	if limit <= 0 {
		return GCResult{}, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be > 0")
	}
	return hub.WriteAs(ctx, s.kernel, []any{agent, limit}, func(tx Tx) (GCResult, error) {
		now := s.kernel.Now()
		a, err := s.kernel.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return GCResult{}, err
		}
		n, err := tx.DeleteExpiredMemory(ctx, now, limit)
		if err != nil {
			return GCResult{}, err
		}
		ev, err := s.kernel.TaskEventTx(ctx, tx, a, hub.KindMemoryGC, "", "", fmt.Sprintf("Memory GC deleted %d rows", n),
			map[string]int64{"deleted": n})
		return GCResult{EventID: ev, Deleted: n, Limit: limit}, err
	})
}
