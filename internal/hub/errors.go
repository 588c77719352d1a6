// Package hub is the kernel of Blackboard and its shared domain: the types,
// rules, validation, error codes and clock of identity, the board's
// messages, mail, reservations, tasks, memory and the timeline, and the
// unit of work every mutation runs in (Write: one transaction with its
// idempotency record, its event and the caller's check-in). It knows
// nothing about SQL, flags or HTTP and never words a surface's command:
// errors carry fields and actions that each surface words (Vocabulary).
// Its applications (hooks, agentmail, overview) are subpackages over it;
// internal/app composes them into the API the surfaces use through the
// role interfaces of api.go.
package hub

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	// CodeAgentActive refuses adopting an identity whose session is still
	// alive (active or quiet: seen within the stale window).
	CodeAgentActive Code = "AGENT_ACTIVE"
)

// Codes shared by the task, memory and idempotency features (seed 002).
const (
	CodeConflict            Code = "CONFLICT"
	CodeIdempotencyMismatch Code = "IDEMPOTENCY_KEY_COLLISION"
	CodeSchemaTooNew        Code = "SCHEMA_TOO_NEW"
	CodeUnauthorized        Code = "UNAUTHORIZED"
	// CodeForbidden: the credential is valid but may not do this (act as
	// another agent, or an operation of a higher role); see access.go.
	CodeForbidden Code = "FORBIDDEN"
)

// CodeDatabaseUnavailable says the database cannot be reached right now (a
// PostgreSQL server restarting, a board file moved away): nothing was done,
// and the same call may be retried once it is back. Long-lived processes
// (bb serve, bb mcp) reconnect by themselves.
const CodeDatabaseUnavailable Code = "DATABASE_UNAVAILABLE"

// CodeRateLimited says a credential spent its request budget on bb serve
// (fair use): nothing was done; the same call may be retried after the
// reply's Retry-After seconds.
const CodeRateLimited Code = "RATE_LIMITED"

// Error is the typed error every core operation returns. Message is written
// for the user: one line, naming the field and the limit where relevant.
type Error struct {
	Code    Code
	Message string
	// Field names the offending input, when there is one, by its domain
	// name (ttl_minutes, bead, request_id…).
	Field string
	// Template is Message with the domain names of the fields it names
	// enclosed in FieldMarks, so that each surface renders them in its own
	// vocabulary (Render). Empty when the message names no field.
	Template string
	// Actions are the ways past the error that Template points at (see
	// Action): each surface words them in its own syntax.
	Actions []Action
	// Err is an underlying cause (never shown to users verbatim if it is
	// a driver error; see Internal).
	Err error
}

// ActionMark encloses the index of an Action in Error.Template
// ("\ue0010\ue001"), as FieldMark encloses a field.
const ActionMark = "\ue001"

// Action is a way past an error in domain terms (register this agent, say
// who you are): the core never words a surface's command, flag or tool;
// each surface words the action in its own syntax (ActionWords).
type Action struct {
	// Do names the step (Act…).
	Do string `json:"do"`
	// Args are its domain arguments (agent…).
	Args map[string]string `json:"args,omitempty"`
}

// The actions of errors.
const (
	// ActRegister: register the agent Args["agent"] (then retry).
	ActRegister = "register"
	// ActIdentify: name the acting agent.
	ActIdentify = "identify"
	// ActHandOff: ask the agent Args["agent"] for a HANDOFF of its work.
	ActHandOff = "hand_off"
	// ActStartSession: start this session as a new agent Args["agent"]
	// with the role Args["role"].
	ActStartSession = "start_session"
	// ActAdopt: resume the identity of the agent Args["agent"].
	ActAdopt = "adopt"
	// ActListCredentials: see the board's credentials.
	ActListCredentials = "list_credentials"
	// ActNewCredential: ask the operator for a new credential.
	ActNewCredential = "new_credential"
	// ActOwnBoard: use the board of this checkout's repository.
	ActOwnBoard = "own_board"
	// ActUnshallow: fetch the whole history of a shallow clone.
	ActUnshallow = "unshallow"
	// ActAskRelease: Args["from"] (the acting agent when absent) asks
	// Args["to"] for the reservation of Args["scope"] on the bead
	// Args["bead"], to work on Args["path"].
	ActAskRelease = "ask_release"
	// ActWaitFor: Args["agent"] waits, instead of polling, until
	// Args["scope"] is free for it, or for the reply to (or the ack of)
	// its message Args["message"].
	ActWaitFor = "wait_for"
)

