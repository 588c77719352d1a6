package hub

import (
	"context"
	"fmt"
	"time"
)

// Who speaks. A request that reaches the core through bb serve carries the
// Principal its credential names (WithPrincipal); a call on the local board
// (the file is its owner's) or through a token-less loopback server carries
// none and may do everything, as before credentials existed. The one rule
// of what a principal may do is Decide; the core applies it (Allow) in
// every operation that acts as an agent or needs a role, so no surface can
// forget it, and surfaces call it too to refuse early (before they read a
// body or open a stream).

// Access is the role of a credential: what its holder may do on the board.
type Access string

// The three roles, from least to most.
const (
	// AccessAgent acts only as its own agent: its status, mail, acks,
	// reservations, tasks, memory of its scope.
	AccessAgent Access = "agent"
	// AccessOverseer is a person: as itself, it may also step in
	// (release or reassign another agent's reservation), answer a blocker,
	// message anyone.
	AccessOverseer Access = "overseer"
	// AccessOperator may do everything, as anyone: clear, global memory,
	// configuration, credentials.
	AccessOperator Access = "operator"
)

// Accesses lists the roles, least first.
var Accesses = []Access{AccessAgent, AccessOverseer, AccessOperator}

func (a Access) rank() int {
	switch a {
	case AccessAgent:
		return 1
	case AccessOverseer:
		return 2
	case AccessOperator:
		return 3
	}
	return 0
}

// ParseAccess reads a role name (field names the input).
func ParseAccess(field, v string) (Access, error) {
	a := Access(v)
	if a.rank() == 0 {
		return "", FieldErr(CodeInvalidInput, field, "unknown role %q: expected agent, overseer or operator", v)
	}
	return a, nil
}

// OperatorCredential names the server's own token (bb serve --token) in
// the audit: the operator's credential.
const OperatorCredential = "operator"

// Principal is who a request speaks for: the credential it presented.
type Principal struct {
	// Credential is the credential's name (what events record).
	Credential string `json:"credential"`
	// ID is the credential's id ("" for the server's own token).
	ID string `json:"id,omitempty"`
	// Agent is the agent the credential acts as ("" for the operator
	// token, which names no agent).
	Agent string `json:"agent,omitempty"`
	Role  Access `json:"role"`
	// ExpiresAt is when the credential stops working (nil: never).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

type principalKey struct{}

// WithPrincipal attaches who speaks to ctx.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns who speaks, when a credential was presented.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// AuditCredential is the name every event written under ctx records: the
// credential of the request ("" on the local board).
func AuditCredential(ctx context.Context) string {
	p, _ := PrincipalFrom(ctx)
	return p.Credential
}

// Op is what a caller asks to do (the question Decide answers).
type Op struct {
	// As is the agent the caller acts as ("" when it names none).
	As string
	// Need is the least role the operation needs ("" for any).
	Need Access
	// What words the operation for a refusal ("clear the board").
	What string
}

// Act is the action of acting as agent.
func Act(agent string) Op { return Op{As: agent} }

// Needs is an operation that needs role need.
func Needs(need Access, what string) Op { return Op{Need: need, What: what} }

// Decide is the rule of who may do what: an operation outside the role
// is FORBIDDEN naming the role it needs; acting as another agent than the
// credential's is FORBIDDEN naming the credential's agent. The operator
// may act as anyone; an overseer or an agent only as its own agent.
func Decide(p Principal, a Op) error {
	if a.Need != "" && p.Role.rank() < a.Need.rank() {
		what := a.What
		if what == "" {
			what = "this"
		}
		return &Error{Code: CodeForbidden, Field: "role", Message: fmt.Sprintf("%s needs the %s role: credential %q has the %s role", what, a.Need, p.Credential, p.Role)}
	}
	if a.As != "" && p.Role != AccessOperator && a.As != p.Agent {
		return &Error{Code: CodeForbidden, Field: "agent", Message: fmt.Sprintf("credential %q acts only as agent %q, not as %q", p.Credential, p.Agent, a.As)}
	}
	return nil
}

// Allow applies Decide to the principal of ctx; without one (the local
// board, a token-less loopback server) everything is allowed.
func Allow(ctx context.Context, acts ...Op) error {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return nil
	}
	for _, a := range acts {
		if err := Decide(p, a); err != nil {
			return err
		}
	}
	return nil
}

// Acting is the agent a request of ctx acts as when it names none: the
// credential's agent for an agent or overseer credential, else "".
func Acting(ctx context.Context) string {
	p, ok := PrincipalFrom(ctx)
	if !ok || p.Role == AccessOperator {
		return ""
	}
	return p.Agent
}

// MemoryTarget is memory of scope and scopeID in the authority table:
// an agent's memory is its agent's, the global memory is a thing of its
// own (written by the operator only), project and task memory is nobody's.
func MemoryTarget(verb Verb, scope, scopeID string) Target {
	switch scope {
	case ScopeGlobal, "":
		return Target{Thing: ThingGlobalMemory, Verb: verb, Name: "the global memory"}
	case ScopeAgent:
		return Target{Thing: ThingMemory, Verb: verb, Owner: scopeID, Name: "agent memory"}
	}
	return Target{Thing: ThingMemory, Verb: verb, Name: scope + " memory " + scopeID}
}

// CredentialIsPerson reports whether ctx's credential is an overseer's or
// the operator's: a person, whatever role its agent registered with.
func CredentialIsPerson(ctx context.Context) bool {
	p, ok := PrincipalFrom(ctx)
	return ok && p.Role.rank() >= AccessOverseer.rank()
}
