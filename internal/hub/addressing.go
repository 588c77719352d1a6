package hub

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Addressing. Every surface shares one board, so an agent that exists on
// any of them can be looked up, shown, mailed and read for from every other
// one by its stored id. An agent exists when it has a row in the agents
// table (it registered, or acted on the board) or when it appears in the
// mail traffic (Agent Mail needs no registration: an identity that has only
// been written to exists there alone). Each surface's id grammar — bb agent
// register's kebab-case, Agent Mail's project:name, vybe's lowercasing —
// applies only to the ids that surface creates, never to lookups.

// Grammar names a surface's rule for the agent ids it creates.
type Grammar string

// The grammars AgentID knows.
const (
	// GrammarMail is Agent Mail's project:name.
	GrammarMail Grammar = "agent-mail"
	// GrammarVybe is vybe's: any stored id, trimmed and lowercased.
	GrammarVybe Grammar = "vybe"
	// GrammarBoard is Blackboard's (bb --as, MCP, HTTP): any stored id of
	// at most MaxAgentIDLen bytes.
	GrammarBoard Grammar = "board"
)

// findAgent is the one lookup of an agent by id: its row, else a view of an
// identity known only from the mail traffic (never seen acting: zero
// LastSeen, status offline as for any agent unseen past the stale window,
// created when it first appeared in a message).
// It returns nil, nil when no surface knows id.
func findAgent(ctx context.Context, tx Tx, id string) (*Agent, error) {
	a, err := tx.GetAgent(ctx, id)
	if err != nil || a != nil {
		return a, err
	}
	return mailAgent(ctx, tx, id)
}

// mailAgent is findAgent's view of an id that has no agents row: the
// identity as the mail traffic knows it, or nil, nil.
func mailAgent(ctx context.Context, tx Tx, id string) (*Agent, error) {
	if id == Broadcast || id == BroadcastName {
		return nil, nil
	}
	first, found, err := tx.MailFirstSeen(ctx, id)
	if err != nil || !found {
		return nil, err
	}
	created, _ := ParseTime(first) // text written by another tool may not parse: zero
	return &Agent{ID: id, Status: "offline", CreatedAt: created, UpdatedAt: created, StatusSince: created, Version: 1}, nil
}

// ListAgentsIn is every agent any surface knows: the agents rows (most
// recently seen first), then the identities known only from the mail
// traffic, by id, each as findAgent shows it (never seen: offline), without
// asking again for the row ListAgents has just said is not there.
func ListAgentsIn(ctx context.Context, tx Tx) ([]Agent, error) {
	agents, err := tx.ListAgents(ctx)
	if err != nil {
		return nil, err
	}
	mail, err := tx.MailAgents(ctx)
	if err != nil || len(mail) == 0 {
		return agents, err
	}
	known := make(map[string]bool, len(agents))
	for _, a := range agents {
		known[a.ID] = true
	}
	for _, id := range mail {
		if known[id] || ValidateStoredAgentID(id) != nil {
			continue
		}
		a, err := mailAgent(ctx, tx, id) // no row: ListAgents would have listed it
		if err != nil {
			return nil, err
		}
		if a != nil {
			agents = append(agents, *a)
		}
	}
	return agents, nil
}

// UnbornStore is implemented by a store opened on first use (agent-mail's):
// Unborn reports that its database does not exist yet, so it knows no agent
// and a lookup must not create it (input refused by validation creates
// nothing).
type UnbornStore interface {
	Unborn() bool
}

// agentKnown reports whether any surface knows id (see findAgent).
func (s *Service) agentKnown(ctx context.Context, id string) (bool, error) {
	if ValidateStoredAgentID(id) != nil {
		return false, nil
	}
	if u, ok := s.store.(UnbornStore); ok && u.Unborn() {
		return false, nil
	}
	a, err := Read(ctx, s, func(tx Tx) (*Agent, error) { return findAgent(ctx, tx, id) })
	return a != nil, err
}

// AgentID applies the addressing rule for a surface: an id the board
// already knows, exactly as stored, is used as given; any other id must
// follow the surface's grammar g, which may normalise it (vybe lowercases).
// The error is the surface's own grammar error.
func (s *Service) AgentID(ctx context.Context, g Grammar, id string) (string, error) {
	switch g {
	case GrammarMail:
		if IsMailIdentity(id) {
			return id, nil
		}
		if known, err := s.agentKnown(ctx, id); err != nil || known {
			return id, err
		}
		return "", ValidateMailIdentity(id)
	case GrammarBoard:
		return id, s.CheckBoardAgent(ctx, id)
	case GrammarVybe:
		if t := strings.TrimSpace(id); utf8.ValidString(t) && strings.ToLower(t) != t {
			if known, err := s.agentKnown(ctx, t); err != nil || known {
				return t, err
			}
		}
		return VybeAgentName(id)
	}
	return "", Errorf(CodeInternal, "unknown agent id grammar %q", g)
}

// CheckBoardAgent applies Blackboard's identity rule to an acting agent: an id
// of at most MaxAgentIDLen bytes may be new (acting creates it); a longer
// one, up to MaxStoredAgentIDLen, must already be known to the board
// (vybe creates such ids). The error for an unknown long id is the
// board's own length error.
func (s *Service) CheckBoardAgent(ctx context.Context, id string) error {
	err := ValidateBoardAgentID(id)
	if err == nil || len(id) <= MaxAgentIDLen {
		return err
	}
	if known, kerr := s.agentKnown(ctx, id); kerr != nil || known {
		return kerr
	}
	return err
}

// boardAgentTx is boardAgent's rule inside a transaction: whether id may
// act on the board (the board grammar, or a longer id the board knows).
func (s *Service) boardAgentTx(ctx context.Context, tx Tx, id string) bool {
	if ValidateBoardAgentID(id) == nil {
		return true
	}
	if len(id) <= MaxAgentIDLen || ValidateStoredAgentID(id) != nil {
		return false
	}
	a, err := findAgent(ctx, tx, id)
	return err == nil && a != nil
}

// VybeAgentName is vybe's grammar for the agent ids it creates: trimmed,
// lowercased, required, at most MaxStoredAgentIDLen bytes, and the core rule
// for any stored id.
func VybeAgentName(id string) (string, error) {
	// Checked before lowercasing, which would turn a bad byte into U+FFFD.
	if err := CheckUTF8("agent", id); err != nil {
		return "", err
	}
	n := strings.ToLower(strings.TrimSpace(id))
	if n == "" {
		return "", FieldErr(CodeIdentityRequired, "agent", "agent is required ({do})").With(Action{Do: ActIdentify})
	}
	if len(n) > MaxStoredAgentIDLen {
		return "", FieldErr(CodeInvalidIdentity, "agent", "agent name exceeds maximum length (%d chars)", MaxStoredAgentIDLen)
	}
	return n, ValidateStoredAgentID(n)
}

// AgentNotFound is AGENT_NOT_FOUND for id. It suggests registering id
// (ActRegister) only when the kebab-case grammar of registration accepts it.
func AgentNotFound(field, id string) error {
	if ValidateAgentName(field, id) == nil {
		return FieldErr(CodeAgentNotFound, field, "agent %q not found (register it with: {do})", id).With(Action{Do: ActRegister, Args: map[string]string{"agent": id}})
	}
	return FieldErr(CodeAgentNotFound, field, "agent %q not found: no agent with this id has registered, acted or exchanged mail on this board", id)
}
