// Package hub is the domain core of Blackboard: types, rules, validation,
// error codes and the clock. It knows nothing about SQL, flags or HTTP; every
// surface (bb, agent-mail, vybe, MCP, HTTP) is an adapter over Service.
package hub

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Codes are part of the
// public contract of every surface; never rename one.
type Code string

// Codes of seed 003 (Blackboard).
const (
	CodeNotInitialized   Code = "NOT_INITIALIZED"
	CodeDatabaseBusy     Code = "DATABASE_BUSY"
	CodeInvalidInput     Code = "INVALID_INPUT"
	CodeInvalidRefFormat Code = "INVALID_REF_FORMAT"
	CodePathTraversal    Code = "PATH_TRAVERSAL"
	CodeNotFound         Code = "NOT_FOUND"
	CodeIdentityRequired Code = "IDENTITY_REQUIRED"
	CodeInvalidIdentity  Code = "INVALID_IDENTITY"
	CodeInternal         Code = "INTERNAL_ERROR"
)

// Codes of seed 000 §9 (bb agent) and seed 001 (operative protocol).
const (
	CodeInvalidArgs           Code = "INVALID_ARGS"
	CodeAgentNotFound         Code = "AGENT_NOT_FOUND"
	CodeDuplicateAgentID      Code = "DUPLICATE_AGENT_ID"
	CodeUnknownSender         Code = "UNKNOWN_SENDER"
	CodeUnknownRecipient      Code = "UNKNOWN_RECIPIENT"
	CodeMissingBeadID         Code = "MISSING_BEAD_ID"
	CodeInvalidCategory       Code = "INVALID_CATEGORY"
	CodeMessageNotFound       Code = "MESSAGE_NOT_FOUND"
	CodeAckForbidden          Code = "ACK_FORBIDDEN"
	CodeReservationConflict   Code = "RESERVATION_CONFLICT"
	CodeReservationStaleFound Code = "RESERVATION_STALE_FOUND"
	CodeReservationNotFound   Code = "RESERVATION_NOT_FOUND"
	CodeReleaseForbidden      Code = "RELEASE_FORBIDDEN"
	CodeIOWriteFailed         Code = "IO_WRITE_FAILED"
	CodeIOReadFailed          Code = "IO_READ_FAILED"
	CodeAmbiguousSession      Code = "AMBIGUOUS_SESSION"
	CodeAdoptionRejected      Code = "ADOPTION_REJECTED"
)

// Codes shared by the task, memory and idempotency features (seed 002).
const (
	CodeConflict            Code = "CONFLICT"
	CodeIdempotencyMismatch Code = "IDEMPOTENCY_KEY_COLLISION"
	CodeSchemaTooNew        Code = "SCHEMA_TOO_NEW"
	CodeUnauthorized        Code = "UNAUTHORIZED"
)

// Error is the typed error every core operation returns. Message is written
// for the user: one line, naming the field and the limit where relevant.
type Error struct {
	Code    Code
	Message string
	// Field names the offending input, when there is one.
	Field string
	// Err is an underlying cause (never shown to users verbatim if it is
	// a driver error; see Internal).
	Err error
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Code)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErr builds an INVALID_INPUT-style error naming a field.
func FieldErr(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps an unexpected failure (driver error, I/O) so that users see
// a stable code and a short message, and developers keep the cause via
// errors.Unwrap.
func Internal(op string, err error) error {
	if err == nil {
		return nil
	}
	var he *Error
	if errors.As(err, &he) {
		return err
	}
	return &Error{Code: CodeInternal, Message: op + " failed", Err: err}
}

// Busy reports that the database stayed locked beyond the retry budget.
func Busy(err error) error {
	return &Error{Code: CodeDatabaseBusy, Message: "database busy, please retry", Err: err}
}

// CodeOf returns the stable code of err (INTERNAL_ERROR for untyped errors).
func CodeOf(err error) Code {
	var he *Error
	if errors.As(err, &he) {
		return he.Code
	}
	return CodeInternal
}

// MessageOf returns the user-facing message of err.
func MessageOf(err error) string {
	var he *Error
	if errors.As(err, &he) {
		return he.Error()
	}
	return "internal error"
}

// IsCode reports whether err carries code c.
func IsCode(err error, c Code) bool { return CodeOf(err) == c }
