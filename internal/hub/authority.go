package hub

import (
	"context"
	"fmt"
	"strings"
)

// The authority table: which role may do what to whose things. Decide
// (access.go) answers "may this credential act as that agent, and does it
// hold the role an operation needs"; the table answers the question it
// cannot: the caller acts as itself, but the thing it touches (a task, a
// reservation, memory, a brief, a location, mail, the repository claim)
// belongs to another agent. One row per thing and verb says the least
// role that may do it to the caller's own thing, to a thing nobody owns,
// and to another agent's. The core applies it (Authorize) where it loads
// the thing, so every surface (the REST API, the command endpoint, the
// RPC of remote bb, MCP, hooks, the dashboard) gets the same answer.
// docs/security.md prints this table; a test keeps the two the same.
//
// The local board (no credential: the file is its owner's) and a
// token-less loopback server may do everything, as before.

// Thing is what a row of the authority table governs.
type Thing string

// The things of the table.
const (
	ThingTask        Thing = "task"
	ThingReservation Thing = "reservation"
	// ThingLease is a named lease (internal/hub/leases): its holder is its
	// owner.
	ThingLease        Thing = "lease"
	ThingMemory       Thing = "memory"
	ThingGlobalMemory Thing = "global memory"
	ThingBrief        Thing = "resume brief"
	ThingLocation     Thing = "location"
	ThingMail         Thing = "mail"
	ThingDelivery     Thing = "delivery receipt"
	ThingRepository   Thing = "repository claim"
)

// Verb is what a caller does to a Thing.
type Verb string

// The verbs of the table.
const (
	VerbBegin    Verb = "begin"
	VerbTakeover Verb = "take over"
	VerbComplete Verb = "complete"
	VerbBlock    Verb = "block"
	VerbStatus   Verb = "set the status of"
	VerbPriority Verb = "reprioritise"
	VerbDepend   Verb = "change the dependencies of"
	VerbDelete   Verb = "delete"
	VerbRelease  Verb = "release"
	VerbReassign Verb = "reassign"
	VerbRead     Verb = "read"
	VerbWrite    Verb = "write"
	VerbClaim    Verb = "claim"
	VerbReset    Verb = "reset"
)

// Rule is one row of the authority table: the least role that may do
// Verb to a Thing that is the caller's own (Own), that nobody owns
// (Unowned) and that is another agent's (Other). "" means no row of that
// kind exists (the thing always has, or never has, an owner).
type Rule struct {
	Thing   Thing  `json:"thing"`
	Verb    Verb   `json:"verb"`
	Own     Access `json:"own,omitempty"`
	Unowned Access `json:"unowned,omitempty"`
	Other   Access `json:"other,omitempty"`
	// Note says what the row means in a sentence (docs/security.md).
	Note string `json:"note"`
}

// AuthorityTable is the table, in the order docs/security.md shows it.
// It is built on each call (the core holds no package-level mutable
// state); Authorize reads it through ruleFor.
func AuthorityTable() []Rule {
	const ag, ov, op = AccessAgent, AccessOverseer, AccessOperator
	return []Rule{
		{ThingTask, VerbBegin, ag, ag, ov, "begin a task (become its owner); only a task in progress has an owner here, so a task not in progress is anyone's to begin"},
		{ThingTask, VerbTakeover, "", "", ag, "take over a task in progress whose owner is stale or offline (bb task begin --takeover-stale)"},
		{ThingTask, VerbComplete, ag, ag, ov, "close a task as done"},
		{ThingTask, VerbBlock, ag, ag, ov, "close a task as blocked"},
		{ThingTask, VerbStatus, ag, ag, ov, "set a task's status (vybe task set-status, bb push)"},
		{ThingTask, VerbPriority, ag, ag, ov, "change a task's priority"},
		{ThingTask, VerbDepend, ag, ag, ov, "add or remove a dependency of a task"},
		{ThingTask, VerbDelete, ag, ov, ov, "delete a task; a task nobody began is its creator's"},
		{ThingReservation, VerbRelease, ag, "", ov, "release a reservation (another agent's: bb step-in)"},
		{ThingReservation, VerbReassign, ov, "", ov, "give another agent's reservation to someone else (bb step-in --to)"},
		{ThingLease, VerbRelease, ag, "", ov, "release a named lease"},
		{ThingLease, VerbTakeover, "", "", ag, "take over a lease whose holder is stale or offline"},
		{ThingMemory, VerbRead, ag, ag, ov, "read memory; agent-scoped memory is its agent's, project and task memory nobody's"},
		{ThingMemory, VerbWrite, ag, ag, op, "write or delete memory of a scope"},
		{ThingGlobalMemory, VerbRead, "", ag, "", "read the global memory"},
		{ThingGlobalMemory, VerbWrite, "", op, "", "write or delete the global memory every brief shows"},
		{ThingBrief, VerbRead, ag, "", ov, "peek at an agent's resume brief (vybe resume --peek)"},
		{ThingBrief, VerbWrite, ag, "", op, "resume as an agent (advances its cursor)"},
		{ThingLocation, VerbWrite, ag, "", op, "report where an agent works (work tree, branch, host)"},
		{ThingMail, VerbRead, ag, "", op, "read (and mark read) an agent's mail"},
		{ThingDelivery, VerbRead, ag, "", ov, "see whether a hook delivered a message to its recipient"},
		{ThingRepository, VerbClaim, "", op, "", "make an unclaimed board serve a repository (the first bb serve in a checkout does it)"},
		{ThingRepository, VerbReset, "", op, "", "forget the repository the board serves (bb repository reset)"},
	}
}