// ActionWords words an action in a surface's syntax; "" falls back to the
// core's plain words (PlainAction).
type ActionWords func(Action) string

// Word is a in the surface's words, or in the core's plain words
// (PlainAction) where words is nil or has none for it.
func (words ActionWords) Word(a Action) string {
	if words != nil {
		if w := words(a); w != "" {
			return w
		}
	}
	return PlainAction(a)
}

// PlainAction words an action without any surface's syntax: what Message
// says, and what a surface shows for an action it has no words for.
func PlainAction(a Action) string {
	switch a.Do {
	case ActRegister:
		return fmt.Sprintf("the registration of agent %q", a.Args["agent"])
	case ActIdentify:
		return "name the acting agent"
	case ActHandOff:
		return fmt.Sprintf("mail %s a HANDOFF request", a.Args["agent"])
	case ActStartSession:
		return fmt.Sprintf("start as the new agent %s (role %s)", a.Args["agent"], a.Args["role"])
	case ActAdopt:
		return fmt.Sprintf("adopt the identity of %s", a.Args["agent"])
	case ActListCredentials:
		return "list the credentials to see them"
	case ActNewCredential:
		return "ask the operator for a new one"
	case ActOwnBoard:
		return "Use the board of this repository instead"
	case ActUnshallow:
		return "Fetch the whole history first: git fetch --unshallow"
	case ActAskRelease:
		return fmt.Sprintf("send %s a BLOCKED message asking for %s", a.Args["to"], a.Args["scope"])
	case ActWaitFor:
		if a.Args["scope"] != "" {
			return "wait until " + a.Args["scope"] + " is free"
		}
		return "wait for the reply to " + a.Args["message"]
	}
	return strings.ReplaceAll(a.Do, "_", " ")
}

// WaitForScopeAction is the action of WaitForScope.
func WaitForScopeAction(agent, scope string) Action {
	return Action{Do: ActWaitFor, Args: map[string]string{"agent": agent, "scope": scope}}
}

// WaitForReplyAction is the wait for the answer to a message the agent
// sent (the reply to its BLOCKED).
func WaitForReplyAction(agent, message string) Action {
	return Action{Do: ActWaitFor, Args: map[string]string{"agent": agent, "message": message}}
}

// WaitLine words a wait (ActWaitFor) as the line that names it, in a
// surface's words: "wait for src/a.go: bb agent wait --for-scope src/a.go",
// "wait for the answer: …"; "" for nil.
func WaitLine(a *Action, words ActionWords) string {
	if a == nil {
		return ""
	}
	w := words.Word(*a)
	if sc := a.Args["scope"]; sc != "" {
		return "wait for " + sc + ": " + w
	}
	return "wait for the answer: " + w
}

// Vocabulary is how a surface words errors: its names of the domain fields
// and its syntax for actions. Either may be nil.
type Vocabulary struct {
	Field  FieldNamer
	Action ActionWords
}

// Words returns the message of e in the vocabulary v.
func (e *Error) Words(v Vocabulary) string {
	if e.Template == "" {
		return e.Error()
	}
	return renderTemplate(e.Template, e.Actions, v)
}

// WordsOf is the user-facing message of err in the vocabulary v;
// untyped errors are "internal error".
func WordsOf(err error, v Vocabulary) string {
	var he *Error
	if errors.As(err, &he) {
		return he.Words(v)
	}
	return "internal error"
}

