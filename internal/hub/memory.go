package hub

import (
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