// ruleFor is the row of thing and verb.
func ruleFor(thing Thing, verb Verb) (Rule, bool) {
	for _, r := range AuthorityTable() {
		if r.Thing == thing && r.Verb == verb {
			return r, true
		}
	}
	return Rule{}, false
}

// Target is one thing an operation touches: what, how, and whose.
type Target struct {
	Thing Thing
	Verb  Verb
	// Owner is the agent the thing belongs to ("" nobody).
	Owner string
	// Name names the thing in a refusal and in the audit ("task t_1",
	// "memory agent/alice").
	Name string
}

// Override is a person's act on another agent's thing: the core records
// it (OverrideEventTx) in the transaction that makes the change.
type Override struct {
	Target
	Principal Principal
}

// EventAuthorityOverride records that an overseer or the operator changed
// another agent's thing: the event names the credential, its role, the
// thing and its owner.
const EventAuthorityOverride = "authority.override"

// Authorize applies the authority table to ctx's principal for t: nil
// when allowed (and the thing is the caller's own or nobody's, or there is
// no principal); an Override when a person acts on another agent's thing;
// FORBIDDEN naming the role the row needs otherwise.
func Authorize(ctx context.Context, t Target) (*Override, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return nil, nil
	}
	return decideTarget(p, t)
}

// May reports whether ctx's principal may do t (a surface leaving out what
// its viewer may not see, instead of failing).
func May(ctx context.Context, t Target) bool {
	_, err := Authorize(ctx, t)
	return err == nil
}

func decideTarget(p Principal, t Target) (*Override, error) {
	r, ok := ruleFor(t.Thing, t.Verb)
	if !ok {
		return nil, Internal("authority", fmt.Errorf("no row for %s %s", t.Verb, t.Thing))
	}
	need, other := r.Unowned, false
	switch {
	case t.Owner == "":
	case t.Owner == p.Agent:
		need = r.Own
	default:
		need, other = r.Other, true
	}
	if need == "" {
		// No row of that kind: the operator alone (who may do anything).
		need = AccessOperator
	}
	if p.Role.rank() < need.rank() {
		return nil, &Error{Code: CodeForbidden, Field: "role", Message: fmt.Sprintf("credential %q (%s role) may not %s %s: that needs the %s role",
			p.Credential, p.Role, t.Verb, targetWords(t), need)}
	}
	if !other || p.Role == AccessAgent {
		return nil, nil
	}
	return &Override{Target: t, Principal: p}, nil
}

// targetWords names t with its owner ("task t_1 of alice-one").
func targetWords(t Target) string {
	name := t.Name
	if name == "" {
		name = string(t.Thing)
	}
	if t.Owner == "" {
		return name
	}
	return name + " of " + t.Owner
}

// OverrideEventTx records o, when there is one, as agent (the agent the
// request acts as; the credential's name when it names none).
func (s *Service) OverrideEventTx(ctx context.Context, tx Tx, o *Override, agent string) error {
	if o == nil {
		return nil
	}
	if agent == "" {
		agent = o.Principal.Agent
	}
	e := s.Event(EventAuthorityOverride, agent, map[string]string{
		"thing": string(o.Thing), "verb": string(o.Verb), "name": o.Name, "owner": o.Owner,
		"credential": o.Principal.Credential, "role": string(o.Principal.Role)})
	e.ToAgent = o.Owner
	if o.Thing == ThingTask {
		e.TaskID = strings.TrimPrefix(o.Name, "task ")
	}
	e.Message = fmt.Sprintf("%s credential %q: %s %s", o.Principal.Role, o.Principal.Credential, o.Verb, targetWords(o.Target))
	e.Credential = o.Principal.Credential
	return tx.AppendEvent(ctx, e)
}

// AuthorizeTx is Authorize followed by the override's event in tx: what
// a mutation calls where it loaded the thing it changes.
func (s *Service) AuthorizeTx(ctx context.Context, tx Tx, t Target, agent string) error {
	o, err := Authorize(ctx, t)
	if err != nil {
		return err
	}
	return s.OverrideEventTx(ctx, tx, o, agent)
}