// With attaches the actions that the error's {do}s stand for, in order.
func (e *Error) With(acts ...Action) *Error {
	e.Actions = acts
	if e.Template != "" {
		e.Message = renderTemplate(e.Template, e.Actions, Vocabulary{})
	}
	return e
}

func renderTemplate(t string, acts []Action, v Vocabulary) string {
	if strings.Contains(t, ActionMark) {
		parts := strings.Split(t, ActionMark)
		for i := 1; i < len(parts); i += 2 {
			n, err := strconv.Atoi(parts[i])
			if err != nil || n >= len(acts) {
				parts[i] = ""
				continue
			}
			parts[i] = v.Action.Word(acts[n])
		}
		t = strings.Join(parts, "")
	}
	name := v.Field
	if name == nil {
		name = func(f string) string { return f }
	}
	return renderFields(t, name)
}

// FieldMark encloses the domain name of a field in Error.Template
// ("\ue000ttl_minutes\ue000"): a private-use character, never typed by a
// user.
const FieldMark = "\ue000"

// FieldNamer names a domain field in a surface's vocabulary: a flag in a
// command line (--ttl), a parameter in MCP (ttl_minutes), a JSON field in
// HTTP. Each surface has one.
type FieldNamer func(field string) string

// Render returns the message of e with every field it names rendered by
// name. Messages that name no field are returned unchanged.
func (e *Error) Render(name FieldNamer) string {
	if e.Template == "" || name == nil {
		return e.Error()
	}
	return e.Words(Vocabulary{Field: name})
}

func renderFields(t string, name FieldNamer) string {
	parts := strings.Split(t, FieldMark)
	for i := 1; i < len(parts); i += 2 {
		parts[i] = name(parts[i])
	}
	return strings.Join(parts, "")
}

// RenderMessage is the user-facing message of err in a surface's
// vocabulary (see Error.Render); untyped errors are "internal error".
func RenderMessage(err error, name FieldNamer) string {
	var he *Error
	if errors.As(err, &he) {
		return he.Render(name)
	}
	return "internal error"
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

// FieldErr builds an error about one input field. The format refers to
// fields by their domain names in braces, {field} being the error's own
// field ("{field} must be between 5 and 1440, got 2", "give either {adopt}
// or {register}"): Message shows the domain names and each surface renders
// its own (Error.Render). Arguments are never scanned for braces.
func FieldErr(code Code, field, format string, args ...any) *Error {
	marked, ok := markFields(format, field)
	if !ok {
		return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
	}
	t := fmt.Sprintf(marked, args...)
	return &Error{Code: code, Field: field, Message: renderTemplate(t, nil, Vocabulary{}), Template: t}
}

// markFields replaces each {name} (lower-case letters, digits and
// underscores) of format by the name between FieldMarks; {field} is field.
// The n-th {do} stands for the n-th action given to With.
func markFields(format, field string) (string, bool) {
	var b strings.Builder
	found := false
	actions := 0
	for {
		i := strings.IndexByte(format, '{')
		if i < 0 {
			b.WriteString(format)
			return b.String(), found
		}
		j := strings.IndexByte(format[i:], '}')
		name := ""
		if j > 1 {
			name = format[i+1 : i+j]
		}
		if name == "" || strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" || name[0] < 'a' || name[0] > 'z' {
			b.WriteString(format[:i+1])
			format = format[i+1:]
			continue
		}
		if name == "field" {
			name = field
		}
		b.WriteString(format[:i])
		if name == "do" {
			// {do}: the error's next action (With), worded by each surface.
			b.WriteString(ActionMark + strconv.Itoa(actions) + ActionMark)
			actions++
		} else {
			b.WriteString(FieldMark + name + FieldMark)
		}
		format = format[i+j+1:]
		found = true
	}
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

// Unavailable reports that the database cannot be reached; msg says why in
// the user's terms, err keeps the driver's cause for the log.
func Unavailable(msg string, err error) error {
	return &Error{Code: CodeDatabaseUnavailable, Message: msg, Err: err}
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
