package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Memory scopes (seed 002).
const (
	ScopeGlobal  = "global"
	ScopeProject = "project"
	ScopeTask    = "task"
	ScopeAgent   = "agent"
)

// MemoryScopes lists every scope.
var MemoryScopes = []string{ScopeGlobal, ScopeProject, ScopeTask, ScopeAgent}

// MemoryValueTypes lists every value type.
var MemoryValueTypes = []string{"string", "number", "boolean", "json", "array"}

// Memory limits.
const (
	MaxMemoryKeyLen   = 256
	MaxMemoryValueLen = 65536
	MaxScopeIDLen     = 1024
	DefaultGCLimit    = 500
	// RelevantMemoryLimit bounds the memory shown in a resume brief.
	RelevantMemoryLimit = 50
)

// Memory is one durable key/value entry in a scope.
type Memory struct {
	ID        int64
	Key       string
	Value     string
	ValueType string
	Scope     string
	ScopeID   string
	ExpiresAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ValidateScope checks a scope and its scope id: global has none, the
// others need one.
func ValidateScope(scope, scopeID string) error {
	if !slices.Contains(MemoryScopes, scope) {
		return FieldErr(CodeInvalidInput, "scope", "invalid scope: %s (must be one of: global, project, task, agent)", scope)
	}
	if scope == ScopeGlobal && scopeID != "" {
		return FieldErr(CodeInvalidInput, "scope_id", "global scope cannot have a scope_id")
	}
	if scope != ScopeGlobal && scopeID == "" {
		return FieldErr(CodeInvalidInput, "scope_id", "%s scope requires a scope_id", scope)
	}
	return CheckLen("scope_id", scopeID, MaxScopeIDLen)
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
	if !slices.Contains(MemoryValueTypes, typ) {
		return "", FieldErr(CodeInvalidInput, "value_type", "invalid value_type: %q (must be one of: string, number, boolean, json, array)", typ)
	}
	return typ, nil
}

// ParseExpiresIn parses a memory time-to-live: a Go duration ("90m",
// "1h30m") or a whole number of days or weeks ("7d", "2w"). It must be
// positive and at most 100 years.
func ParseExpiresIn(s string) (time.Duration, error) {
	bad := func() error {
		return FieldErr(CodeInvalidInput, "expires_in", "invalid expires-in duration: invalid duration format: unsupported duration: %q", s)
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, bad()
	}
	const maxTTL = 100 * 365 * 24 * time.Hour
	var d time.Duration
	if u := t[len(t)-1]; u == 'd' || u == 'w' {
		num := t[:len(t)-1]
		if !isDigits(num) {
			return 0, bad()
		}
		n, err := strconv.ParseInt(num, 10, 64)
		unit := 24 * time.Hour
		if u == 'w' {
			unit *= 7
		}
		if err != nil || n > int64(maxTTL/unit) {
			return 0, FieldErr(CodeInvalidInput, "expires_in", "invalid expires-in duration: %q is longer than 100 years", s)
		}
		d = time.Duration(n) * unit
	} else {
		var err error
		d, err = time.ParseDuration(t)
		if err != nil {
			return 0, bad()
		}
	}
	if d <= 0 {
		return 0, FieldErr(CodeInvalidInput, "expires_in", "invalid expires-in duration: %q must be positive", s)
	}
	if d > maxTTL {
		return 0, FieldErr(CodeInvalidInput, "expires_in", "invalid expires-in duration: %q is longer than 100 years", s)
	}
	return d, nil
}

// MemoryInput is one entry to write.
type MemoryInput struct {
	Key       string
	Value     string
	ValueType string
	Scope     string
	ScopeID   string
	// ExpiresIn (> 0) or ExpiresAt sets the expiry; neither means never.
	ExpiresIn time.Duration
	ExpiresAt *time.Time
}

// MemoryWriteResult is the reply of SetMemory and DeleteMemory.
type MemoryWriteResult struct {
	EventID   int64      `json:"event_id"`
	Key       string     `json:"key"`
	Scope     string     `json:"scope"`
	ScopeID   string     `json:"scope_id,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

func normalizeScope(scope string) string {
	if scope == "" {
		return ScopeGlobal
	}
	return scope
}

func ValidateMemoryInput(in *MemoryInput) error {
	in.Scope = normalizeScope(in.Scope)
	if in.Key == "" {
		return FieldErr(CodeInvalidInput, "key", "memory key is required")
	}
	if err := CheckLen("key", in.Key, MaxMemoryKeyLen); err != nil {
		return err
	}
	if err := CheckLen("value", in.Value, MaxMemoryValueLen); err != nil {
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
	if scope != ScopeTask {
		return scopeID, nil
	}
	return ResolveID(ctx, tx, "tasks", "scope_id", scopeID)
}

// memoryEventIDs gives the task and project an event about a memory entry
// belongs to.
func memoryEventIDs(scope, scopeID string) (taskID, projectID string) {
	switch scope {
	case ScopeTask:
		return scopeID, ""
	case ScopeProject:
		return "", scopeID
	}
	return "", ""
}

// UpsertMemoryTx writes one entry and its memory_upserted event.
func (s *Service) UpsertMemoryTx(ctx context.Context, tx Tx, a *Agent, in MemoryInput, now time.Time) (MemoryWriteResult, error) {
	var err error
	if in.ScopeID, err = memoryScopeID(ctx, tx, in.Scope, in.ScopeID); err != nil {
		return MemoryWriteResult{}, err
	}
	m := &Memory{Key: in.Key, Value: in.Value, ValueType: in.ValueType, Scope: in.Scope, ScopeID: in.ScopeID,
		CreatedAt: now, UpdatedAt: now}
	if in.ExpiresIn > 0 {
		e := now.Add(in.ExpiresIn)
		m.ExpiresAt = &e
	} else if in.ExpiresAt != nil {
		e := in.ExpiresAt.UTC().Truncate(time.Microsecond)
		m.ExpiresAt = &e
	}
	if err := tx.UpsertMemory(ctx, m); err != nil {
		return MemoryWriteResult{}, err
	}
	taskID, projectID := memoryEventIDs(m.Scope, m.ScopeID)
	ev, err := s.TaskEventTx(ctx, tx, a, KindMemoryUpserted, taskID, projectID, "Memory upserted: "+m.Key,
		map[string]string{"key": m.Key, "scope": m.Scope, "scope_id": m.ScopeID})
	if err != nil {
		return MemoryWriteResult{}, err
	}
	return MemoryWriteResult{EventID: ev, Key: m.Key, Scope: m.Scope, ScopeID: m.ScopeID, ExpiresAt: m.ExpiresAt}, nil
}

// SetMemory inserts or updates the entry (scope, scope_id, key).
func (s *Service) SetMemory(ctx context.Context, agent string, in MemoryInput) (MemoryWriteResult, error) {
	if err := checkAgent(agent); err != nil {
		return MemoryWriteResult{}, err
	}
	if err := ValidateMemoryInput(&in); err != nil {
		return MemoryWriteResult{}, err
	}
	if err := Allow(ctx, Act(agent), MemoryAccess(agent, in.Scope, in.ScopeID)); err != nil {
		return MemoryWriteResult{}, err
	}
	return Write(ctx, s, []any{agent, in}, func(tx Tx) (MemoryWriteResult, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return MemoryWriteResult{}, err
		}
		return s.UpsertMemoryTx(ctx, tx, a, in, now)
	})
}

func memoryNotFound() error {
	return &Error{Code: CodeNotFound, Field: "key", Message: "memory entry not found"}
}

// GetMemory returns one unexpired entry.
func (s *Service) GetMemory(ctx context.Context, scope, scopeID, key string) (Memory, error) {
	scope = normalizeScope(scope)
	if key == "" {
		return Memory{}, FieldErr(CodeInvalidInput, "key", "memory key is required")
	}
	if err := ValidateScope(scope, scopeID); err != nil {
		return Memory{}, err
	}
	return Read(ctx, s, func(tx Tx) (Memory, error) {
		scopeID, err := memoryScopeID(ctx, tx, scope, scopeID)
		if err != nil {
			return Memory{}, err
		}
		m, err := tx.GetMemory(ctx, scope, scopeID, key, s.Now())
		if err != nil {
			return Memory{}, err
		}
		if m == nil {
			return Memory{}, memoryNotFound()
		}
		return *m, nil
	})
}

// MaxMemoryList bounds one memory listing.
const MaxMemoryList = 1000

// ListMemory lists the unexpired entries of a scope, newest first.
func (s *Service) ListMemory(ctx context.Context, scope, scopeID string) ([]Memory, error) {
	scope = normalizeScope(scope)
	if err := ValidateScope(scope, scopeID); err != nil {
		return nil, err
	}
	return Read(ctx, s, func(tx Tx) ([]Memory, error) {
		scopeID, err := memoryScopeID(ctx, tx, scope, scopeID)
		if err != nil {
			return nil, err
		}
		return tx.ListMemory(ctx, scope, scopeID, false, s.Now(), MaxMemoryList)
	})
}

// DeleteMemory removes an unexpired entry.
func (s *Service) DeleteMemory(ctx context.Context, agent, scope, scopeID, key string) (MemoryWriteResult, error) {
	if err := checkAgent(agent); err != nil {
		return MemoryWriteResult{}, err
	}
	scope = normalizeScope(scope)
	if err := Allow(ctx, Act(agent), MemoryAccess(agent, scope, scopeID)); err != nil {
		return MemoryWriteResult{}, err
	}
	if key == "" {
		return MemoryWriteResult{}, FieldErr(CodeInvalidInput, "key", "memory key is required")
	}
	if err := ValidateScope(scope, scopeID); err != nil {
		return MemoryWriteResult{}, err
	}
	return Write(ctx, s, []string{agent, scope, scopeID, key}, func(tx Tx) (MemoryWriteResult, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return MemoryWriteResult{}, err
		}
		scopeID, err := memoryScopeID(ctx, tx, scope, scopeID)
		if err != nil {
			return MemoryWriteResult{}, err
		}
		ok, err := tx.DeleteMemory(ctx, scope, scopeID, key, now)
		if err != nil {
			return MemoryWriteResult{}, err
		}
		if !ok {
			return MemoryWriteResult{}, memoryNotFound()
		}
		taskID, projectID := memoryEventIDs(scope, scopeID)
		ev, err := s.TaskEventTx(ctx, tx, a, KindMemoryDelete, taskID, projectID, "Memory deleted: "+key,
			map[string]string{"key": key, "scope": scope, "scope_id": scopeID})
		return MemoryWriteResult{EventID: ev, Key: key, Scope: scope, ScopeID: scopeID}, err
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
	if err := checkAgent(agent); err != nil {
		return GCResult{}, err
	}
	if err := Allow(ctx, Act(agent), Needs(AccessOperator, "collecting expired memory")); err != nil {
		return GCResult{}, err
	}
	if limit <= 0 {
		return GCResult{}, FieldErr(CodeInvalidInput, "limit", "limit must be > 0")
	}
	return Write(ctx, s, []any{agent, limit}, func(tx Tx) (GCResult, error) {
		now := s.Now()
		a, err := s.ActingAgentTx(ctx, tx, agent, now)
		if err != nil {
			return GCResult{}, err
		}
		n, err := tx.DeleteExpiredMemory(ctx, now, limit)
		if err != nil {
			return GCResult{}, err
		}
		ev, err := s.TaskEventTx(ctx, tx, a, KindMemoryGC, "", "", fmt.Sprintf("Memory GC deleted %d rows", n),
			map[string]int64{"deleted": n})
		return GCResult{EventID: ev, Deleted: n, Limit: limit}, err
	})
}
